// What the PDF/A rules need from the content streams the walk reached, read
// in one pass of the lexer over each: the device colour spaces the operators
// select (rg/RG, k/K, g/G, cs/CS with a device name, inline images), the
// deepest q nesting (an implementation limit, ISO 19005-1 §6.1.12), the
// operators PDF does not define (forbidden even inside BX/EX), and the
// inline images' dictionaries.
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfDict, PdfName, PdfString, type PdfValue } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';
import { ShownText, type ShownFont } from './shown-text.js';

export interface DeviceUse {
  readonly family: 'DeviceRGB' | 'DeviceCMYK' | 'DeviceGray';
  readonly page?: number;
  readonly label: string;
}

export interface ContentFacts {
  readonly deviceColour: DeviceUse[];
  readonly deepNesting: { page?: number; label: string; depth: number }[];
  readonly undefinedOperators: { page?: number; label: string; operator: string }[];
  readonly inlineImages: { page?: number; label: string; dict: PdfDict }[];
  /** Colour spaces named by cs/CS that are not device names (looked up in resources). */
  readonly namedSpaces: { page?: number; label: string; value: PdfValue }[];
  /** Hex strings of operands with an odd number of digits, or with other characters than hex digits and white-space (ISO 19005 6.1.6). */
  readonly oddHexStrings: { page?: number; sample: string }[];
  readonly nonHexStrings: { page?: number; sample: string }[];
  /** Rendering intents named by `ri`. */
  readonly renderingIntents: { page?: number; label: string; intent: string }[];
  /** Integers outside [-2^31, 2^31-1] and strings of 32768 bytes or more among the operands (6.1.13). */
  readonly bigIntegers: { page?: number; value: number }[];
  /** Reals (written with a decimal point) beyond ±32767 among the operands: PDF/A-1's limit (6.1.12). */
  readonly bigReals: { page?: number; value: number }[];
  readonly longStrings: { page?: number; length: number }[];
  /** Named resources a stream uses while its owner has no Resources of its own (inherited from the page tree: 6.2.2). */
  readonly inheritedNames: { page?: number; label: string; name: string }[];
  /** The codes each font shows (shown-text.ts), by font dictionary. */
  readonly shownFonts: ReadonlyMap<PdfDict, ShownFont>;
}

function* leaves(values: readonly PdfValue[]): Generator<PdfValue> {
  for (const value of values) {
    if (Array.isArray(value)) yield* leaves(value);
    else yield value;
  }
}

/** Operators that paint with the fill colour, with the stroke colour: painting before any colour is set uses the initial DeviceGray (ISO 32000-1 Table 52). */
const FILLS = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'Tj', 'TJ', "'", '"', 'sh']);
const STROKES = new Set(['S', 's', 'B', 'B*', 'b', 'b*']);
/** Operators that name a resource, and which operand does. */
const NAMED: Record<string, string> = { Tf: 'Font', Do: 'XObject', gs: 'ExtGState', sh: 'Shading' };

/** A hex string in an operation's source: `<...>` that is not a dictionary's `<<` or `>>`. */
const HEX_STRING = /(?<![<>])<(?!<)([^<>]*)>(?!>)/g;

function hasHexOperand(values: readonly PdfValue[]): boolean {
  return values.some((value) => (value instanceof PdfString && value.hex) || (Array.isArray(value) && hasHexOperand(value)));
}

const OPERATORS = new Set(
  ("b B b* B* BDC BI BMC BT BX c cm CS cs d d0 d1 Do DP EI EMC ET EX f F f* G g gs h i ID j J K k l m M MP n q Q re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf Tj TJ TL Tm Tr Ts Tw Tz v w W W* y ' \"").split(' '),
);
/** Operands per content stream read at most: the rules need a few facts, not the drawing. */
const MAX_OPERATIONS = 2_000_000;
const INLINE_SPACES: Record<string, DeviceUse['family']> = { G: 'DeviceGray', DeviceGray: 'DeviceGray', RGB: 'DeviceRGB', DeviceRGB: 'DeviceRGB', CMYK: 'DeviceCMYK', DeviceCMYK: 'DeviceCMYK' };

export function contentFacts(document: PdfaDocument): ContentFacts {
  const text = new ShownText(document.pdf);
  const facts: ContentFacts = { deviceColour: [], deepNesting: [], undefinedOperators: [], inlineImages: [], namedSpaces: [], oddHexStrings: [], nonHexStrings: [], renderingIntents: [], bigIntegers: [], bigReals: [], longStrings: [], inheritedNames: [], shownFonts: text.fonts };
  let operations = 0;
  for (const content of document.walk.contents) {
    const bytes = content.stream.decoded();
    if (bytes === undefined) continue;
    const spaces = document.pdf.dict(content.resources?.get('ColorSpace'));
    const remapped = (family: DeviceUse['family']): boolean => spaces?.has(family.replace('Device', 'Default')) === true;
    const use = (family: DeviceUse['family']): void => {
      if (!remapped(family)) facts.deviceColour.push({ family, page: content.page, label: content.label });
    };
    let depth = 0;
    let deepest = 0;
    // Whether a fill and a stroke colour have been set, saved and restored with q/Q; Type 3 glyphs and patterns inherit theirs, so only page content counts.
    const inheritsColour = !content.label.startsWith('page ');
    let colourSet = { fill: inheritsColour, stroke: inheritsColour };
    const saved: (typeof colourSet)[] = [];
    const inherited = content.inheritedResources === true;
    text.begin(content.resources, content.page, content.label);
    for (const op of contentOperations(bytes)) {
      if (++operations > MAX_OPERATIONS) break;
      text.operation(op.operator, op.operands);
      let large = false;
      for (const value of leaves(op.operands)) {
        if (typeof value === 'number' && Math.abs(value) > 32767) large = true;
        if (typeof value === 'number' && Number.isInteger(value) && (value > 2147483647 || value < -2147483648)) facts.bigIntegers.push({ page: content.page, value });
        if (value instanceof PdfString && value.bytes.length >= 32768) facts.longStrings.push({ page: content.page, length: value.bytes.length });
      }
      // The lexer reads 60000.0 as the number 60000: whether it is a real is in the source (veraPDF corpus 6-1-12-t02-fail-e).
      if (large && op.operator !== 'BI' && facts.bigReals.length < 100) {
        const source = Buffer.from(bytes.buffer, bytes.byteOffset + op.start, op.end - op.start).toString('latin1');
        for (const match of source.matchAll(/(?<![\w.])[+-]?(\d+\.\d*|\.\d+)(?![\w.])/g)) {
          const value = Number(match[0]);
          if (Math.abs(value) > 32767) facts.bigReals.push({ page: content.page, value });
        }
      }
      if (inherited && (op.operator in NAMED || ((op.operator === 'cs' || op.operator === 'CS') && op.operands[0] instanceof PdfName && !/^Device(RGB|CMYK|Gray)$|^Pattern$/.test(op.operands[0].name)))) {
        const operand = op.operands[0];
        if (operand instanceof PdfName) facts.inheritedNames.push({ page: content.page, label: content.label, name: operand.name });
      }
      if (op.operator === 'ri' && op.operands[0] instanceof PdfName) facts.renderingIntents.push({ page: content.page, label: content.label, intent: op.operands[0].name });
      if (FILLS.has(op.operator) && !colourSet.fill) {
        use('DeviceGray');
        colourSet = { ...colourSet, fill: true };
      }
      if (STROKES.has(op.operator) && !colourSet.stroke) {
        use('DeviceGray');
        colourSet = { ...colourSet, stroke: true };
      }
      if (['rg', 'k', 'g', 'cs', 'sc', 'scn'].includes(op.operator)) colourSet = { ...colourSet, fill: true };
      if (['RG', 'K', 'G', 'CS', 'SC', 'SCN'].includes(op.operator)) colourSet = { ...colourSet, stroke: true };
      if (op.operator === 'q') saved.push(colourSet);
      if (op.operator === 'Q') colourSet = saved.pop() ?? colourSet;
      if (op.operator !== 'BI' && hasHexOperand(op.operands)) {
        const source = Buffer.from(bytes.buffer, bytes.byteOffset + op.start, op.end - op.start).toString('latin1');
        for (const match of source.matchAll(HEX_STRING)) {
          const digits = match[1]!;
          if (/[^0-9A-Fa-f\s]/.test(digits)) facts.nonHexStrings.push({ page: content.page, sample: `<${digits.slice(0, 60)}>` });
          else if (digits.replace(/\s/g, '').length % 2 === 1) facts.oddHexStrings.push({ page: content.page, sample: `<${digits.slice(0, 60)}>` });
        }
      }
      switch (op.operator) {
        case 'q':
          deepest = Math.max(deepest, ++depth);
          break;
        case 'Q':
          depth = Math.max(0, depth - 1);
          break;
        case 'rg':
        case 'RG':
          use('DeviceRGB');
          break;
        case 'k':
        case 'K':
          use('DeviceCMYK');
          break;
        case 'g':
        case 'G':
          use('DeviceGray');
          break;
        case 'cs':
        case 'CS': {
          const name = op.operands[0];
          if (!(name instanceof PdfName)) break;
          if (name.name === 'DeviceRGB' || name.name === 'DeviceCMYK' || name.name === 'DeviceGray') use(name.name);
          else if (name.name !== 'Pattern' && spaces?.get(name.name) !== undefined) facts.namedSpaces.push({ page: content.page, label: content.label, value: spaces.get(name.name)! });
          break;
        }
        case 'BI': {
          const dict = op.operands[0];
          if (!(dict instanceof PdfDict)) break;
          facts.inlineImages.push({ page: content.page, label: content.label, dict });
          const space = dict.get('CS') ?? dict.get('ColorSpace');
          if (space instanceof PdfName) {
            const family = INLINE_SPACES[space.name];
            if (family !== undefined) use(family);
          }
          break;
        }
        default:
          if (!OPERATORS.has(op.operator)) facts.undefinedOperators.push({ page: content.page, label: content.label, operator: op.operator.slice(0, 40) });
      }
    }
    if (deepest > 28) facts.deepNesting.push({ page: content.page, label: content.label, depth: deepest });
  }
  return facts;
}

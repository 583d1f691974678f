// What the PDF/A rules need from the content streams the walk reached, read
// in one pass of the lexer over each: the device colour spaces the operators
// select (rg/RG, k/K, g/G, cs/CS with a device name, inline images), the
// deepest q nesting (an implementation limit, ISO 19005-1 §6.1.12), the
// operators PDF does not define (forbidden even inside BX/EX), and the
// inline images' dictionaries.
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfDict, PdfName, type PdfValue } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';

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
}

const OPERATORS = new Set(
  ("b B b* B* BDC BI BMC BT BX c cm CS cs d d0 d1 Do DP EI EMC ET EX f F f* G g gs h i ID j J K k l m M MP n q Q re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf Tj TJ TL Tm Tr Ts Tw Tz v w W W* y ' \"").split(' '),
);
/** Operands per content stream read at most: the rules need a few facts, not the drawing. */
const MAX_OPERATIONS = 2_000_000;
const INLINE_SPACES: Record<string, DeviceUse['family']> = { G: 'DeviceGray', DeviceGray: 'DeviceGray', RGB: 'DeviceRGB', DeviceRGB: 'DeviceRGB', CMYK: 'DeviceCMYK', DeviceCMYK: 'DeviceCMYK' };

export function contentFacts(document: PdfaDocument): ContentFacts {
  const facts: ContentFacts = { deviceColour: [], deepNesting: [], undefinedOperators: [], inlineImages: [], namedSpaces: [] };
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
    for (const op of contentOperations(bytes)) {
      if (++operations > MAX_OPERATIONS) break;
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

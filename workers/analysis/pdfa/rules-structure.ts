// File structure (ISO 19005-1 §6.1, 19005-2 §6.1): the header and its binary
// comment, the trailer's ID and no encryption, nothing after %%EOF, the
// cross-reference syntax, strings, streams, filters, object spacing and the
// implementation limits, from the file's bytes (cos-scan.ts) and its objects.
import type { PdfValue } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

const PART2_FILTERS = new Set(['ASCIIHexDecode', 'ASCII85Decode', 'FlateDecode', 'RunLengthDecode', 'CCITTFaxDecode', 'JBIG2Decode', 'DCTDecode', 'JPXDecode', 'Crypt']);
const PART2_INLINE_FILTERS = new Set(['ASCIIHexDecode', 'ASCII85Decode', 'FlateDecode', 'RunLengthDecode', 'CCITTFaxDecode', 'DCTDecode', 'AHx', 'A85', 'Fl', 'RL', 'CCF', 'DCT']);

function* filtersOf(document: PdfaDocument): Generator<{ name: string; object: string }> {
  for (const ref of document.pdf.refs()) {
    const stream = document.pdf.stream(ref);
    if (stream === undefined) continue;
    const filter = document.pdf.resolve(stream.dict.get('Filter'));
    for (const item of Array.isArray(filter) ? filter : [filter]) {
      const name = document.pdf.name(item);
      if (name !== undefined) yield { name, object: ref.toString() };
    }
  }
}

function* inlineFilters(document: PdfaDocument): Generator<{ name: string; page?: number }> {
  for (const image of document.content.inlineImages) {
    const filter = image.dict.get('F') ?? image.dict.get('Filter');
    for (const item of Array.isArray(filter) ? filter : [filter]) {
      const name = document.pdf.name(item);
      if (name !== undefined) yield { name, page: image.page };
    }
  }
}

function* pageBoxes(document: PdfaDocument): Generator<{ page: number; box: string; value: PdfValue[] }> {
  for (const page of document.pdf.pages) {
    for (const box of ['MediaBox', 'CropBox', 'BleedBox', 'TrimBox', 'ArtBox'] as const) {
      const value = box === 'MediaBox' || box === 'CropBox' ? page.inherited(box) : document.pdf.resolve(page.dict.get(box));
      if (Array.isArray(value)) yield { page: page.index + 1, box, value };
    }
  }
}

export const STRUCTURE_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.1.2-1', 2: '6.1.2-1' },
    description: 'The file header shall begin at byte 0 and match %PDF-n.m (PDF/A-2 and 3: %PDF-1.0 to %PDF-1.7)',
    *check(d) {
      const { headerOffset, header } = d.cos;
      const pattern = d.part === 1 ? /%PDF-\d\.\d/ : /^%PDF-1\.[0-7]$/;
      if (headerOffset !== 0 || !pattern.test(header)) yield at(`header "${header.slice(0, 20)}" at offset ${headerOffset}`);
    },
  },
  {
    ids: { 1: '6.1.2-2', 2: '6.1.2-2' },
    description: 'The header shall be followed by a comment of at least four bytes above 127',
    *check(d) {
      if (d.cos.binaryBytes.some((b) => b <= 127)) yield at(`first four bytes ${d.cos.binaryBytes.join(', ')}`);
    },
  },
  {
    ids: { 1: '6.1.3-1', 2: '6.1.3-1' },
    description: 'The file trailer shall contain an ID',
    *check(d) {
      // A linearized file's first-page trailer is the last one in update order (its /Prev points to the main one at the end).
      const trailer = d.cos.linearized ? d.cos.firstTrailer : d.cos.lastTrailer;
      const ids = trailer?.ids ?? [];
      if (trailer === undefined || !trailer.keys.has('ID') || (d.part !== 1 && (ids.length === 0 || ids[0] === ''))) yield at('no ID in the trailer');
    },
  },
  {
    ids: { 1: '6.1.3-2', 2: '6.1.3-2' },
    description: 'The trailer shall not contain Encrypt',
    *check(d) {
      if (d.pdf.encrypted || d.cos.lastTrailer?.keys.has('Encrypt') === true) yield at('Encrypt in the trailer');
    },
  },
  {
    ids: { 1: '6.1.3-3', 2: '6.1.3-3' },
    description: 'No data shall follow the last %%EOF marker except a single optional EOL',
    *check(d) {
      if (d.cos.postEofDataSize > 0) yield at(`${d.cos.postEofDataSize} bytes after %%EOF`);
    },
  },
  {
    ids: { 1: '6.1.3-4' },
    description: 'A linearized file\'s first-page trailer ID shall equal the last trailer\'s ID',
    *check(d) {
      const first = d.cos.firstTrailer?.ids[0];
      const last = d.cos.lastTrailer?.ids[0];
      if (d.cos.linearized && last !== undefined && first !== last) yield at('the first-page and last trailer IDs differ');
    },
  },
  {
    ids: { 1: '6.1.4-1' },
    description: 'In a cross-reference subsection header the numbers shall be separated by a single space',
    check: (d) => d.cos.xrefSubsectionSpacing.map((s) => at(s)),
  },
  {
    ids: { 1: '6.1.4-2', 2: '6.1.4-2' },
    description: 'The xref keyword and the subsection header shall be separated by a single EOL marker',
    check: (d) => d.cos.xrefEol.map((s) => at(s)),
  },
  {
    ids: { 1: '6.1.4-3' },
    description: 'A PDF/A-1 file shall not use cross-reference streams',
    *check(d) {
      if (d.cos.containsXrefStream) yield at('a cross-reference stream');
    },
  },
  {
    ids: { 1: '6.1.6-1', 2: '6.1.6-1' },
    description: 'A hexadecimal string shall have an even number of digits',
    check: (d) => [...d.cos.oddHexStrings.map((s) => at(s)), ...d.content.oddHexStrings.map((s) => at(s.sample, s.page))],
  },
  {
    ids: { 1: '6.1.6-2', 2: '6.1.6-2' },
    description: 'A hexadecimal string shall contain only hexadecimal digits and white-space',
    check: (d) => [...d.cos.nonHexStrings.map((s) => at(s)), ...d.content.nonHexStrings.map((s) => at(s.sample, s.page))],
  },
  {
    ids: { 1: '6.1.7-1', 2: '6.1.7.1-1' },
    description: 'A stream\'s Length shall equal the number of bytes between stream and endstream',
    *check(d) {
      for (const s of d.cos.streams) {
        if (s.declaredLength === undefined || s.declaredLength < s.realLength || s.declaredLength > s.realLength + s.eolBeforeEndstream) yield at(`object ${s.object}: Length ${s.declaredLength ?? 'missing'}, ${s.realLength} bytes`);
      }
    },
  },
  {
    ids: { 1: '6.1.7-2', 2: '6.1.7.1-2' },
    description: 'stream shall be followed by CRLF or LF, and endstream preceded by an EOL',
    *check(d) {
      for (const s of d.cos.streams) if (!s.streamEolCompliant || !s.endstreamEolCompliant) yield at(`object ${s.object}`);
    },
  },
  {
    ids: { 1: '6.1.7-3', 2: '6.1.7.1-3' },
    description: 'A stream dictionary shall not contain F, FFilter or FDecodeParms',
    *check(d) {
      for (const s of d.cos.streams) if (s.externalFile) yield at(`object ${s.object}`);
    },
  },
  {
    ids: { 1: '6.1.10-1' },
    description: 'LZWDecode shall not be used',
    *check(d) {
      for (const f of filtersOf(d)) if (f.name === 'LZWDecode') yield at(`object ${f.object}`);
    },
  },
  {
    ids: { 1: '6.1.10-2' },
    description: 'Inline images shall not use LZWDecode',
    *check(d) {
      for (const f of inlineFilters(d)) if (f.name === 'LZWDecode' || f.name === 'LZW') yield at(f.name, f.page);
    },
  },
  {
    ids: { 2: '6.1.7.2-1' },
    description: 'Streams shall use only the standard filters other than LZWDecode',
    *check(d) {
      for (const f of filtersOf(d)) if (!PART2_FILTERS.has(f.name)) yield at(`${f.name} in object ${f.object}`);
    },
  },
  {
    ids: { 2: '6.1.10-1' },
    description: 'Inline images shall use only the standard filters other than LZWDecode',
    *check(d) {
      for (const f of inlineFilters(d)) if (!PART2_INLINE_FILTERS.has(f.name)) yield at(f.name, f.page);
    },
  },
  {
    ids: { 1: '6.1.8-1', 2: '6.1.9-1' },
    description: 'Object and generation numbers, obj and endobj shall be separated and ended as ISO 19005 says (single white-space, EOL)',
    check: (d) => d.cos.objectSpacing.map((s) => at(s)),
  },
  {
    ids: { 2: '6.1.8-1' },
    description: 'Names shall be valid UTF-8 once #xx escapes are undone',
    check: (d) => d.cos.invalidUtf8Names.map((s) => at(`/${s}`)),
  },
  {
    ids: { 1: '6.1.12-1', 2: '6.1.13-1' },
    description: 'Integers shall lie in [-2^31, 2^31-1]',
    check: (d) => [...d.cos.integers.map((n) => at(String(n))), ...d.content.bigIntegers.map((n) => at(String(n.value), n.page))],
  },
  {
    ids: { 1: '6.1.12-2', 2: '6.1.13-2' },
    description: 'Reals shall lie in [-32767, 32767] (PDF/A-1) or [-3.403e38, 3.403e38] (PDF/A-2 and 3)',
    *check(d) {
      const limit = d.part === 1 ? 32767 : 3.403e38;
      for (const n of d.cos.reals) if (Math.abs(n) > limit) yield at(String(n));
      if (d.part === 1) for (const n of d.content.bigReals) yield at(`${n.value} in a content stream`, n.page);
    },
  },
  {
    ids: { 2: '6.1.13-5' },
    description: 'A non-zero real shall be at least 1.175e-38 in magnitude',
    *check(d) {
      for (const n of d.cos.reals) if (n !== 0 && Math.abs(n) < 1.175e-38) yield at(String(n));
    },
  },
  {
    ids: { 1: '6.1.12-3', 2: '6.1.13-3' },
    description: 'Strings shall be shorter than 65535 bytes (PDF/A-1) or 32767 bytes (PDF/A-2 and 3)',
    *check(d) {
      const limit = d.part === 1 ? 65536 : 32768;
      for (const n of d.cos.longStrings) if (n >= limit) yield at(`${n} bytes`);
      for (const n of d.content.longStrings) if (n.length >= limit) yield at(`${n.length} bytes in a content stream`, n.page);
    },
  },
  {
    ids: { 1: '6.1.12-4', 2: '6.1.13-4' },
    description: 'Names shall be at most 127 bytes long',
    check: (d) => d.cos.longNames.map((s) => at(`/${s}...`)),
  },
  {
    ids: { 1: '6.1.12-5' },
    description: 'Arrays shall have at most 8191 elements',
    *check(d) {
      for (const n of d.cos.arraySizes) if (n > 8191) yield at(`${n} elements`);
    },
  },
  {
    ids: { 1: '6.1.12-6' },
    description: 'Dictionaries shall have at most 4095 entries',
    *check(d) {
      for (const n of d.cos.dictSizes) if (n > 4095) yield at(`${n} entries`);
    },
  },
  {
    ids: { 1: '6.1.12-7', 2: '6.1.13-7' },
    description: 'A file shall have at most 8388607 indirect objects',
    *check(d) {
      if (d.cos.indirectObjects > 8388607) yield at(`${d.cos.indirectObjects} objects`);
    },
  },
  {
    ids: { 1: '6.1.12-8', 2: '6.1.13-8' },
    description: 'q/Q nesting shall be at most 28 deep',
    check: (d) => d.content.deepNesting.map((n) => at(`${n.label}: depth ${n.depth}`, n.page)),
  },
  {
    ids: { 1: '6.1.12-9', 2: '6.1.13-9' },
    description: 'A DeviceN colour space shall have at most 8 (PDF/A-1) or 32 (PDF/A-2 and 3) colourants',
    *check(d) {
      const limit = d.part === 1 ? 8 : 32;
      for (const cs of d.walk.colourSpaces) {
        if (!Array.isArray(cs.value) || d.pdf.name(cs.value[0]) !== 'DeviceN') continue;
        const names = d.pdf.array(cs.value[1]) ?? [];
        if (names.length > limit) yield at(`${cs.label}: ${names.length} colourants`, cs.page);
      }
    },
  },
  {
    ids: { 2: '6.1.13-11' },
    description: 'Page boundaries shall be between 3 and 14400 units in each direction',
    *check(d) {
      for (const { page, box, value } of pageBoxes(d)) {
        const [x1, y1, x2, y2] = value.map((v) => d.pdf.number(v) ?? 0);
        const w = Math.abs((x2 ?? 0) - (x1 ?? 0));
        const h = Math.abs((y2 ?? 0) - (y1 ?? 0));
        if (w < 3 || w > 14400 || h < 3 || h > 14400) yield at(`${box} ${w} x ${h}`, page);
      }
    },
  },
  {
    ids: { 1: '6.1.13-1' },
    description: 'A PDF/A-1 file shall not contain optional content (OCProperties)',
    *check(d) {
      if (d.pdf.catalog?.has('OCProperties') === true) yield at('OCProperties in the catalog');
    },
  },
  {
    ids: { 2: '6.1.12-1' },
    description: 'Perms shall contain only UR3 and DocMDP',
    *check(d) {
      const perms = d.pdf.dict(d.pdf.catalog?.get('Perms'));
      for (const key of perms?.entries.keys() ?? []) if (key !== 'UR3' && key !== 'DocMDP') yield at(`Perms /${key}`);
    },
  },
  {
    ids: { 2: '6.1.12-2' },
    description: 'With DocMDP, signature references shall not contain DigestLocation, DigestMethod or DigestValue',
    *check(d) {
      const perms = d.pdf.dict(d.pdf.catalog?.get('Perms'));
      const signature = d.pdf.dict(perms?.get('DocMDP'));
      if (signature === undefined) return;
      for (const item of d.pdf.array(signature.get('Reference')) ?? []) {
        const reference = d.pdf.dict(item);
        for (const key of ['DigestLocation', 'DigestMethod', 'DigestValue']) if (reference?.has(key) === true) yield at(`signature reference with ${key}`);
      }
    },
  },
];

// Whether a PDF's cross-reference data is damaged, so that reading it means
// rebuilding the table by scanning for objects (pdf.js does that silently).
// Checked on the bytes before pdf.js takes them: the last `startxref` must
// point at a cross-reference table (`xref`) or stream (`N G obj`), as ISO
// 32000-1, 7.5.5 requires. A file that fails this check still opens when
// pdf.js can rebuild it; the answer then carries a notice saying so.

const TAIL = 2048;
const ascii = new TextDecoder('latin1');

export function crossReferenceDamaged(bytes: Uint8Array): boolean {
  const tail = ascii.decode(bytes.subarray(Math.max(0, bytes.length - TAIL)));
  const at = tail.lastIndexOf('startxref');
  if (at === -1) return true;
  const offset = /^startxref\s+(\d+)/.exec(tail.slice(at));
  if (offset === null) return true;
  const position = Number(offset[1]);
  if (!Number.isSafeInteger(position) || position >= bytes.length) return true;
  const target = ascii.decode(bytes.subarray(position, Math.min(bytes.length, position + 64)));
  return !/^\s*(xref|\d+\s+\d+\s+obj)/.test(target);
}

export const REPAIRED_NOTICE =
  'The PDF\'s cross-reference data is damaged (its startxref does not point at a cross-reference table); ' +
  'it was read by rebuilding the table from the objects in the file, so some content may be missing or out of place.';

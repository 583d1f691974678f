// Whether a PDF's cross-reference data is damaged, so that reading it means
// rebuilding the table by scanning for objects (pdf.js does that silently).
// Checked on the bytes before pdf.js takes them (untrusted/pdf-xref-damage.ts
// says what counts: a startxref, a table or an entry that does not point
// where it should). A file that fails the check still opens when pdf.js can
// rebuild it; the answer then carries a notice saying so and why.
import { crossReferenceDamage } from '../untrusted/pdf-xref-damage.js';

/** The notice for a reading answer: null when the cross-reference data is sound. */
export function repairNotice(bytes: Uint8Array): string | null {
  const damage = crossReferenceDamage(bytes);
  return damage === undefined
    ? null
    : `The PDF's cross-reference data is damaged (${damage}); ` +
        'it was read by rebuilding the table from the objects in the file, so some content may be missing or out of place.';
}

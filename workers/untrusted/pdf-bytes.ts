// The pre-check every task that takes a PDF runs on its bytes before a
// library parses them (linearize now; the reader and document operations as
// they arrive): not empty, within the task's size cap, and a `%PDF-` header
// where readers look for it. One decision, one wording; each task says
// which field the bytes came from and what a refusal becomes.
import { hasPdfHeader } from './pdf-scan.js';

export interface PdfRefusal {
  readonly kind: 'not-a-pdf' | 'too-large';
  /** A sentence for the client, naming the field. */
  readonly message: string;
}

/** Undefined when the bytes may be handed to a PDF library; else why not. `maxBytes` is the task's cap on the decoded PDF. */
export function checkPdfBytes(bytes: Uint8Array, field: string, maxBytes = Number.POSITIVE_INFINITY): PdfRefusal | undefined {
  if (bytes.byteLength > maxBytes) {
    return { kind: 'too-large', message: `${field} holds a PDF of ${bytes.byteLength} bytes, more than the ${maxBytes} this operation accepts; send a smaller file.` };
  }
  if (bytes.byteLength === 0) return { kind: 'not-a-pdf', message: `${field} is empty; send the PDF file itself, base64-encoded.` };
  if (!hasPdfHeader(bytes)) {
    return { kind: 'not-a-pdf', message: `${field} is not a PDF: there is no %PDF- header in its first 1024 bytes. Send the PDF file itself, base64-encoded.` };
  }
  return undefined;
}

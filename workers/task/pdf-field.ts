// A PDF sent as a base64 member of a JSON request (`pdf`, `pdf_a`,
// `documents[2].pdf`), decoded and given the pre-check every PDF task runs
// (workers/untrusted/pdf-bytes.ts). Failures name the member, so the 422's
// errors[] points at it.
import { checkPdfBytes } from '../untrusted/pdf-bytes.js';
import { decodeBase64 } from './base64.js';
import { TaskFailure } from './json-task.js';
import type { Base64Value } from './decoded-member.js';

/** No cap of its own by default: the request body is already capped (the tier-payload limit). */
const NO_CAP = 2 ** 31;

export function decodePdfField(value: Base64Value, field: string, maxBytes: number = NO_CAP): Uint8Array {
  const decoded = decodeBase64(value, maxBytes);
  if (!(decoded instanceof Uint8Array)) {
    throw TaskFailure.field(field, decoded.problem === 'too-large' ? 'TOO_LARGE' : 'INVALID_FORMAT', decoded.message);
  }
  const refusal = checkPdfBytes(decoded, field, maxBytes);
  if (refusal !== undefined) {
    if (refusal.kind === 'too-large') throw TaskFailure.field(field, 'TOO_LARGE', refusal.message);
    throw new TaskFailure('invalid-pdf-data', refusal.message, [{ field, code: 'INVALID_PDF', message: refusal.message }]);
  }
  return decoded;
}

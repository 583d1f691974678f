// A base64 member of a JSON request (a font, an image, a PDF) that the
// request reader decoded straight from the raw body (binary-fields.ts),
// handed to the task as its bytes rather than as a string of its text.
//
// Why no string: a 2.3 MB image field made one 2.3 MB string a request
// (Node makes an external string above ~1 MB, V8 a large heap object if
// built otherwise), fresh memory each time: page faults to write it, a
// free after it, and, for the external kind, a mark-compact of the
// worker's whole 36 MB heap every ~14 requests ("external memory
// pressure" in --trace-gc). Made and dropped in a worker with the
// engine loaded, such a string cost 2.4-2.8 ms of CPU against 0.6 ms for
// decoding the same bytes from 64 KiB pieces (strcost, 8 alternating
// rounds; README "Image compress: where the CPU goes").
//
// A task opts in by declaring the member with base64Member() in its
// schema: the member's type is then `string | DecodedBase64`, so the
// compiler sends every use through decodeBase64 (base64.ts), which reads
// either. A body the reader cannot take exactly (escapes, a short value, a
// value that is not base64 as it stands) is parsed whole as before, and
// the member is the string JSON.parse made.
import * as v from 'valibot';

export class DecodedBase64 {
  constructor(
    /** The decoded bytes: a view of the request body, valid while the task runs. */
    readonly bytes: Uint8Array,
    /** Characters of the base64 text (without a data: URI's prefix), for the size check decodeBase64 makes on the text. */
    readonly textLength: number,
  ) {}
}

/** A base64 member as a task receives it. */
export type Base64Value = string | DecodedBase64;

const DECODED = v.instance(DecodedBase64);

/**
 * The schema of a base64 member: `text`, the member's string schema, for
 * anything that is not already decoded (its issues are what they always
 * were), or a DecodedBase64. The reader makes one only from a non-empty
 * string of canonical base64, so `text` must ask no more of a string than
 * that (no length cap, no pattern: those would be skipped for decoded
 * members); every task's is `v.string()`, with or without `v.minLength(1)`.
 */
export function base64Member<const Text extends v.GenericSchema<unknown, string>>(text: Text) {
  return v.lazy((input) => (input instanceof DecodedBase64 ? DECODED : text));
}

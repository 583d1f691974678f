// Piscina transfers (rather than copies) only a *top-level* movable return
// value (piscina dist/worker.js: `if (isMovable(result))`), so a successful
// Outcome is itself marked movable: it names its result buffer as the
// transferable and itself as the value. Symbol-keyed properties do not
// survive structured cloning, so the main thread receives a plain Outcome,
// and a caller without a pool (tests, baselines) sees one too.
import { Piscina } from 'piscina';
import type { Outcome, TaskValue } from '../protocol.js';

export function movable<Value extends TaskValue>(outcome: Outcome<Value>): Outcome<Value> {
  if (!outcome.ok) return outcome;
  Object.defineProperties(outcome, {
    [Piscina.transferableSymbol]: { value: outcome.value.body, enumerable: false },
    [Piscina.valueSymbol]: { value: outcome, enumerable: false },
  });
  return Piscina.move(outcome as never) as unknown as Outcome<Value>;
}

/** Copies a view into its own exact-size ArrayBuffer (pooled Buffers cannot be transferred). */
export function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) {
    return bytes.buffer;
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

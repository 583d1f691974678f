// Piscina transfers (rather than copies) only a *top-level* movable return
// value (piscina dist/worker.js: `if (isMovable(result))`), so an Outcome
// carrying a result buffer is wrapped in an object that names the buffer as
// its transferable and the Outcome as its value.
import { Piscina } from 'piscina';
import type { Outcome } from '../protocol.js';

export function movable(outcome: Outcome): Outcome {
  if (!outcome.ok) return outcome;
  const wrapper = {
    [Piscina.transferableSymbol]: outcome.value.body,
    [Piscina.valueSymbol]: outcome,
  };
  // The wrapper is unwrapped by Piscina before it crosses the thread boundary,
  // so the caller still receives a plain Outcome.
  return Piscina.move(wrapper as never) as unknown as Outcome;
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

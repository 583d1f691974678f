// Puts the decoded-bytes budget (untrusted/decoded-bytes.ts) in front of
// both PDF readers' stream decoders. pdf.js (src/core/decode_stream.js) and
// pdf-lib (src/core/streams/DecodeStream.ts, a TypeScript port of it) decode
// every filter (Flate, LZW, RunLength, ASCII85, ASCIIHex, predictors) with
// one base class, DecodeStream, whose decoders grow their output through
// `ensureBuffer(requested)`, and pdf.js hands every image's expected size to
// `getImageData(length)` before decoding it (JPEG, JPEG 2000, JBIG2, CCITT).
// Patching those two methods on the base class bounds every decoder at
// once, in both libraries, before it allocates.
//
// Neither library exports the class: pdf.js's sits inside the bundled
// worker module (pdf.worker.mjs exports only WorkerMessageHandler), pdf-lib's
// behind its package exports. Both constructors assign
// `this.minBufferLength = 512`, so an accessor of that name on
// Object.prototype sees every DecodeStream as it is built: the setter turns
// the property into an ordinary own one (what the assignment would have made)
// and patches the instance's base class the first time it meets it. Nothing
// else in a worker uses that name (checked in both bundles).
//
// pdf.js inflates Flate images with the platform's DecompressionStream
// (FlateStream.asyncGetBytes); the global is replaced in worker threads by one
// that charges each chunk as it comes out, so a bomb stops at the cap instead
// of being collected whole. When it errors, pdf.js falls back to its own
// FlateStream, which the budget already refuses.
import { currentDecodedBudget, type DecodedBudget } from '../untrusted/decoded-bytes.js';

/** What a stream carries: the budget current when it was made, and the decoded bytes already charged to it. */
const BUDGET = Symbol('decoded-bytes budget');
const CHARGED = Symbol('decoded bytes charged');

interface DecodeStreamLike {
  buffer: Uint8Array;
  ensureBuffer(requested: number): unknown;
  getImageData?(length: number, options?: unknown): Promise<unknown>;
  [BUDGET]?: DecodedBudget;
  [CHARGED]?: number;
}

const patched = new WeakSet<object>();
/** Classes whose instances were seen already (their base is patched, or they have none). */
const seen = new WeakSet<object>();

/** Charges what this stream will hold beyond what it was charged for. */
function chargeUpTo(stream: DecodeStreamLike, requested: number): void {
  const charged = stream[CHARGED] ?? 0;
  if (!(requested > charged)) return;
  (stream[BUDGET] ?? currentDecodedBudget()).charge(requested - charged);
  stream[CHARGED] = requested;
}

/** The top-most prototype of `instance` that defines ensureBuffer: DecodeStream's (image decoders override it with a no-op). */
function decodeStreamPrototype(instance: object): DecodeStreamLike | undefined {
  let found: DecodeStreamLike | undefined;
  for (let proto = Object.getPrototypeOf(instance) as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    if (Object.hasOwn(proto, 'ensureBuffer')) found = proto as DecodeStreamLike;
  }
  return found;
}

function patch(base: DecodeStreamLike): void {
  patched.add(base);
  const ensureBuffer = base.ensureBuffer;
  // Called for every byte some decoders write (FlateStream's literals): the
  // budget is consulted only when the buffer must grow, for the bytes it must
  // then hold (the buffer doubles, so it holds at most twice what was charged).
  base.ensureBuffer = function (this: DecodeStreamLike, requested: number) {
    const buffer = this.buffer;
    if (requested <= buffer.byteLength) return buffer;
    chargeUpTo(this, requested);
    return ensureBuffer.call(this, requested);
  };
  // pdf.js only: an image's decoded length (width x height x components, from its dictionary), charged before its decoder runs.
  const getImageData = Object.hasOwn(base, 'getImageData') ? base.getImageData : undefined;
  if (getImageData !== undefined) {
    base.getImageData = async function (this: DecodeStreamLike, length: number, options?: unknown) {
      if (typeof length === 'number') chargeUpTo(this, length);
      return getImageData.call(this, length, options);
    };
  }
}

Object.defineProperty(Object.prototype, 'minBufferLength', {
  configurable: true,
  enumerable: false,
  get(): undefined {
    return undefined;
  },
  set(this: DecodeStreamLike, value: unknown) {
    Object.defineProperty(this, 'minBufferLength', { value, writable: true, enumerable: true, configurable: true });
    this[BUDGET] = currentDecodedBudget();
    const own = Object.getPrototypeOf(this) as object | null;
    if (own === null || seen.has(own)) return;
    seen.add(own);
    const base = decodeStreamPrototype(this);
    if (base !== undefined && !patched.has(base)) patch(base);
  },
});

const NativeDecompressionStream = globalThis.DecompressionStream;
type Format = ConstructorParameters<typeof DecompressionStream>[0];

/** DecompressionStream whose output is charged chunk by chunk; past the cap the readable side errors. */
class BudgetedDecompressionStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: DecompressionStream['writable'];

  constructor(format: Format) {
    const inner = new NativeDecompressionStream(format);
    const budget = currentDecodedBudget();
    this.writable = inner.writable;
    this.readable = inner.readable.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          budget.charge(chunk.byteLength);
          controller.enqueue(chunk);
        },
      }),
    );
  }
}

globalThis.DecompressionStream = BudgetedDecompressionStream as unknown as typeof DecompressionStream;

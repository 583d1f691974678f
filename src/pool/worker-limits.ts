// The resource limits each worker thread starts with (Worker resourceLimits,
// through Piscina): the old generation capped at PLATEN_WORKER_MEMORY_MB, and
// a young generation twice V8's default.
//
// V8 gives a heap a young generation of 48 MB (semi-spaces of 16 MB) unless
// told otherwise, and a render allocates much of it: ~5 MB for the bench's
// 10-page invoice, of which the document being built (pdf-lib's objects, the
// content streams, a tagged file's structure) is still alive at every
// scavenge, so a scavenge every three renders copied that live part each
// time. At 96 MB (semi-spaces of 32 MB) it is copied half as often. Measured
// on a bare Piscina pool of 2 threads rendering the 10-page invoice, 4 runs
// alternated (load 2-3): untagged 191 → 250 renders/s (+31%), tagged
// "structure" 143 → 189 (+32%); 192 MB measured the same as 96 (201 and 248),
// so the smaller is kept. A letter (~0.8 ms a render) did not move.
// The cost is memory: a worker under load may hold up to 96 MB of young
// generation on top of its old-generation cap.
import type { ResourceLimits } from 'node:worker_threads';

/** Young generation of each worker thread, in MB (three semi-spaces' worth, as V8 counts it). */
export const WORKER_YOUNG_GENERATION_MB = 96;

export function workerResourceLimits(memoryMb: number): ResourceLimits {
  return { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
}

// How far a worker's V8 heap may grow between full collections. V8 scales
// its heap growing factor with the heap's maximum size: 4 for a heap capped
// at 2 GiB or more (on 64-bit without pointer compression, Node's build),
// down to ~1.4 for the 512 MiB cap every worker gets (PLATEN_WORKER_MEMORY_MB,
// Worker resourceLimits). A worker's heap holds ~35 MB of loaded modules and
// fonts, and a large request (a 2.3 MB photo, a 1 MB font, ten PDFs) churns
// megabytes of strings and buffers, so at 1.4 a full mark-compact (30-75 ms
// on this machine) came every few requests: measured on image compress in a
// bare Piscina pool, 82-88 ms of process CPU a request with the 512 MiB cap
// against 68-77 ms uncapped, and 58-62 ms with the factor fixed at 4
// (--heap-growing-percent=300; 34 against 14 mark-compacts in a run). The
// cap itself is unchanged: V8 never lets the growing limit pass the heap's
// maximum, so a task that needs more still runs out of memory there.
//
// V8 flags are process-wide and a Worker cannot set its own, so the flag is
// set here, before the pool's first thread starts; it applies to the main
// thread too (whose uncapped heap grows by up to 4 anyway). A flag given on
// the command line wins.
import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';
/** Factor 1 + 300/100 = 4: what V8 itself allows a heap of 2 GiB or more. */
const GROWING_PERCENT = 300;

export function widenHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => arg.startsWith(FLAG) || arg.startsWith('--heap_growing_percent'))) return false;
  setFlagsFromString(`${FLAG}=${GROWING_PERCENT}`);
  return true;
}

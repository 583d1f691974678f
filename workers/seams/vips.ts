// sharp (libvips), configured once per process before any image is touched.
// Every worker module that decodes images imports sharp from here, so the
// settings hold whichever task a thread happens to load or run first.
import sharp from 'sharp';

// libvips threads: one. Each Piscina worker is one thread running one task
// at a time, and the pool already has a thread per core (PLATEN_WORKERS
// defaults to the core count). With libvips threads per core on top, N
// workers would run N x N threads fighting the pool for the same cores. A
// lone request loses next to nothing: a 3000 x 2000 JPEG to 1200 wide at
// quality 80 took 47.7 ms with one libvips thread and 44.6 ms with two
// (sharp 0.35.5, 2 cores), because JPEG decoding and encoding are sequential
// in libjpeg and only the resampling runs in parallel. sharp's own default
// happens to be 1 on this build (glibc without jemalloc), but that default
// follows the platform's allocator, so it is set here, not assumed.
sharp.concurrency(1);

// The operation cache reuses results of identical operations; requests
// almost never repeat an image, so a small cache bounds native memory and
// loses nothing. Process-wide, like the thread count: every worker sets the
// same values.
sharp.cache({ memory: 16, files: 0, items: 32 });

export default sharp;
export type { Metadata, OutputInfo, Sharp, SharpOptions } from 'sharp';

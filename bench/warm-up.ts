// The steady-state warm-up of a render server before its main thread's CPU
// is read (main-thread.ts, and pairs.ts around the letter's rounds in
// `make bench`): letters until `requests` were answered, not a fixed few
// seconds. V8 optimises the server's request path only after thousands of
// requests, and until then a request's main-thread CPU is up to twice its
// steady figure (interleaved rounds of one build after a 3 s warm-up, ~1,100
// letters a round, load 17-19: 337, 293, 256, 198, 160, 195, 170, 169, 195,
// 174 µs).
import type { ChildServer } from './child.js';
import { BENCH_KEY, LETTER_JSON } from './documents.js';
import { generateLoad } from './loadgen.js';
import { RENDER_PATH, saturation } from './scenarios/render.js';
import type { Settings } from './settings.js';

/** A warm-up stops here whatever it reached: a bench stays near a minute on a busy machine. */
export const WARMUP_MAX_SECONDS = 40;

/** Letters at saturation until `settings.steadyWarmupRequests` were answered (or WARMUP_MAX_SECONDS passed); returns how many. */
export async function warmUpLetters(server: Pick<ChildServer, 'base'>, settings: Settings): Promise<number> {
  let answered = 0;
  const started = performance.now();
  do {
    const result = await generateLoad({
      url: server.base + RENDER_PATH,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
      body: LETTER_JSON,
      connections: saturation(settings),
      seconds: settings.warmupSeconds,
    });
    answered += result.total;
  } while (answered < settings.steadyWarmupRequests && performance.now() - started < WARMUP_MAX_SECONDS * 1000);
  return answered;
}

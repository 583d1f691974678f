// Baseline (b): the render task called directly on this thread, one after
// another. What one core does with no pool and no HTTP; the server's ratio
// to it shows how much the worker threads buy.
import { render } from '../../workers/render/task.js';
import { bodyOf } from '../documents.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import type { Throughput } from '../stats.js';

export function inProcess(settings: Settings, document: Buffer): Promise<Throughput> {
  return warmThenLoop(settings.warmupSeconds, settings.seconds, 1, async () => {
    const outcome = await render({ body: bodyOf(document), length: document.byteLength, options: {} });
    if (!outcome.ok) throw new Error(`render failed in process: ${outcome.detail}`);
  });
}

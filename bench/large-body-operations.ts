// The operations whose requests carry a large file (a photo, a font, PDFs),
// each as the server's route and the same worker task with the same options
// the route passes it (read from the server's own config defaults, so that a
// changed default changes both sides), and the same request bytes for both:
// the bare pool is handed the very JSON body the server receives, so both
// sides decode the same base64 in the worker. Used by large-bodies.ts.
import { loadConfig } from '../src/config.js';
import type { TaskName } from '../workers/protocol.js';
import { FILLED_VALUES, formPdf } from '../test/helpers/form-pdf.js';
import { imageHeavyPdf } from '../test/fixtures/optimize-documents.js';
import { fontRequests, rotation, SUBSET_PATH } from './font-requests.js';
import { IMAGE_PATH, requestBody as imageBody } from './scenarios/image-compress.js';
import { renderPages } from './scenarios/render.js';
import { signingCertificate } from './signer.js';

export interface LargeBodyOperation {
  readonly name: string;
  readonly path: string;
  readonly task: TaskName;
  readonly options: Record<string, unknown>;
  /** Bytes of one request body (the first, where they vary). */
  readonly bodyBytes: number;
  /** The next request's body; each side gets its own sequence, so both ask for the same bodies in the same order. */
  bodies(): () => Buffer;
}

/** Groups a run can name instead of single operations (each group runs in about a minute). */
export const GROUPS: Readonly<Record<string, readonly string[]>> = {
  accel: ['image-compress', 'font-subset', 'chunk'],
  docops: ['merge', 'split', 'fill-form', 'extract-text'],
  docops2: ['redact', 'optimize', 'sign'],
  analysis: ['check-accessibility', 'compliance-check', 'forensic-analyze', 'ai-certify'],
  // The 50-page letter of make bench's linearize pair (pairs.ts), plain and optimize_for_web.
  linearize: ['linearize', 'linearize-web'],
};

export const ALL = Object.values(GROUPS).flat();

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

function fixed(name: string, path: string, task: TaskName, options: Record<string, unknown>, body: Buffer): LargeBodyOperation {
  return { name, path, task, options, bodyBytes: body.byteLength, bodies: () => () => body };
}

/** The chosen operations, their inputs built once (the PDFs rendered by the running server). */
export async function largeBodyOperations(base: string, chosen: readonly string[], attestationDir: string): Promise<LargeBodyOperation[]> {
  // The options exactly as src/accel/routes.ts and src/render/capability-routes.ts build them from the defaults.
  const config = loadConfig({});
  const read = { maxPages: config.maxPages, workBudget: config.readWorkBudget };
  const docops = { maxPages: config.maxPages };
  const wanted = new Set(chosen);
  const operations: LargeBodyOperation[] = [];
  const tenPages = wanted.size > 0 ? (await renderPages(base, 10)).toString('base64') : '';
  for (const name of chosen) {
    switch (name) {
      case 'image-compress':
        operations.push(
          fixed(name, IMAGE_PATH, 'image-compress', { maxImageBytes: config.maxImageBytes, maxImagePixels: config.maxImagePixels, timeoutMs: config.timeoutMs }, await imageBody()),
        );
        break;
      case 'font-subset': {
        // A new set of code points each request (the task caches identical ones), the same sequence on both sides.
        const requests = fontRequests();
        const first = (requests[0] as { body(): Buffer }).body();
        operations.push({
          name,
          path: SUBSET_PATH,
          task: 'font-subset',
          options: { maxFontBytes: config.maxFontBytes },
          bodyBytes: first.byteLength,
          bodies: () => {
            const next = rotation(requests);
            return () => next().body();
          },
        });
        break;
      }
      case 'linearize':
      case 'linearize-web': {
        const pdf = (await renderPages(base, 50)).toString('base64');
        operations.push(fixed(name, '/v1/linearize', 'linearize', {}, json({ pdf_data: pdf, ...(name === 'linearize-web' ? { options: { optimize_for_web: true } } : {}) })));
        break;
      }
      case 'chunk':
        operations.push(fixed(name, '/v1/rag/chunk', 'rag-chunk', read, json({ pdf_data: tenPages })));
        break;
      case 'merge':
        operations.push(fixed(name, '/api/v1/merge', 'merge', docops, json({ documents: Array.from({ length: 10 }, () => ({ pdf: tenPages })) })));
        break;
      case 'extract-text':
        operations.push(fixed(name, '/api/v1/extract-text', 'capability-extract-text', read, json({ pdf: tenPages })));
        break;
      case 'split':
        operations.push(fixed(name, '/api/v1/split', 'split', docops, json({ pdf: tenPages, pages: '2-4,7' })));
        break;
      case 'fill-form':
        operations.push(fixed(name, '/api/v1/fill-form', 'fill-form', docops, json({ pdf: Buffer.from(await formPdf()).toString('base64'), fields: FILLED_VALUES })));
        break;
      case 'redact':
        operations.push(fixed(name, '/api/v1/redact', 'redact', docops, json({ pdf: tenPages, text: ['Dear'], patterns: ['\\d+'] })));
        break;
      case 'optimize': {
        const pdf = Buffer.from(await imageHeavyPdf({ pages: 4, photoWidth: 1800, placedWidth: 200 }));
        operations.push(fixed(name, '/api/v1/optimize', 'optimize', docops, json({ pdf: pdf.toString('base64'), profile: 'ebook' })));
        break;
      }
      case 'sign':
        operations.push(
          fixed(name, '/api/v1/sign', 'sign', { p12File: config.signingP12File, p12Password: config.signingP12Password }, json({ pdf: tenPages, reason: 'Bench', certificate: await signingCertificate() })),
        );
        break;
      case 'check-accessibility':
      case 'compliance-check':
        operations.push(fixed(name, `/api/v1/${name}`, name, {}, json({ pdf: tenPages })));
        break;
      case 'forensic-analyze':
        operations.push(fixed(name, '/api/v1/forensic-analyze', 'forensic-analyze', read, json({ pdf: tenPages })));
        break;
      case 'ai-certify':
        // The bare pool's threads keep their attestation key in a directory of their own; the first request pays for it, as on the server.
        operations.push(fixed(name, '/api/v1/ai-certify', 'ai-certify', { ...read, attestationKeyFile: config.attestationKeyFile, dataDir: attestationDir }, json({ pdf: tenPages })));
        break;
      default:
        throw new Error(`unknown operation ${name}; one of ${ALL.join(', ')} or a group: ${Object.keys(GROUPS).join(', ')}`);
    }
  }
  return operations;
}

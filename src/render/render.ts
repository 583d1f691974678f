// POST /api/v1/render: a RenderRequest in, a PDF out. Validation and layout
// happen in a worker; this route only dispatches.
import type { WorkerPool } from '../pool/pool.js';
import { dispatch } from '../http/dispatch.js';
import { HttpProblem } from '../http/problem.js';
import type { Route, RouteContext } from '../http/route.js';
import type { FontStore } from '../store/fonts.js';
import { DependencyUnavailable } from '../unavailable.js';

/** Every render answer's own header: one frozen list, not an array per request. */
const RENDER_HEADERS: ReadonlyArray<readonly [string, string]> = Object.freeze([Object.freeze(['Content-Disposition', 'inline; filename="document.pdf"'] as const)]);

/** `fonts`: the clients' registered fonts, which set_font may name; the worker gets the caller's family → file list. */
export function renderRoute(pool: WorkerPool, maxPages: number, fonts?: FontStore): Route {
  const render = async (context: RouteContext, files: Readonly<Record<string, string>> | undefined) => {
    const value = await dispatch(pool, context, 'render', files === undefined ? { maxPages } : { maxPages, fonts: files });
    return {
      status: 200,
      mediaType: value.mediaType,
      body: value.body,
      headers: RENDER_HEADERS,
    };
  };
  return {
    method: 'POST',
    path: '/api/v1/render',
    auth: 'core',
    body: 'json',
    operation: 'render',
    async handle(context) {
      if (fonts === undefined || context.principal === undefined) return render(context, undefined);
      let files;
      try {
        files = await fonts.files(context.principal.label);
      } catch (error) {
        if (!(error instanceof DependencyUnavailable)) throw error;
        return renderWithoutRegistry(() => render(context, undefined), error);
      }
      return render(context, files);
    },
  };
}

/**
 * The registered fonts cannot be read (Redis unreachable, nothing read
 * before): most documents use none, so the render goes ahead without them,
 * and one that names a family it may have registered gets the outage's 503,
 * not a 422 saying the font does not exist.
 */
async function renderWithoutRegistry<T>(render: () => Promise<T>, outage: DependencyUnavailable): Promise<T> {
  try {
    return await render();
  } catch (error) {
    if (error instanceof HttpProblem && error.init.errors?.some((entry) => entry.code === 'UNKNOWN_FONT') === true) throw outage;
    throw error;
  }
}

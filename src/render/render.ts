// POST /api/v1/render: a RenderRequest in, a PDF out. Validation and layout
// happen in a worker; this route only dispatches.
import type { WorkerPool } from '../pool/pool.js';
import { dispatch } from '../http/dispatch.js';
import type { Route } from '../http/route.js';
import type { FontStore } from '../store/fonts.js';

/** `fonts`: the clients' registered fonts, which set_font may name; the worker gets the caller's family → file list. */
export function renderRoute(pool: WorkerPool, maxPages: number, fonts?: FontStore): Route {
  return {
    method: 'POST',
    path: '/api/v1/render',
    auth: 'core',
    body: 'json',
    operation: 'render',
    async handle(context) {
      const files = context.principal === undefined ? undefined : await fonts?.files(context.principal.label);
      const value = await dispatch(pool, context, 'render', files === undefined ? { maxPages } : { maxPages, fonts: files });
      return {
        status: 200,
        mediaType: value.mediaType,
        body: value.body,
        headers: [['Content-Disposition', 'inline; filename="document.pdf"']],
      };
    },
  };
}

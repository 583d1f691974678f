// POST /api/v1/render: a RenderRequest in, a PDF out. Validation and layout
// happen in a worker; this route only dispatches.
import type { WorkerPool } from '../pool/pool.js';
import { dispatch } from '../http/dispatch.js';
import type { Route } from '../http/route.js';

export function renderRoute(pool: WorkerPool, maxPages: number): Route {
  return {
    method: 'POST',
    path: '/api/v1/render',
    auth: 'core',
    body: 'json',
    operation: 'render',
    async handle(context) {
      const value = await dispatch(pool, context, 'render', { maxPages });
      return {
        status: 200,
        mediaType: value.mediaType,
        body: value.body,
        headers: [['Content-Disposition', 'inline; filename="document.pdf"']],
      };
    },
  };
}

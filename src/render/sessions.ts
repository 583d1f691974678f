// Session routes (render spec section 4, only when PLATEN_SESSIONS_ENABLED):
// a document stays open on the server while operations are added one call
// at a time; one final render replays them all and ends the session.
// Each added operation is validated in a worker exactly as inside a
// RenderRequest, and an invalid one is not counted. Sessions belong to their
// client: another key gets 404. A render claims the session in the store
// first (src/store/sessions.ts): of concurrent renders one runs and the rest
// get 409, and a render that fails leaves the session active, to be retried.
import { randomBytes } from 'node:crypto';
import type { SessionOperationOptions } from '../../workers/protocol.js';
import type { Principal } from '../auth/key-store.js';
import { dispatch } from '../http/dispatch.js';
import { renderEnvelope } from '../http/envelope.js';
import { HttpProblem } from '../http/problem.js';
import type { Method, Route, RouteContext, RouteResult } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';
import type { FontStore } from '../store/fonts.js';
import type { SessionRecord, SessionStatus, SessionStore } from '../store/sessions.js';

export interface SessionRoutesDeps {
  readonly pool: WorkerPool;
  readonly store: SessionStore;
  readonly apiVersion: string;
  readonly maxSessions: number;
  readonly maxOperations: number;
  /** The replayed request must fit a request body. */
  readonly maxBytes: number;
  readonly maxPages: number;
  readonly idleSeconds: number;
  /** The wall clock sessions are stamped with (ms since the epoch), the one the store measures idle time on. */
  readonly now: () => number;
  /** The clients' registered fonts, which the session's set_font operations may name. */
  readonly fonts?: FontStore;
}

const SESSION_ID = /^sess_[a-f0-9]{24}$/;
const DOCUMENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Creation bodies are small control objects, parsed here (DESIGN.md allows it); anything larger is not one. */
const MAX_CREATE_BYTES = 16 * 1024;

/** Which operation each add route stands for. */
const ADD_ROUTES: ReadonlyArray<readonly [Method, string, string]> = [
  ['POST', 'pages', 'add_page'],
  ['POST', 'text', 'add_text'],
  ['POST', 'images', 'add_image'],
  ['POST', 'tables', 'add_table'],
  ['POST', 'html', 'add_html'],
  // The spec's contract says PUT and its route listing POST: both are served.
  ['PUT', 'font', 'set_font'],
  ['POST', 'font', 'set_font'],
];

export function sessionRoutes(deps: SessionRoutesDeps): Route[] {
  const { store } = deps;

  const answer = (context: RouteContext, status: number, session: SessionRecord): RouteResult => ({
    status,
    mediaType: 'application/json',
    body: renderEnvelope(
      JSON.stringify({
        session_id: session.id,
        // The spec's states are active, rendered and expired: a session whose render runs is active until it succeeds.
        status: session.status === 'rendering' ? 'active' : session.status,
        document_id: session.documentId,
        operation_count: session.operationCount,
        created_at: session.createdAt,
        last_activity_at: session.lastActivityAt,
        page_size: session.pageSize,
        orientation: session.orientation,
        // Small control objects the creation gave (at most MAX_CREATE_BYTES), echoed as given.
        ...(session.metadata === undefined ? {} : { metadata: JSON.parse(session.metadata) as unknown }),
        ...(session.output === undefined ? {} : { output: JSON.parse(session.output) as unknown }),
      }),
      { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: deps.apiVersion },
    ),
  });

  const own = async (context: RouteContext): Promise<SessionRecord> => {
    const id = context.request.params[0] ?? '';
    const session = SESSION_ID.test(id) ? await store.get(id) : undefined;
    if (session === undefined || session.owner !== context.principal?.label) {
      throw new HttpProblem('not-found', { detail: 'There is no such session for this key (it may have been removed after it ended).' });
    }
    return session;
  };

  // A render's claim outlives the longest the render may take (PLATEN_TIMEOUT_MS, queue wait included) by a margin for the store's round trips.
  const renderLeaseMs = deps.pool.timeoutMs + 30_000;
  // A creation's reservation, likewise: its one worker task is bounded by the same timeout.
  const createLeaseMs = renderLeaseMs;

  const active = (session: SessionRecord): SessionRecord => {
    if (session.status === 'active') return session;
    throw notActive(session.status);
  };
  const notActive = (status: SessionStatus) =>
    new HttpProblem('session-not-active', {
      detail:
        status === 'rendering'
          ? 'The session is being rendered by another request; it takes no operations or other render meanwhile. If that render fails, the session is active again.'
          : `The session is ${status}; it takes no more operations. Create a new session.`,
    });
  const full = () =>
    new HttpProblem('validation-failed', {
      detail: `The session holds its maximum of ${deps.maxOperations} operations (PLATEN_SESSION_MAX_OPERATIONS); render it, or split the document.`,
      errors: [{ field: '(session)', code: 'TOO_LARGE', message: `at most ${deps.maxOperations} operations` }],
    });

  /** Checks the creation's settings in a worker and stores the session under the reserved id. */
  const createSession = async (context: RouteContext, id: string, owner: string): Promise<SessionRecord> => {
    const options = parseCreate(context);
    // Page size, orientation, metadata and output are checked by the render schema itself, in a worker
    // (a tagged session's title and language too), so a session that could never render is refused now.
    const probe = Buffer.from(
      JSON.stringify({ page_size: options.pageSize, orientation: options.orientation, metadata: options.metadata, output: options.output, operations: [{ type: 'add_page' }] }),
    );
    const buffer = new ArrayBuffer(probe.byteLength);
    new Uint8Array(buffer).set(probe);
    await dispatch(deps.pool, context, 'validate', {}, { buffer, length: probe.byteLength });
    const now = new Date(deps.now()).toISOString();
    const session: SessionRecord = {
      id,
      owner,
      status: 'active',
      documentId: options.documentId ?? `doc_${randomBytes(12).toString('hex')}`,
      pageSize: options.pageSize,
      orientation: options.orientation,
      createdAt: now,
      lastActivityAt: now,
      operationCount: 0,
      bytes: 0,
      ...(options.metadata === undefined ? {} : { metadata: JSON.stringify(options.metadata) }),
      ...(options.output === undefined ? {} : { output: JSON.stringify(options.output) }),
    };
    await store.create(session);
    return session;
  };

  const create: Route = {
    method: 'POST',
    path: '/api/v1/sessions',
    auth: 'core',
    body: 'optional-json',
    operation: 'sessions',
    async handle(context) {
      const principal = context.principal as Principal;
      const limit = principal.sessions ?? deps.maxSessions;
      const id = `sess_${randomBytes(12).toString('hex')}`;
      // The place is taken before the first await that follows (the worker's check below): counted then
      // created, concurrent creations all passed the count (store/sessions.ts).
      const reserved = await store.reserve(principal.label, id, limit, createLeaseMs);
      if (reserved.kind === 'full') {
        throw new HttpProblem('client-rate-exceeded', {
          detail: `This client has ${reserved.active} active session${reserved.active === 1 ? '' : 's'} (those being created included); its maximum is ${limit}. Render or delete one first.`,
          retryAfter: deps.idleSeconds,
        });
      }
      try {
        const session = await createSession(context, id, principal.label);
        return { ...answer(context, 201, session), headers: [['Location', `/api/v1/sessions/${session.id}`]] };
      } catch (error) {
        // Refused (400, 413, 422), the pool full or the client gone: the place is free again. Should the
        // store be unreachable now, the reservation lapses after its lease instead.
        await store.release(principal.label, id).catch(() => undefined);
        throw error;
      }
    },
  };

  const add = ([method, segment, type]: readonly [Method, string, string]): Route => ({
    method,
    path: `/api/v1/sessions/:sessionId/${segment}`,
    auth: 'core',
    body: type === 'add_page' ? 'optional-json' : 'json',
    async handle(context) {
      const session = active(await own(context));
      if (session.operationCount >= deps.maxOperations) throw full();
      // A PDF/UA session checks what a PDF/UA render requires of an operation (an image's alt) as it is added, not at the render.
      const options: SessionOperationOptions = { type, pageSize: session.pageSize, orientation: session.orientation, pdfUa: claimsPdfUa(session) };
      const value = await dispatch(deps.pool, context, 'session-operation', options);
      // The session may have ended, or filled up, while the worker validated: the store checks again as it appends.
      const appended = await store.append(session.id, Buffer.from(value.body).toString('utf8'), { maxOperations: deps.maxOperations, maxBytes: deps.maxBytes });
      switch (appended.kind) {
        case 'ok':
          return answer(context, 200, appended.session);
        case 'gone':
          throw new HttpProblem('not-found', { detail: 'The session was deleted while the operation was validated.' });
        case 'not-active':
          throw notActive(appended.status);
        case 'full':
          throw full();
        case 'too-large':
          throw new HttpProblem('payload-too-large', {
            detail: `The session's operations would exceed ${deps.maxBytes} bytes (PLATEN_MAX_BODY_BYTES), the most one render can take; render it now.`,
          });
      }
    },
  });

  return [
    create,
    { method: 'GET', path: '/api/v1/sessions/:sessionId', auth: 'core', body: 'none', handle: async (context) => answer(context, 200, await own(context)) },
    {
      method: 'DELETE',
      path: '/api/v1/sessions/:sessionId',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const session = await own(context);
        await store.remove(session.id);
        return {
          status: 200,
          mediaType: 'application/json',
          body: renderEnvelope(JSON.stringify({ session_id: session.id, deleted: true }), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: deps.apiVersion }),
        };
      },
    },
    ...ADD_ROUTES.map(add),
    {
      method: 'POST',
      path: '/api/v1/sessions/:sessionId/render',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const claim = await store.beginRender((await own(context)).id, renderLeaseMs);
        if (claim.kind === 'gone') throw new HttpProblem('not-found', { detail: 'The session was deleted just now.' });
        if (claim.kind === 'not-active') throw notActive(claim.status);
        const { session, token } = claim;
        let value;
        try {
          const operations = (await store.operations(session.id)) ?? [];
          // The stored operations are already-validated JSON: spliced, not parsed again.
          const settings = `${session.metadata === undefined ? '' : `,"metadata":${session.metadata}`}${session.output === undefined ? '' : `,"output":${session.output}`}`;
          const request = `{"page_size":${JSON.stringify(session.pageSize)},"orientation":${JSON.stringify(session.orientation)}${settings},"operations":[${operations.length > 0 ? operations.join(',') : '{"type":"add_page"}'}]}`;
          const bytes = Buffer.from(request, 'utf8');
          const buffer = new ArrayBuffer(bytes.byteLength);
          new Uint8Array(buffer).set(bytes);
          const fonts = await deps.fonts?.files(context.principal?.label as string);
          value = await dispatch(deps.pool, context, 'render', fonts === undefined ? { maxPages: deps.maxPages } : { maxPages: deps.maxPages, fonts }, { buffer, length: bytes.byteLength });
        } catch (error) {
          // No PDF was made (a worker error, the timeout, a full pool, the client gone): the session is
          // active again with its operations, so the render can be retried. Should the store be
          // unreachable now, the claim lapses after its lease instead.
          await store.endRender(session.id, token, 'active').catch(() => undefined);
          throw error;
        }
        // A 200 means the session is rendered: if that cannot be recorded (the store unreachable), the
        // client gets the 503 instead of the PDF and the claim lapses, so a later render can succeed.
        await store.endRender(session.id, token, 'rendered');
        return {
          status: 200,
          mediaType: value.mediaType,
          body: value.body,
          headers: [['Content-Disposition', `inline; filename="${session.documentId}.pdf"`]],
        };
      },
    },
  ];
}

interface CreateOptions {
  readonly pageSize: string;
  readonly orientation: string;
  readonly documentId: string | undefined;
  /** RenderRequest's metadata and output, checked by the worker's render schema. */
  readonly metadata?: object;
  readonly output?: object;
}

/** Whether the session renders a PDF/UA file, as the render schema resolves it: `tagged` true, or pdf_a at level a ("1a", "2a", "3a": PDF/A level A is tagged, and so PDF/UA here). */
function claimsPdfUa(session: SessionRecord): boolean {
  if (session.output === undefined) return false;
  const output = JSON.parse(session.output) as { tagged?: unknown; pdf_a?: unknown };
  return output.tagged === true || (output.tagged === undefined && typeof output.pdf_a === 'string' && output.pdf_a.endsWith('a'));
}

/**
 * Read as the workers read every other JSON body (workers/task/json.ts): a
 * leading byte-order mark is dropped (Buffer's decoding kept it, and a
 * session creation with one was 400 where every other route took it), and
 * bytes that are not UTF-8 are refused rather than stored as U+FFFD.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** SessionCreateRequest: page_size (default A4), orientation (default portrait), document_id, metadata, output; all optional. */
function parseCreate(context: RouteContext): CreateOptions {
  const { body } = context;
  if (body.length === 0) return { pageSize: 'A4', orientation: 'portrait', documentId: undefined };
  if (body.length > MAX_CREATE_BYTES) {
    throw new HttpProblem('payload-too-large', { detail: `A session creation body is a small object (at most ${MAX_CREATE_BYTES} bytes).` });
  }
  let text: string;
  try {
    text = UTF8.decode(new Uint8Array(body.buffer, 0, body.length));
  } catch {
    throw new HttpProblem('bad-request', { detail: 'The body is not valid UTF-8.' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpProblem('bad-request', { detail: 'The body is not valid JSON.' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('(body)', 'INVALID_TYPE', 'The body must be a JSON object.');
  }
  const { page_size: pageSize = 'A4', orientation = 'portrait', document_id: documentId, metadata, output, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw invalid(unknown.slice(0, 64), 'UNKNOWN_FIELD', 'Unknown field; the fields are page_size, orientation, document_id, metadata and output.');
  for (const [field, given] of [['metadata', metadata], ['output', output]] as const) {
    if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) throw invalid(field, 'INVALID_TYPE', 'must be an object, as in a RenderRequest');
  }
  if (typeof pageSize !== 'string') throw invalid('page_size', 'INVALID_TYPE', 'must be a string such as A4');
  if (typeof orientation !== 'string') throw invalid('orientation', 'INVALID_TYPE', 'must be portrait or landscape');
  // The worker checks the name; here it is only spelt the way the API spells it (a5 → A5, LETTER → Letter).
  const canonical = /^[abc]\d+$/i.test(pageSize.trim())
    ? pageSize.trim().toUpperCase()
    : pageSize.trim().charAt(0).toUpperCase() + pageSize.trim().slice(1).toLowerCase();
  if (documentId !== undefined && (typeof documentId !== 'string' || !DOCUMENT_ID.test(documentId))) {
    throw invalid('document_id', 'INVALID_FORMAT', 'must be 1-128 of A-Z a-z 0-9 . _ : -');
  }
  return { pageSize: canonical, orientation, documentId, ...(metadata === undefined ? {} : { metadata: metadata as object }), ...(output === undefined ? {} : { output: output as object }) };
}

function invalid(field: string, code: string, message: string): HttpProblem {
  return new HttpProblem('validation-failed', { detail: `${field}: ${message}`, errors: [{ field, code, message }] });
}

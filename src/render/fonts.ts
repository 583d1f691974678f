// Registered fonts: PUT /api/v1/fonts/{family} (the font file as the body),
// GET /api/v1/fonts, DELETE /api/v1/fonts/{family}. A font is checked in a
// worker exactly as set_font checks font data (font-register task) before it
// is stored; afterwards `set_font {family}` uses it with no bytes in the
// request. A client's fonts are its own: another key's label never sees or
// uses them (the store is keyed by the label, as jobs are). Every tier may
// register; how many fonts is per tier (PLATEN_FONTS_MAX_CORE, _MAX) and
// their total size per client (PLATEN_FONTS_MAX_CLIENT_BYTES).
import type { Config } from '../config.js';
import { dispatch } from '../http/dispatch.js';
import { renderEnvelope } from '../http/envelope.js';
import { HttpProblem } from '../http/problem.js';
import type { Route, RouteContext } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';
import type { FontRecord, FontStore } from '../store/fonts.js';

/** What a font file may be sent as (RFC 8081 font/*, and the generic type most upload tools use). */
export const FONT_MEDIA_TYPES = ['font/ttf', 'font/otf', 'font/sfnt', 'font/woff', 'font/woff2', 'application/octet-stream'] as const;

const view = (record: FontRecord) => ({
  family: record.family,
  size: record.size,
  sha256: record.sha256,
  created_at: record.createdAt,
  glyphs: record.glyphs,
  name: record.name,
});

/** The family in the path, percent-decoded ("Brand%20Sans" is "Brand Sans"). */
function familyOf(context: RouteContext): string {
  const raw = context.request.params[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpProblem('bad-request', { detail: 'The family in the path is not valid percent-encoded UTF-8.' });
  }
}

/** `?face_index=`: which face of a collection to register (0, the first, when absent); the task checks it against the faces there are. */
function faceIndexOf(context: RouteContext): number {
  const raw = new URLSearchParams(context.request.query).get('face_index');
  if (raw === null) return 0;
  if (!/^\d{1,9}$/.test(raw)) {
    const message = 'must be a whole number from 0, the face of a font collection to register';
    throw new HttpProblem('validation-failed', { detail: `face_index: ${message}.`, errors: [{ field: 'face_index', code: 'INVALID_FORMAT', message }] });
  }
  return Number(raw);
}

export function fontRoutes(pool: WorkerPool, store: FontStore, config: Config): Route[] {
  const envelope = (context: RouteContext, data: unknown) =>
    renderEnvelope(JSON.stringify(data), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: config.version });
  const limitsOf = (context: RouteContext) => ({
    maxCount: config.fontLimits.countByTier[context.principal?.tier ?? 'core'],
    maxBytes: config.fontLimits.clientBytes,
  });
  const owner = (context: RouteContext) => context.principal?.label as string;

  return [
    {
      method: 'PUT',
      path: '/api/v1/fonts/:family',
      auth: 'core',
      body: 'binary',
      mediaTypes: FONT_MEDIA_TYPES,
      async handle(context) {
        const family = familyOf(context);
        const limits = limitsOf(context);
        const checked = await dispatch(pool, context, 'font-register', { maxFontBytes: config.maxFontBytes, family, faceIndex: faceIndexOf(context) });
        const bytes = new Uint8Array(checked.body);
        const record: FontRecord = {
          family,
          sha256: checked.font.sha256,
          size: bytes.byteLength,
          glyphs: checked.font.glyphs,
          name: checked.font.name,
          createdAt: new Date().toISOString(),
        };
        const result = await store.put(owner(context), record, bytes, limits);
        if (result.kind === 'too-many') {
          const message = `this key's client already keeps ${result.count} fonts, the most its ${context.principal?.tier} tier may keep (${limits.maxCount}; PLATEN_FONTS_MAX_CORE or PLATEN_FONTS_MAX); delete one first`;
          throw new HttpProblem('validation-failed', { detail: `The font was not registered: ${message}.`, errors: [{ field: '(fonts)', code: 'TOO_LARGE', message }] });
        }
        if (result.kind === 'too-large') {
          const message = `the client's fonts would take ${result.bytes + record.size} bytes, over the ${limits.maxBytes} a client may keep (PLATEN_FONTS_MAX_CLIENT_BYTES); delete a font first`;
          throw new HttpProblem('validation-failed', { detail: `The font was not registered: ${message}.`, errors: [{ field: '(body)', code: 'TOO_LARGE', message }] });
        }
        return { status: result.replaced ? 200 : 201, mediaType: 'application/json', body: envelope(context, view(result.record)) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/fonts',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const fonts = await store.list(owner(context));
        const limits = limitsOf(context);
        const bytes = fonts.reduce((sum, font) => sum + font.size, 0);
        return {
          status: 200,
          mediaType: 'application/json',
          body: envelope(context, { fonts: fonts.map(view), usage: { count: fonts.length, max_count: limits.maxCount, bytes, max_bytes: limits.maxBytes } }),
        };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/fonts/:family',
      auth: 'core',
      body: 'none',
      async handle(context) {
        if (!(await store.remove(owner(context), familyOf(context)))) {
          throw new HttpProblem('not-found', { detail: 'This key has no registered font of that family (GET /api/v1/fonts lists them).' });
        }
        return { status: 204, mediaType: 'application/json', body: '' };
      },
    },
  ];
}

// The approval routes (src/auth/approvals.ts explains the flow). A client
// reads its own approvals; a key with the `approver` role reads everyone's
// and decides pending ones, never its own.
import { approvalView } from '../auth/approvals.js';
import type { Principal } from '../auth/key-store.js';
import { renderEnvelope } from '../http/envelope.js';
import { HttpProblem } from '../http/problem.js';
import type { Route, RouteContext, RouteResult } from '../http/route.js';
import type { ApprovalRecord, ApprovalStatus, ApprovalStore } from '../store/approvals.js';

export const APPROVER_ROLE = 'approver';

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'used'];
/** A reason is shown to the client and kept with the approval: bounded. */
const MAX_REASON_LENGTH = 500;

export function approvalRoutes(store: ApprovalStore, apiVersion: string): Route[] {
  const answer = (context: RouteContext, data: unknown): RouteResult => ({
    status: 200,
    mediaType: 'application/json',
    body: renderEnvelope(JSON.stringify(data), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion }),
  });

  /** The approval if the caller may see it (its owner or an approver), else 404 as if it did not exist. */
  const visible = async (context: RouteContext): Promise<ApprovalRecord> => {
    const principal = context.principal as Principal;
    const approval = await store.get(context.request.params[0] ?? '');
    if (approval === undefined || (approval.owner !== principal.label && !principal.roles.has(APPROVER_ROLE))) {
      throw new HttpProblem('not-found', { detail: 'There is no such approval for this key (approvals are forgotten after PLATEN_APPROVAL_TTL_S).' });
    }
    return approval;
  };

  const decide = (status: 'approved' | 'denied'): Route => ({
    method: 'POST',
    path: `/api/v1/approvals/:id/${status === 'approved' ? 'approve' : 'deny'}`,
    auth: 'core',
    body: 'optional-json',
    async handle(context) {
      const principal = context.principal as Principal;
      if (!principal.roles.has(APPROVER_ROLE)) {
        throw new HttpProblem('capability-denied', { detail: `Deciding approvals needs a key with the role "${APPROVER_ROLE}" (key attribute roles=${APPROVER_ROLE}).` });
      }
      const reason = readReason(context);
      const approval = await visible(context);
      if (approval.owner === principal.label) {
        throw new HttpProblem('capability-denied', { detail: 'An approver cannot decide a call of their own client; another approver must.' });
      }
      const decided = await store.transition(approval.id, 'pending', { status, decidedAt: new Date().toISOString(), decidedBy: principal.label, reason });
      if (decided === undefined) {
        const current = (await store.get(approval.id))?.status ?? 'gone';
        throw new HttpProblem('approval-decided', { detail: `The approval is no longer pending (it is ${current}); a decision cannot be changed.` });
      }
      return answer(context, approvalView(decided));
    },
  });

  return [
    {
      method: 'GET',
      path: '/api/v1/approvals',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const principal = context.principal as Principal;
        const status = new URLSearchParams(context.request.query).get('status') ?? 'pending';
        if (status !== 'all' && !STATUSES.includes(status as ApprovalStatus)) {
          throw new HttpProblem('bad-request', { detail: `The status parameter must be one of ${[...STATUSES, 'all'].join(', ')}.` });
        }
        // Approvers see every client's approvals; anyone else sees their own.
        const approvals = await store.list({
          owner: principal.roles.has(APPROVER_ROLE) ? undefined : principal.label,
          status: status === 'all' ? undefined : (status as ApprovalStatus),
        });
        return answer(context, { approvals: approvals.map(approvalView) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/approvals/:id',
      auth: 'core',
      body: 'none',
      handle: async (context) => answer(context, approvalView(await visible(context))),
    },
    {
      method: 'GET',
      path: '/api/v1/approvals/:id/body',
      auth: 'core',
      body: 'none',
      async handle(context) {
        const approval = await visible(context);
        const body = await store.body(approval.id);
        if (body === undefined) throw new HttpProblem('not-found', { detail: 'The approval is gone (approvals are forgotten after PLATEN_APPROVAL_TTL_S).' });
        return { status: 200, mediaType: body.length === 0 ? 'application/octet-stream' : 'application/json', body };
      },
    },
    decide('approved'),
    decide('denied'),
  ];
}

/** `{"reason": "..."}`, optional. A small control body, parsed on the main thread (DESIGN.md allows it). */
function readReason(context: RouteContext): string | null {
  if (context.body.length === 0) return null;
  if (context.body.length > 16_384) throw new HttpProblem('payload-too-large', { detail: 'A decision body is at most 16384 bytes.' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(context.body.buffer, 0, context.body.length)));
  } catch {
    throw new HttpProblem('bad-request', { detail: 'The body is not valid JSON.' });
  }
  const reason = typeof parsed === 'object' && parsed !== null ? (parsed as { reason?: unknown }).reason : undefined;
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH) {
    throw new HttpProblem('validation-failed', {
      detail: `reason must be a string of at most ${MAX_REASON_LENGTH} characters.`,
      errors: [{ field: 'reason', code: typeof reason === 'string' ? 'TOO_LONG' : 'INVALID_TYPE', message: `must be a string of at most ${MAX_REASON_LENGTH} characters` }],
    });
  }
  return reason;
}

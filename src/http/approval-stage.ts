// The pipeline stage of the human-in-the-loop flow: asks the approval gate
// (src/auth/approvals.ts, which decides and explains the flow) about a call
// of a gated operation and answers for it: 202 with the approval it
// requested, the problem for a refusal, or the route's own answer when the
// call was approved.
import { approvalUrl, approvalView, type ApprovalDecision, type ApprovalGate } from '../auth/approvals.js';
import { accelJson, renderEnvelope } from './envelope.js';
import { HttpProblem, type ProblemInit, type Slug } from './problem.js';
import type { MountedRoute, RouteContext, RouteResult } from './route.js';

/** How soon a client should ask again while its approval is pending (seconds). */
const PENDING_RETRY_SECONDS = 5;

const SPENT = 'This approval was already spent on one run of the call; request a new one by sending the call without Approval-Id.';

/** Refused before any work was done: the approval stays usable for the next try. */
const NOT_STARTED: ReadonlySet<Slug> = new Set(['worker-pool-exhausted', 'shutting-down', 'store-unavailable']);

export async function runApproved(
  gate: ApprovalGate,
  route: MountedRoute,
  context: RouteContext,
  apiVersion: string,
  handle: () => RouteResult | Promise<RouteResult>,
): Promise<RouteResult> {
  const { request, body } = context;
  const decision = await gate.decide({
    owner: (context.principal as NonNullable<RouteContext['principal']>).label,
    operation: route.operation as string,
    method: request.method,
    path: request.path,
    bodySha256: body.sha256,
    approvalId: request.headers['approval-id'],
    // Copied: the request's buffer may be transferred to a worker later.
    body: () => new Uint8Array(body.buffer, 0, body.length).slice(),
  });
  switch (decision.kind) {
    case 'requested': {
      const { approval } = decision;
      const data = approvalView(approval);
      const meta = { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion };
      return {
        status: 202,
        mediaType: 'application/json',
        body: route.family === 'accel' ? accelJson(data, meta) : renderEnvelope(JSON.stringify(data), meta),
        headers: [
          ['Location', approvalUrl(approval.id)],
          ['Approval-Id', approval.id],
        ],
      };
    }
    case 'refused': {
      const [slug, init] = refusal(decision);
      throw new HttpProblem(slug, init);
    }
    case 'granted':
      try {
        return await handle();
      } catch (error) {
        if (error instanceof HttpProblem && NOT_STARTED.has(error.slug)) await gate.restore(decision.approval);
        throw error;
      }
  }
}

function refusal(decision: Extract<ApprovalDecision, { kind: 'refused' }>): [Slug, ProblemInit] {
  const { approval } = decision;
  switch (decision.reason) {
    case 'unknown':
      return ['not-found', { detail: 'There is no such approval for this key (approvals are forgotten after PLATEN_APPROVAL_TTL_S); send the call without Approval-Id to request a new one.' }];
    case 'other-call':
      return ['capability-denied', { detail: `This approval is for ${approval?.method} ${approval?.path}, not for this call.` }];
    case 'other-body':
      return ['capability-denied', { detail: 'The body differs from the one that was submitted for approval; an approval covers exactly one body.' }];
    case 'pending':
      return ['approval-pending', { detail: 'The approval is still pending; repeat the call once an approver has decided.', retryAfter: PENDING_RETRY_SECONDS }];
    case 'denied':
      return ['capability-denied', { detail: `An approver denied this call${approval?.reason == null ? '' : `: ${approval.reason}`}.` }];
    case 'used':
      return ['approval-used', { detail: SPENT }];
  }
}

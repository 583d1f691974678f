// The human-in-the-loop gate (render spec section 5 item 6). Operations listed
// in PLATEN_APPROVAL_REQUIRED run only with a person's approval of that exact
// call:
//
//   1. The client calls as usual. Without an `Approval-Id` header the call is
//      not run: an approval request bound to the client, the method, the path
//      and the SHA-256 of the body is created and answered 202 with it.
//   2. A key with the `approver` role lists pending approvals and approves or
//      denies them (src/render/approvals.ts). Nobody approves their own call.
//   3. The client repeats the call with `Approval-Id`. Approved and identical:
//      it runs, once. Pending: 409 approval-pending. Denied: 403
//      capability-denied. Another body, path or method: 403. Already spent:
//      409 approval-used.
import { randomBytes } from 'node:crypto';
import { accelJson, renderEnvelope } from '../http/envelope.js';
import { HttpProblem } from '../http/problem.js';
import type { MountedRoute, RouteContext, RouteResult } from '../http/route.js';
import type { ApprovalRecord, ApprovalStore } from '../store/approvals.js';

/** How soon a client should ask again while its approval is pending (seconds). */
const PENDING_RETRY_SECONDS = 5;

export interface ApprovalGateOptions {
  readonly store: ApprovalStore;
  /** Route `operation` names that need approval. */
  readonly operations: ReadonlySet<string>;
  /** An approval is forgotten this long after it was requested, whatever its state. */
  readonly ttlMs: number;
  readonly apiVersion: string;
}

export class ApprovalGate {
  constructor(private readonly options: ApprovalGateOptions) {}

  gates(route: MountedRoute): boolean {
    return route.operation !== undefined && this.options.operations.has(route.operation);
  }

  /** Runs `handle` when the call carries a usable approval of itself; answers with the approval's state otherwise. */
  async run(route: MountedRoute, context: RouteContext, handle: () => RouteResult | Promise<RouteResult>): Promise<RouteResult> {
    const { store } = this.options;
    const owner = (context.principal as NonNullable<RouteContext['principal']>).label;
    const sha256 = context.body.sha256 ?? EMPTY_SHA256;
    const id = context.request.headers['approval-id'];
    if (id === '') return this.#request(route, context, owner, sha256);

    const approval = await store.get(id);
    if (approval === undefined || approval.owner !== owner) {
      throw new HttpProblem('not-found', { detail: 'There is no such approval for this key (approvals are forgotten after PLATEN_APPROVAL_TTL_S); send the call without Approval-Id to request a new one.' });
    }
    if (approval.method !== context.request.method || approval.path !== context.request.path) {
      throw new HttpProblem('capability-denied', { detail: `This approval is for ${approval.method} ${approval.path}, not for this call.` });
    }
    if (approval.bodySha256 !== sha256) {
      throw new HttpProblem('capability-denied', { detail: 'The body differs from the one that was submitted for approval; an approval covers exactly one body.' });
    }
    switch (approval.status) {
      case 'pending':
        throw new HttpProblem('approval-pending', { detail: 'The approval is still pending; repeat the call once an approver has decided.', retryAfter: PENDING_RETRY_SECONDS });
      case 'denied':
        throw new HttpProblem('capability-denied', { detail: `An approver denied this call${approval.reason === null ? '' : `: ${approval.reason}`}.` });
      case 'used':
        throw new HttpProblem('approval-used', { detail: 'This approval was already spent on one run of the call; request a new one by sending the call without Approval-Id.' });
      case 'approved':
        break;
    }
    // Spent before the work starts, atomically: two calls racing with one approval run once.
    if ((await store.transition(id, 'approved', { status: 'used', usedAt: new Date().toISOString() })) === undefined) {
      throw new HttpProblem('approval-used', { detail: 'This approval was already spent on one run of the call; request a new one by sending the call without Approval-Id.' });
    }
    try {
      return await handle();
    } catch (error) {
      // Refused before any work was done (pool full, shutting down, store down): the approval stays usable.
      if (error instanceof HttpProblem && (error.slug === 'worker-pool-exhausted' || error.slug === 'shutting-down' || error.slug === 'store-unavailable')) {
        await store.transition(id, 'used', { status: 'approved', usedAt: null });
      }
      throw error;
    }
  }

  async #request(route: MountedRoute, context: RouteContext, owner: string, sha256: string): Promise<RouteResult> {
    const now = Date.now();
    const approval: ApprovalRecord = {
      id: `apr_${randomBytes(12).toString('hex')}`,
      owner,
      status: 'pending',
      operation: route.operation as string,
      method: context.request.method,
      path: context.request.path,
      bodySha256: sha256,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.ttlMs).toISOString(),
      decidedAt: null,
      decidedBy: null,
      reason: null,
      usedAt: null,
    };
    // Copied: the request's buffer may be transferred to a worker later.
    await this.options.store.create(approval, new Uint8Array(context.body.buffer, 0, context.body.length).slice());
    const data = approvalView(approval);
    const meta = { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: this.options.apiVersion };
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
}

/** SHA-256 of zero bytes: the fingerprint of a call without a body. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function approvalUrl(id: string): string {
  return `/api/v1/approvals/${id}`;
}

/** The approval resource as the API shows it. */
export function approvalView(approval: ApprovalRecord): Record<string, unknown> {
  return {
    approval_id: approval.id,
    status: approval.status,
    operation: approval.operation,
    method: approval.method,
    path: approval.path,
    body_sha256: approval.bodySha256,
    client: approval.owner,
    created_at: approval.createdAt,
    expires_at: approval.expiresAt,
    decided_at: approval.decidedAt,
    decided_by: approval.decidedBy,
    reason: approval.reason,
    used_at: approval.usedAt,
    approval_url: approvalUrl(approval.id),
  };
}

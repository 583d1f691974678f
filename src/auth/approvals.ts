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
//
// This module decides; it knows no HTTP. The pipeline stage that asks it and
// turns its decisions into answers (202, 403, 404, 409) is
// src/http/approval-stage.ts.
import { randomBytes } from 'node:crypto';
import type { ApprovalRecord, ApprovalStore } from '../store/approvals.js';

export interface ApprovalGateOptions {
  readonly store: ApprovalStore;
  /** Route `operation` names that need approval. */
  readonly operations: ReadonlySet<string>;
  /** An approval is forgotten this long after it was requested, whatever its state. */
  readonly ttlMs: number;
}

/** One call of a gated operation, as the gate needs to see it. */
export interface GatedCall {
  /** The caller's key label. */
  readonly owner: string;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  /** SHA-256 (hex) of the body; undefined for a call without one. */
  readonly bodySha256: string | undefined;
  /** The `Approval-Id` header; '' when the call carries none. */
  readonly approvalId: string;
  /** The body, read only when an approval request is created (it is kept for the approver). */
  readonly body: () => Uint8Array;
}

/** Why a call with an `Approval-Id` may not run. */
export type ApprovalRefusal =
  /** No such approval for this owner (or it expired). */
  | 'unknown'
  /** The approval is for another method or path. */
  | 'other-call'
  /** The approval covers another body. */
  | 'other-body'
  | 'pending'
  | 'denied'
  /** Spent already (or by a call racing this one). */
  | 'used';

export type ApprovalDecision =
  /** The call carried no approval: one was requested; the call does not run. */
  | { readonly kind: 'requested'; readonly approval: ApprovalRecord }
  | { readonly kind: 'refused'; readonly reason: ApprovalRefusal; readonly approval?: ApprovalRecord }
  /** Approved and now spent: run the call (and `restore` it if the call is refused before any work). */
  | { readonly kind: 'granted'; readonly approval: ApprovalRecord };

export class ApprovalGate {
  constructor(private readonly options: ApprovalGateOptions) {}

  gates(operation: string | undefined): boolean {
    return operation !== undefined && this.options.operations.has(operation);
  }

  async decide(call: GatedCall): Promise<ApprovalDecision> {
    const { store } = this.options;
    const sha256 = call.bodySha256 ?? EMPTY_SHA256;
    if (call.approvalId === '') return { kind: 'requested', approval: await this.#request(call, sha256) };

    const approval = await store.get(call.approvalId);
    if (approval === undefined || approval.owner !== call.owner) return { kind: 'refused', reason: 'unknown' };
    if (approval.method !== call.method || approval.path !== call.path) return { kind: 'refused', reason: 'other-call', approval };
    if (approval.bodySha256 !== sha256) return { kind: 'refused', reason: 'other-body', approval };
    if (approval.status !== 'approved') return { kind: 'refused', reason: approval.status, approval };
    // Spent before the work starts, atomically: two calls racing with one approval run once.
    const spent = await store.transition(approval.id, 'approved', { status: 'used', usedAt: new Date().toISOString() });
    return spent === undefined ? { kind: 'refused', reason: 'used', approval } : { kind: 'granted', approval: spent };
  }

  /** Makes a granted approval usable again: the call was refused before any work was done (pool full, shutting down, store down). */
  async restore(approval: ApprovalRecord): Promise<void> {
    await this.options.store.transition(approval.id, 'used', { status: 'approved', usedAt: null });
  }

  async #request(call: GatedCall, sha256: string): Promise<ApprovalRecord> {
    const now = Date.now();
    const approval: ApprovalRecord = {
      id: `apr_${randomBytes(12).toString('hex')}`,
      owner: call.owner,
      status: 'pending',
      operation: call.operation,
      method: call.method,
      path: call.path,
      bodySha256: sha256,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.ttlMs).toISOString(),
      decidedAt: null,
      decidedBy: null,
      reason: null,
      usedAt: null,
    };
    await this.options.store.create(approval, call.body());
    return approval;
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

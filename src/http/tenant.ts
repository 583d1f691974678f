// High-control mode (PLATEN_HIGH_CONTROL): every authenticated request, on
// both APIs, names its tenant in X-Tenant-ID, and the name must be the
// tenant attribute of the key that sent it. A tenant boundary that covered
// only some routes would not be a boundary, so the probes, /health and
// /metrics (no key, no tenant data) are the only routes outside it.
// Tenant ids are not secrets, but the header's value is still never echoed.
import type { Principal } from '../auth/key-store.js';

/** The key attribute's syntax (src/auth/key-entry.ts). */
const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export interface TenantRefusal {
  readonly slug: 'bad-request' | 'capability-denied';
  readonly detail: string;
}

/** Undefined when the request may go on; otherwise why not. */
export function checkTenant(principal: Principal, header: string): TenantRefusal | undefined {
  // First: no header can make such a key usable, so say so before asking for one.
  if (principal.tenant === undefined) {
    return {
      slug: 'capability-denied',
      detail: `The key "${principal.kid}" belongs to no tenant, and this server runs in high-control mode, where every key needs a tenant attribute (tenant=...).`,
    };
  }
  if (header === '') {
    return { slug: 'bad-request', detail: 'This server runs in high-control mode: send your tenant id in the header "X-Tenant-ID".' };
  }
  if (!TENANT_PATTERN.test(header)) {
    return { slug: 'bad-request', detail: 'The header "X-Tenant-ID" must be 1-128 of A-Z a-z 0-9 . _ -.' };
  }
  if (header !== principal.tenant) {
    return { slug: 'capability-denied', detail: `The header "X-Tenant-ID" does not name the tenant of the key "${principal.kid}".` };
  }
  return undefined;
}

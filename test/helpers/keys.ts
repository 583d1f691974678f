// Fixed test keys, one per tier, and an approver. Never used outside tests.
export const KEYS = {
  core: 'svc_live_core1_cccccccccccccccccccccccccccccccc',
  pro: 'svc_live_pro1_pppppppppppppppppppppppppppppppp',
  enterprise: 'svc_live_ent1_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
  /** A person who decides approvals (role approver), on a client of its own. */
  approver: 'svc_live_appr1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
} as const;

export const KEY_ENTRIES = [
  `${KEYS.core}:core-client:core:`,
  `${KEYS.pro}:pro-client:pro:`,
  `${KEYS.enterprise}:ent-client:enterprise:`,
  `${KEYS.approver}:approver-client:core:roles=approver`,
].join(',');

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

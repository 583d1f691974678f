// Fixed test keys, one per tier. Never used outside tests.
export const KEYS = {
  core: 'svc_live_core1_cccccccccccccccccccccccccccccccc',
  pro: 'svc_live_pro1_pppppppppppppppppppppppppppppppp',
  enterprise: 'svc_live_ent1_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
} as const;

export const KEY_ENTRIES = [
  `${KEYS.core}:core-client:core:`,
  `${KEYS.pro}:pro-client:pro:`,
  `${KEYS.enterprise}:ent-client:enterprise:`,
].join(',');

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

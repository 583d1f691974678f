// Tiers are ordered: a higher tier includes every operation of the lower ones
// (both specs say so), so "may this client call that route" is a comparison.
export const TIERS = ['core', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

const rank: Record<Tier, number> = { core: 0, pro: 1, enterprise: 2 };

export function tierIncludes(held: Tier, required: Tier): boolean {
  return rank[held] >= rank[required];
}

export function isTier(value: string): value is Tier {
  return Object.hasOwn(rank, value);
}

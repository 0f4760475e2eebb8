/** decisions.md, "Keys and limits": requests per window. Enterprise limits are set on each key. */
export const PLANS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: undefined,
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

/** A key's limits: its plan's, or for enterprise its own. */
export function limitsOf(key: { plan: Plan; perMinute: number | null; perDay: number | null }): { perMinute: number; perDay: number } {
  return PLANS[key.plan] ?? { perMinute: key.perMinute ?? 0, perDay: key.perDay ?? 0 };
}

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

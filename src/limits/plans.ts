/** decisions.md, "Keys and limits": requests per window. Enterprise limits are set on each key. */
export const PLANS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: undefined,
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

/** A caller's quota as the look-up tells it: the plan and each window after the request was counted. */
export interface Quota {
  readonly plan: string;
  readonly windows: readonly {
    readonly name: string;
    readonly limit: number;
    readonly remaining: number;
    /** Unix seconds at which the window resets. */
    readonly reset: number;
  }[];
}

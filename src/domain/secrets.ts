/**
 * Where a secret that a response shows once is kept (its only home at rest): a replay of that response
 * reads it back from there rather than keeping a copy.
 */
export interface SecretHome {
  readonly kind: 'webhookEndpoint';
  readonly id: number;
}

/** Told of each secret a response shows once, and of its home. */
export type ShowsSecret = (secret: string, home: SecretHome) => void;

/** The secret kept at `home`; undefined when it is gone (its endpoint deleted). */
export type SecretReader = (home: SecretHome) => Promise<string | undefined>;

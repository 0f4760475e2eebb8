/**
 * Waits `ms`. Only where the time is the point: pacing a client, or a window in which something must
 * NOT happen. Never to guess that something is ready: wait for it (expect.poll, an event, a log line).
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

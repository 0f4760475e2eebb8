import { Redis } from 'ioredis';
import { log } from './log.js';

export interface RedisConnection {
  readonly client: Redis;
  /** Resolves once connected, or after `ms` without: startup waits this long, then serves degraded. */
  ready(ms: number): Promise<boolean>;
  /** Whether commands reach Redis now; while not, limits are kept per instance. */
  isUp(): boolean;
  describe(): string;
  close(): Promise<void>;
}

/** How often an idle connection is checked: a Redis that hangs (no close, no error) is found this fast. */
const HEALTH_CHECK_MS = 1_000;

/**
 * Never waits for Redis: commands fail at once while it is away (no offline queue) or slow (a short
 * command timeout), so rate-limiter-flexible falls back to its insurance limiter and requests go on.
 * Concurrent commands of one request leave in one write (auto-pipelining). One warning per outage.
 *
 * A Redis that stops answering without closing the connection (a hung host, a partition) is found by a
 * PING each second (two unanswered in a row): the connection is dropped and reopened, so the limiter stops waiting out command
 * timeouts and uses its insurance at once, until Redis answers again.
 */
export function connectRedis(url: string): RedisConnection {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
  });
  const where = `${client.options.host}:${client.options.port}`;
  let up = false;
  let warned = false;
  const down = (reason: string) => {
    up = false;
    if (warned) return;
    warned = true;
    log.warn({ redis: where, reason }, 'Redis is unreachable: limiting per instance until it returns');
  };
  client.on('ready', () => {
    up = true;
    if (warned) log.info({ redis: where }, 'Redis is back: limits are shared again');
    warned = false;
  });
  client.on('error', (error: Error) => down(error.message));
  client.on('close', () => down('connection closed'));
  let unanswered = 0;
  const healthCheck = setInterval(() => {
    if (client.status !== 'ready') { unanswered = 0; return; }
    client.ping().then(() => { unanswered = 0; }, (error: Error) => {
      // Two in a row: one slow answer on a loaded host is not a hung Redis.
      if (client.status !== 'ready' || ++unanswered < 2) return;
      unanswered = 0;
      down(`no answer to PING: ${error.message}`);
      client.disconnect(true);
    });
  }, HEALTH_CHECK_MS).unref();

  return {
    client,
    ready: (ms) => new Promise((resolve) => {
      if (up) return resolve(true);
      const timer = setTimeout(() => { client.off('ready', onReady); resolve(false); }, ms);
      const onReady = () => { clearTimeout(timer); resolve(true); };
      client.once('ready', onReady);
    }),
    isUp: () => up,
    describe: () => `Redis at ${where}`,
    async close() {
      clearInterval(healthCheck);
      client.removeAllListeners('close');
      client.disconnect();
    },
  };
}

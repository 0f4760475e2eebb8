import type { RedisClient } from '../redis/clients.js';

/**
 * The ban check and every window's consume in one script: one command and one reply a request, where
 * rate-limiter-flexible's calls take six (MULTI GET PTTL EXEC for the ban, an EVALSHA per window). It
 * reads and writes the keys as rate-limiter-flexible does (a window's key holds its consumed points and
 * expires with the window; a ban's holds the time it ends), so the limiters on the refusal path and the
 * insurance limiter in an outage keep their meaning. A refused request is given back at once.
 *
 * KEYS: the ban, then each window, then optionally a key to read as well (the subject's last write, which
 * read replicas need: it comes back in the same reply). ARGV: cost, now (ms), bannable (1/0), then each
 * window's limit and seconds. Returns {-1, ends} while banned (nothing taken), else each window's consumed
 * points after this request, then, when asked, the key's value (false when it has none).
 */
const SCRIPT = `
local cost = tonumber(ARGV[1])
local windows = (#ARGV - 3) / 2
if ARGV[3] == '1' then
  local ends = tonumber(redis.call('get', KEYS[1]) or '0')
  if ends > tonumber(ARGV[2]) then return {-1, ends} end
end
local consumed = {}
local refused = false
for i = 2, windows + 1 do
  local limit = tonumber(ARGV[2 * i])
  redis.call('set', KEYS[i], 0, 'EX', ARGV[2 * i + 1], 'NX')
  consumed[i - 1] = redis.call('incrby', KEYS[i], cost)
  if consumed[i - 1] > limit then refused = true end
end
if refused then
  for i = 2, windows + 1 do redis.call('decrby', KEYS[i], cost) end
end
if #KEYS > windows + 1 then consumed[windows + 1] = redis.call('get', KEYS[#KEYS]) end
return consumed
`;

export interface WindowKey {
  readonly key: string;
  readonly limit: number;
  readonly seconds: number;
}

export type Taken =
  | { readonly banned: true; readonly ends: number }
  | { readonly banned: false; readonly consumed: readonly number[]; readonly read?: string | null };

type TakePoints = (count: number, ...keysAndArgs: (string | number)[]) => Promise<(number | string | null)[]>;

/** Registers the script on the client once (ioredis sends EVALSHA, and the script itself on NOSCRIPT). */
export function takePoints(redis: RedisClient) {
  redis.defineCommand('animalStoreTakePoints', { lua: SCRIPT });
  const call = (redis as unknown as { animalStoreTakePoints: TakePoints }).animalStoreTakePoints.bind(redis);
  return async (
    ban: { key: string; bannable: boolean }, windows: readonly WindowKey[], cost: number, now: number, read?: string,
  ): Promise<Taken> => {
    const keys = read === undefined ? [ban.key, ...windows.map((w) => w.key)] : [ban.key, ...windows.map((w) => w.key), read];
    const reply = await call(keys.length, ...keys, cost, now, ban.bannable ? 1 : 0, ...windows.flatMap((w) => [w.limit, w.seconds]));
    if (reply[0] === -1) return { banned: true, ends: reply[1] as number };
    if (read === undefined) return { banned: false, consumed: reply as number[] };
    // A nil at the end of a Lua table ends it: a key without a value shortens the reply by one.
    return { banned: false, consumed: reply.slice(0, windows.length) as number[], read: (reply[windows.length] as string | undefined) ?? null };
  };
}

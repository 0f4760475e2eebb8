import type { RedisClient } from '../redis/clients.js';

/**
 * The ban check and every window's consume in one script: one command and one reply a request, where
 * rate-limiter-flexible's calls take six (MULTI GET PTTL EXEC for the ban, an EVALSHA per window). It
 * reads and writes the keys as rate-limiter-flexible does (a window's key holds its consumed points and
 * expires with the window; a ban's holds the time it ends), so the limiters on the refusal path and the
 * insurance limiter in an outage keep their meaning. A refused request is given back at once.
 *
 * KEYS: the ban, then each window. ARGV: cost, now (ms), bannable (1/0), then each window's limit and seconds.
 * Returns {-1, ends} while banned (nothing taken), else each window's consumed points after this request.
 */
const SCRIPT = `
local cost = tonumber(ARGV[1])
if ARGV[3] == '1' then
  local ends = tonumber(redis.call('get', KEYS[1]) or '0')
  if ends > tonumber(ARGV[2]) then return {-1, ends} end
end
local consumed = {}
local refused = false
for i = 2, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  redis.call('set', KEYS[i], 0, 'EX', ARGV[2 * i + 1], 'NX')
  consumed[i - 1] = redis.call('incrby', KEYS[i], cost)
  if consumed[i - 1] > limit then refused = true end
end
if refused then
  for i = 2, #KEYS do redis.call('decrby', KEYS[i], cost) end
end
return consumed
`;

export interface WindowKey {
  readonly key: string;
  readonly limit: number;
  readonly seconds: number;
}

export type Taken =
  | { readonly banned: true; readonly ends: number }
  | { readonly banned: false; readonly consumed: readonly number[] };

type TakePoints = (count: number, ...keysAndArgs: (string | number)[]) => Promise<number[]>;

/** Registers the script on the client once (ioredis sends EVALSHA, and the script itself on NOSCRIPT). */
export function takePoints(redis: RedisClient) {
  redis.defineCommand('animalStoreTakePoints', { lua: SCRIPT });
  const call = (redis as unknown as { animalStoreTakePoints: TakePoints }).animalStoreTakePoints.bind(redis);
  return async (ban: { key: string; bannable: boolean }, windows: readonly WindowKey[], cost: number, now: number): Promise<Taken> => {
    const reply = await call(
      1 + windows.length, ban.key, ...windows.map((w) => w.key),
      cost, now, ban.bannable ? 1 : 0, ...windows.flatMap((w) => [w.limit, w.seconds]),
    );
    return reply[0] === -1 ? { banned: true, ends: reply[1]! } : { banned: false, consumed: reply };
  };
}

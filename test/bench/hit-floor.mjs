// The least a cache hit can cost: plain node:http, the bearer hashed and looked up in a Map, one EVALSHA
// taking the minute and day windows in one round trip (as a hand-written server would), and the bytes the
// service itself answered for that URL, with its ETag (a matching If-None-Match gets a 304). No access
// log, no metrics, no request id, no CORS or security headers, no bans, no read-your-writes check: the
// floor under every hit and 304 the service serves, measured beside it in the same run (docs/operations.md).
//   node test/bench/hit-floor.mjs UPSTREAM_URL KEY    env: PORT (18085), HOST (127.0.0.1), REDIS_URL
// Each GET path is fetched once from UPSTREAM with KEY, on its first request; a POST is answered 201 with
// the body of GET /v1/pets/1.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

const [upstream, upstreamKey] = process.argv.slice(2);
if (!upstream || !upstreamKey) {
  console.error('usage: node test/bench/hit-floor.mjs UPSTREAM_URL KEY');
  process.exit(2);
}
const PORT = Number(process.env.PORT ?? 18085);
const HOST = process.env.HOST ?? '127.0.0.1';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
redis.defineCommand('consume2', {
  numberOfKeys: 2,
  lua: `
local m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local d = redis.call('INCR', KEYS[2])
if d == 1 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
return {m, d}`,
});

const LIMIT = 2_000_000_000;
const keys = new Map();
const answers = new Map();

/** The service's own bytes and ETag for a path, fetched once. */
function answerFor(path) {
  let answer = answers.get(path);
  if (!answer) {
    answer = fetch(upstream + path, { headers: { authorization: `Bearer ${upstreamKey}` } }).then(async (response) => {
      const body = Buffer.from(await response.arrayBuffer());
      const etag = response.headers.get('etag') ?? '';
      return { body, etag, head: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length), 'ETag', etag] };
    });
    answers.set(path, answer);
  }
  return answer;
}

const server = http.createServer(async (req, res) => {
  const bearer = req.headers.authorization;
  if (!bearer?.startsWith('Bearer ')) {
    res.writeHead(401).end();
    return;
  }
  const hash = createHash('sha256').update(bearer.slice(7)).digest('hex');
  let key = keys.get(hash);
  if (!key) keys.set(hash, (key = { hash }));
  const path = req.method === 'POST' ? '/v1/pets/1' : req.url;
  if (req.method === 'POST') req.resume();
  const now = Math.floor(Date.now() / 1000);
  const [[minute], answer] = await Promise.all([
    redis.consume2(`floor:{${key.hash}}:m:${Math.floor(now / 60)}`, `floor:{${key.hash}}:d:${Math.floor(now / 86400)}`, 61, 86401),
    answerFor(path),
  ]);
  const limits = ['X-RateLimit-Limit', String(LIMIT), 'X-RateLimit-Remaining', String(LIMIT - minute), 'X-RateLimit-Reset', String((Math.floor(now / 60) + 1) * 60)];
  if (req.method === 'GET' && req.headers['if-none-match'] === answer.etag) {
    res.writeHead(304, ['ETag', answer.etag, ...limits]);
    res.end();
    return;
  }
  res.writeHead(req.method === 'POST' ? 201 : 200, [...answer.head, ...limits]);
  res.end(answer.body);
});
server.keepAliveTimeout = 65_000;
server.listen(PORT, HOST, () => console.error(`hit-floor: listening on http://${HOST}:${PORT}, answering as ${upstream}`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

-- A read shape with one write in WRITE_EVERY (default 20): POST /v1/pets (a new pet, past a full first
-- page, as a frontend's users add them), else the GET of the command line. Env: SHAPE, LINE_PREFIX,
-- WRITE_EVERY. Prints the shared bench's result line (wrk/shape.lua's format).
local every = tonumber(os.getenv("WRITE_EVERY") or "20")
local n = 0
local post

function init(args)
  -- The command line's headers (Authorization) as well: wrk.format takes the table given in place of them.
  local headers = { ["Content-Type"] = "application/json" }
  for name, value in pairs(wrk.headers) do headers[name] = value end
  post = wrk.format("POST", "/v1/pets", headers, '{"name":"Mixed","categoryId":2}')
end

function request()
  n = n + 1
  if n % every == 0 then return post end
  return wrk.format(nil, nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  local sock = e.connect + e.read + e.write + e.timeout
  local secs = summary.duration / 1e6
  io.write(string.format(
    "%sshape=%s rps=%.1f p50_ms=%.3f p99_ms=%.3f errors=%d requests=%d non2xx=%d sockerr=%d\n",
    os.getenv("LINE_PREFIX") or "", os.getenv("SHAPE") or "?", summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status + sock, summary.requests, e.status, sock))
end

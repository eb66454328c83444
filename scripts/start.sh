#!/usr/bin/env bash
# Starts parley as `npm start` does (in the repository folder, INIT_CWD saying where you were, the
# same node flags), but with nothing left running beside it: each step `exec`s the next, so the bot's
# node is the only process. `npm start` keeps npm itself resident as the bot's parent (about 60 MiB,
# docs/benchmarks.md), for as long as the bot runs; use this on a server or in a service unit.
set -euo pipefail
repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export INIT_CWD="${INIT_CWD:-$PWD}"
# Node keeps the modules it loaded, types stripped and compiled, and the next start reads them from
# here instead of doing that again: about half of start-up's module loading (docs/benchmarks.md,
# cold start). Keyed by each file's content and the node version, so an edit is never served stale.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parley/compile-cache}"
cd "$repository"
exec scripts/node22.sh node --expose-gc bin/parley.ts "$@"

#!/usr/bin/env bash
# Starts parley as `npm start` does (in the repository folder, INIT_CWD saying where you were, the
# same node flags), but with nothing left running beside it: each step `exec`s the next, so the bot's
# node is the only process. `npm start` keeps npm itself resident as the bot's parent (about 60 MiB,
# docs/benchmarks.md), for as long as the bot runs; use this on a server or in a service unit.
set -euo pipefail
repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export INIT_CWD="${INIT_CWD:-$PWD}"
cd "$repository"
exec scripts/node22.sh node --expose-gc bin/parley.ts "$@"

#!/usr/bin/env bash
# Sets up (packages, Release build) and runs tileplan; with no arguments, `tileplan tile` on its defaults.
#   bash scripts/run.sh                 # tileplan tile
#   bash scripts/run.sh loop --extents 128 32
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target tileplan >/dev/null
if (($# == 0)); then set -- tile; fi
exec build/release/tileplan "$@"

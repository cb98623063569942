#!/usr/bin/env bash
# Sets up (packages), builds and runs the whole test suite twice: a Release
# build, and a Debug build under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
status=0
for preset in release dev; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$jobs" >/dev/null
  echo "== $preset: ctest"
  ctest --preset "$preset" -j"$jobs" || status=1
done
exit $status

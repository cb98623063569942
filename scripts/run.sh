#!/usr/bin/env bash
# Sets up (packages, Release build) and runs tileplan; with no arguments, `tileplan tile` on its defaults.
#   bash scripts/run.sh                 # tileplan tile
#   bash scripts/run.sh loop --extents 128 32
# On a fresh checkout it configures the release preset without tests and
# benchmarks (so the CUDA headers the tests need are not required);
# scripts/test.sh turns them on. A build directory already configured keeps
# its settings: run.sh builds only the tileplan target there, so it never
# turns off the tests of a build that has them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# A build directory another generator made (the presets used Make before Ninja) cannot be reused.
if [[ -f build/release/CMakeCache.txt ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build/release/CMakeCache.txt; then
  rm -rf build/release
fi
if [[ ! -f build/release/CMakeCache.txt ]]; then
  cmake --preset release -DTILEPLAN_BUILD_TESTS=OFF -DTILEPLAN_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build/release -j"$(nproc)" --target tileplan >/dev/null
if (($# == 0)); then set -- tile; fi
exec build/release/tileplan "$@"

#!/usr/bin/env bash
# Sets up (packages), builds and runs the whole test suite twice: a Release
# build, and a Debug build under AddressSanitizer + UndefinedBehaviorSanitizer;
# then the tests of the threaded parts (a Planner shared by threads, tile
# --shapes planning on several) once more under ThreadSanitizer.
# The Release build includes the Python package (build/release/python), and
# its pytest suite (tests/python) runs beside the C++ tests; the sanitized
# build has no Python module (a sanitizer runtime cannot be loaded into python).
# Then checks the library the way others embed it: installed and found with
# find_package (examples/embed), and as a subproject with add_subdirectory
# (tests/subproject), each building and running a program that plans a GEMM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
# The interpreter deps.sh installs pybind11 and pytest for (PYTHON overrides it).
python=${PYTHON:-/usr/bin/python3}
status=0
for preset in release dev; do
  echo "== $preset: configure and build"
  # A build directory another generator made (the presets used Make before Ninja) cannot be reused.
  if [[ -f build/$preset/CMakeCache.txt ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "build/$preset/CMakeCache.txt"; then
    rm -rf "build/$preset"
  fi
  if [[ $preset == release ]]; then
    cmake --preset "$preset" -DPython_EXECUTABLE="$python" >/dev/null
  else
    cmake --preset "$preset" >/dev/null
  fi
  cmake --build --preset "$preset" -j"$jobs" >/dev/null
  echo "== $preset: ctest"
  ctest --preset "$preset" -j"$jobs" || status=1
  if [[ $preset == release ]]; then
    echo "== release: pytest (tests/python: the Python package against the CLI)"
    PYTHONPATH=build/release/python TILEPLAN_CLI=build/release/tileplan \
      "$python" -m pytest -q -p no:cacheprovider tests/python || status=1
  fi
done

echo "== tsan: the threaded parts under ThreadSanitizer (the tsan preset's tests)"
if [[ -f build/tsan/CMakeCache.txt ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build/tsan/CMakeCache.txt; then
  rm -rf build/tsan
fi
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$jobs" >/dev/null
# halt_on_error: a race fails its test (ThreadSanitizer's exit code) instead of only printing.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --preset tsan -j"$jobs" || status=1

# The program's one line must name the CLI's first pick for the same problem
# (CSV columns: rank, block_m, block_n, block_k, stages, threads, ...).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expected=$(build/release/tileplan tile --topk 1 --format csv | sed -n 2p |
  awk -F, '{ printf "block_m %s block_n %s block_k %s stages %s threads %s", $2, $3, $4, $5, $6 }')
check_pick() {  # $1: what was built, $2: the program
  local out rc=0
  out=$("$2") || rc=$?
  if ((rc != 0)); then
    echo "FAILED: $1: $2 exited with status $rc" >&2
    status=1
  elif [[ -z "$expected" || "$out" != "$expected predicted_us "* ]]; then
    echo "FAILED: $1 printed '$out', expected '$expected predicted_us ...'" >&2
    status=1
  else
    echo "$1: $out"
  fi
}

echo "== embedding: cmake --install, then find_package(tileplan) in examples/embed"
cmake --install build/release --prefix "$tmp/prefix" >/dev/null
cmake -S examples/embed -B "$tmp/embed" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/embed" -j"$jobs" >/dev/null
check_pick "find_package" "$tmp/embed/plan_gemm"

echo "== embedding: add_subdirectory, without CLI11, GoogleTest or Google Benchmark"
cmake -S tests/subproject -B "$tmp/subproject" --no-warn-unused-cli -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >/dev/null
cmake --build "$tmp/subproject" -j"$jobs" >/dev/null
check_pick "add_subdirectory" "$tmp/subproject/plan_gemm"
exit $status

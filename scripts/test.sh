#!/usr/bin/env bash
# The whole test suite: set-up, a RelWithDebInfo build (with the Python module) and its tests in build/, then the same
# tests under AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ (clang-14, a shared library), then a bounded run of
# every libFuzzer target, built in build-asan/ as well (docs/fuzzing.md).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh

echo "== build/ (RelWithDebInfo) at ${SECONDS} s"
scripts/build.sh build RelWithDebInfo -DRIGPORT_PYTHON=ON -DRIGPORT_TESTS=ON
ctest --test-dir build --output-on-failure -j2

# Built as a shared library (BUILD_SHARED_LIBS): the tests and the CLI then link librigport.so,
# so the shared-library option is exercised by every test at no extra build. Built with clang-14
# (the fuzz build's compiler): with both sanitizers on it compiles the test files about three times
# faster than g++ 12 (27 s against 80 s for tests/cli/test_batch.cpp at -O2 on one core), which keeps
# the whole suite inside its time budget; the normal build above stays g++.
# The libFuzzer targets are built here too (RIGPORT_FUZZ: the library gets libFuzzer's coverage
# hooks, which the sanitizer runtime answers with no-ops in the tests), so the fuzz smoke run
# below needs no third build of the library: that build was about a sixth of the suite's time.
echo "== build-asan/ (clang-14, address,undefined; shared library; fuzz targets) at ${SECONDS} s"
# Line tables only (-g1): enough for the sanitizers' stack traces, and 6 to 17 % less compile time
# than -g for a library file (src/pipeline/convert.cpp 20.7 s -> 19.4 s, gltf_write.cpp 13.5 s -> 11.1 s).
scripts/build.sh build-asan RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DRIGPORT_SANITIZE=address,undefined -DBUILD_SHARED_LIBS=ON -DRIGPORT_PYTHON=OFF -DRIGPORT_FUZZ=ON
ASAN_OPTIONS="halt_on_error=1:print_stacktrace=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
  ctest --test-dir build-asan --output-on-failure -j2

# Each target from its seeds and regression inputs for a fixed time; any finding fails the suite.
fuzz_seconds="${RIGPORT_FUZZ_SMOKE_SECONDS:-15}"
echo "== fuzz smoke (build-asan/'s libFuzzer targets): every target for ${fuzz_seconds}s, at ${SECONDS} s"
RIGPORT_FUZZ_BUILD="$root/build-asan" scripts/fuzz.sh --smoke --seconds "$fuzz_seconds" --jobs "$(nproc)"

echo "== all tests passed in ${SECONDS} s"

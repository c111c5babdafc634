#!/usr/bin/env bash
# The whole test suite: set-up, a RelWithDebInfo build and its tests in build/, then the same
# tests under AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh

echo "== build/ (RelWithDebInfo)"
scripts/build.sh build RelWithDebInfo
ctest --test-dir build --output-on-failure -j2

echo "== build-asan/ (address,undefined)"
scripts/build.sh build-asan RelWithDebInfo -DRIGPORT_SANITIZE=address,undefined
ASAN_OPTIONS="halt_on_error=1:print_stacktrace=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
  ctest --test-dir build-asan --output-on-failure -j2

echo "== all tests passed"

#!/usr/bin/env bash
# Configures and builds rigport (the library, the CLI, the Python module and, unless
# -DRIGPORT_TESTS=OFF, the tests): scripts/build.sh [BUILD_DIR [BUILD_TYPE [extra cmake arguments...]]]
# Defaults: build/ and RelWithDebInfo. Example: scripts/build.sh build-asan RelWithDebInfo -DRIGPORT_SANITIZE=address,undefined
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-build}"
build_type="${2:-RelWithDebInfo}"
shift $(( $# > 2 ? 2 : $# ))

case "$build_dir" in
  /*) ;;
  *) build_dir="$root/$build_dir" ;;
esac

generator=()
# Keep whatever generator an existing build tree was configured with.
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi

# The Python module is part of the build (docs/python.md) unless the arguments say otherwise; a
# later -DRIGPORT_PYTHON=OFF wins. (A sanitizer build leaves it out by itself.)
cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="$build_type" -DRIGPORT_PYTHON=ON "$@"
cmake --build "$build_dir" -j "$(nproc)"

#!/usr/bin/env bash
# Installs everything rigport's build and tests need on a fresh Debian 12 machine: apt packages,
# node + npm (Debian's, only when missing), Debian's sources of meshoptimizer, simdjson and fmt for
# the statically linked CLI (.deps/src), and the pinned JS test oracles in tests/js (npm ci).
# Everything already in place is skipped, so a re-run costs a few dpkg queries and one hash.
#   scripts/setup.sh           everything: the build, the tests and their oracles (scripts/test.sh)
#   scripts/setup.sh --build   only what building the library, the CLI and the Python module and
#                              running the demo need (scripts/demo.sh): no test frameworks, peers,
#                              Blender or Chromium
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

build_only=0
if [ "${1:-}" = "--build" ]; then build_only=1; fi

# Building: the compiler, CMake and the libraries rigport links (nettle-dev: Nettle's SHA-256 for
# the conversion cache); the Python module's headers
# (and numpy, which its arrays are); zip for the Blender add-on's package.
packages=(
  build-essential cmake ninja-build g++ pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libglm-dev libmeshoptimizer-dev libsimdjson-dev libstb-dev libpugixml-dev libfast-float-dev zlib1g-dev libdeflate-dev libdraco-dev nettle-dev
  python3 python3-dev python3-pybind11 pybind11-dev python3-numpy zip
)
# Testing: GoogleTest, Benchmark, clang for the sanitizer and fuzz builds, the peers the tests
# compare with (assimp, libcal3d), gltfpack (meshopt-compressed inputs for the glTF reader),
# pytest, Dask's distributed (the batch on a cluster, docs/scale.md), Blender for the add-on and
# Chromium for the viewer, and DarkPlaces' dedicated server:
# the engine itself loads the IQM, MD3, MDL and MD2 that `convert --target` writes
# (tests/darkplaces/).
if [ "$build_only" -eq 0 ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    clang-14 libclang-rt-14-dev
    assimp-utils libassimp-dev libcal3d12-dev
    time python3-pytest python3-distributed
    gltfpack
    blender
    chromium
    darkplaces-server
  )
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi

# node and npm install the three.js `rigport view` embeds, and run the glTF oracles (tests/js). A
# node from elsewhere on PATH is kept as it is.
if ! command -v node >/dev/null 2>&1; then packages+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then packages+=(npm); fi

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also reports removed-but-configured packages; require "install ok installed".
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 18 ]; then
  echo "setup: node $(node --version) is too old for tests/js; need >= 18" >&2
  exit 1
fi

# Debian's sources of the C++ libraries the CLI links statically (cmake/static_cli.cmake).
"$root/scripts/fetch_static_deps.sh"

# The JS oracles: npm ci from the committed lock, skipped while node_modules was installed from
# this very lock (the stamp holds its hash), so re-runs are fast and need no network.
js="$root/tests/js"
stamp="$js/node_modules/.rigport-lock.sha256"
lock_hash="$(sha256sum "$js/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_hash" ]; then
  echo "setup: tests/js/node_modules up to date"
else
  echo "setup: npm ci in tests/js"
  npm ci --prefix "$js" --no-audit --no-fund
  echo "$lock_hash" >"$stamp"
fi

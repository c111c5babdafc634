#!/usr/bin/env bash
# Installs everything rigport's build and tests need on a fresh Debian 12 machine (apt only).
# Packages already installed are skipped, so a re-run costs a few dpkg queries.
set -euo pipefail

packages=(
  build-essential cmake ninja-build g++
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libglm-dev libmeshoptimizer-dev libsimdjson-dev libstb-dev libpugixml-dev libfast-float-dev
  clang-14 libclang-rt-14-dev
  assimp-utils libassimp-dev libcal3d12-dev
)

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also reports removed-but-configured packages; require "install ok installed".
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi

echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"

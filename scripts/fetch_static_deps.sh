#!/usr/bin/env bash
# Fetches the Debian source packages of the C++ libraries Debian ships only as shared libraries
# (meshoptimizer, simdjson, fmt), at exactly the versions installed, into .deps/src/, so that
# CMake can link the `rigport` CLI without any C++ shared library (cmake/static_cli.cmake):
# loading libstdc++.so and five other C++ libraries cost ~1 ms of every run's start.
# The sources come from Debian's archive through a private apt configuration (the system's apt
# sources are not changed); apt checks them against the archive's signed index. Without network
# the CLI links the shared libraries as before: a warning, not a failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.deps"

# source package=version of each installed -dev package, e.g. meshoptimizer=0.18+dfsg-2
wanted=()
for dev in libmeshoptimizer-dev libsimdjson-dev libfmt-dev; do
  wanted+=("$(dpkg-query -W -f='${source:Package}=${source:Version}' "$dev")")
done
stamp="$deps/src/.fetched"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wanted[*]}" ]; then
  echo "setup: .deps/src up to date (${wanted[*]})"
  exit 0
fi

echo "setup: fetching Debian sources ${wanted[*]} into .deps/src (for the statically linked CLI)"
apt_dir="$deps/apt"
rm -rf "$apt_dir" "$deps/src"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources" "$deps/src"
# The archive and suite the system already uses, as a deb-src entry.
cat >"$apt_dir/sources/debian-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/sources"
             -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
if ! apt-get "${apt_options[@]}" -qq update >"$apt_dir/log" 2>&1 ||
   ! (cd "$deps/src" && apt-get "${apt_options[@]}" -qq source "${wanted[@]}" >>"$apt_dir/log" 2>&1); then
  echo "setup: warning: could not fetch the Debian sources (see .deps/apt/log); the CLI will link the shared libraries" >&2
  rm -rf "$deps/src"
  exit 0
fi
rm -f "$deps/src"/*.tar.* "$deps/src"/*.dsc
echo "${wanted[*]}" >"$stamp"

#!/usr/bin/env bash
# The main job on the built-in sample: set-up, build, then write, inspect, validate and convert
# a generated model. Outputs go to out/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh
scripts/build.sh build RelWithDebInfo

rigport="$root/build/rigport"
mkdir -p out

run() {
  echo
  echo "\$ rigport $*"
  "$rigport" "$@"
}

run sample -o out/sample.iqm
run info out/sample.iqm
run validate out/sample.iqm
run convert out/sample.iqm -o out/sample_scaled.iqm -s 2 -v
run info --json out/sample_scaled.iqm
run convert out/sample.iqm -o out/sample.glb -v
run render out/sample.iqm -o out/sample.png
run render out/sample.iqm -o out/sample_sheet.png --sheet
run view out/sample.iqm -o out/sample.html
echo
echo "demo: wrote out/sample.iqm (and its texture out/sample_texture.png), out/sample_scaled.iqm, out/sample.glb,"
echo "      a picture out/sample.png, a contact sheet of both animations out/sample_sheet.png and"
echo "      out/sample.html, a page that shows the model in any browser, offline (double-click it)"
echo "      (out/sample.glb opens in Blender, three.js or any glTF viewer: skinned, textured, 2 animations)"

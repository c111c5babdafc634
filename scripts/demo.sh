#!/usr/bin/env bash
# The main job on the built-in sample: set-up (only what building and the demo need), a build of
# the library, the CLI and the Python module (no tests: scripts/test.sh builds and runs those),
# then write, inspect, validate, convert, draw and view a generated model. Outputs go to out/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh --build
# Release: no debug information, about a third less compile time than the tests' RelWithDebInfo
# (scripts/test.sh configures build/ again for itself).
scripts/build.sh build Release -DRIGPORT_TESTS=OFF

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
echo
echo "\$ PYTHONPATH=build/python python3 -c \"import rigport; ...\""
PYTHONPATH="$root/build/python" /usr/bin/python3 -c "import rigport; s = rigport.load('out/sample.iqm'); print('python: rigport.load read', s.vertex_count, 'vertices,', len(s.animations), 'animations')"

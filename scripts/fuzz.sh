#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/: clang-14, address,undefined, the whole library
# instrumented) and runs them from seeds (docs/fuzzing.md).
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--smoke] [TARGET...]
#
#   --seconds N  run each target for N seconds (default 60)
#   --jobs J     run J targets at the same time (default 1; each target is one process)
#   --cpu        N counts CPU seconds of each fuzzer, not wall-clock seconds (a shared, busy
#                machine: the run is stopped with SIGINT, which prints the final figures)
#   --wall-limit S  with --cpu: stop a target after S wall-clock seconds all the same (default 20 N)
#   --smoke      the test suite's bounded run: a fresh corpus per target, fixed seed, no saved corpus
#   TARGET       fuzz_iqm, iqm, ... (default: every target)
#
# Seeds per target come from $RIGPORT_CORPUS (default ../shared/corpus beside the checkout, when
# it exists; nothing from it is copied into the repository), from small images written here, and
# from tests/fuzz/regressions/<target>/ (minimised findings, always run). The corpus a campaign
# grows is kept in build-fuzz/fuzz-corpus/<target>/, findings go to build-fuzz/fuzz-findings/<target>/.
# Exit status: 0 when no target found anything, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RIGPORT_FUZZ_BUILD:-$root/build-fuzz}"
seconds=60
jobs=1
smoke=0
cpu=0
wall_limit=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --cpu) cpu=1; shift ;;
    --wall-limit) wall_limit="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) t="$1"; [[ "$t" == fuzz_* ]] || t="fuzz_$t"; targets+=("$t"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for src in "$root"/tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
for t in "${targets[@]}"; do
  [ -f "$root/tests/fuzz/$t.cpp" ] || { echo "fuzz.sh: no target $t (tests/fuzz/$t.cpp)" >&2; exit 2; }
done

corpus="${RIGPORT_CORPUS:-}"
if [ -z "$corpus" ] && [ -d "$root/../shared/corpus" ]; then corpus="$(cd "$root/../shared/corpus" && pwd)"; fi

# ---- build -----------------------------------------------------------------------------------
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
# A build folder configured with RIGPORT_FUZZ and the sanitizers already (scripts/test.sh's
# build-asan/, a shared library) is used as it is; any other is configured here.
if grep -q '^RIGPORT_FUZZ:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null && grep -q '^RIGPORT_SANITIZE:STRING=address,undefined$' "$build/CMakeCache.txt"; then
  echo "== fuzz build: $build (configured already)"
else
  echo "== fuzz build: $build (clang++-14, address,undefined, fuzzer)"
  cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DRIGPORT_FUZZ=ON -DRIGPORT_TESTS=OFF -DRIGPORT_SANITIZE=address,undefined >/dev/null
fi
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"

# ---- seeds -----------------------------------------------------------------------------------
seeds="$build/fuzz-seeds"
rm -rf "$seeds"

# add_files TARGET MAX_BYTES FILE...: copies the files no larger than MAX_BYTES into the target's seeds.
add_files() {
  local target="$1" max="$2"; shift 2
  mkdir -p "$seeds/$target"
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le "$max" ] || continue
    cp "$f" "$seeds/$target/$(basename "$(dirname "$f")")_$(basename "$f")"
  done
}

# add_text_prefix TARGET MAX_BYTES FILE...: text files, cut to whole lines within MAX_BYTES.
add_text_prefix() {
  local target="$1" max="$2"; shift 2
  mkdir -p "$seeds/$target"
  local f out
  for f in "$@"; do
    [ -f "$f" ] || continue
    out="$seeds/$target/$(basename "$f")"
    if [ "$(stat -c %s "$f")" -le "$max" ]; then cp "$f" "$out"; else head -c "$max" "$f" | head -n -1 >"$out"; fi
  done
}

# cfg_seed DIR OUT CFG_TEXT: a fuzz_cfg input (fuzz::split_parts): the .cfg text, then every
# member it names that exists in DIR (at most 64 KB each) as "\n@file NAME\n" + bytes. Lines
# naming a missing or larger file are left out of the .cfg.
cfg_seed() {
  local dir="$1" out="$2" text="$3" line key value members=() kept=""
  while IFS= read -r line; do
    line="${line%$'\r'}"
    key="${line%%=*}"; value="${line#*=}"
    case "$key" in
      skeleton|mesh|material|animation|morphanim|morphanimation)
        if [ -f "$dir/$value" ] && [[ "$value" != */* ]] && [ "$(stat -c %s "$dir/$value")" -le 65536 ]; then
          kept+="$line"$'\n'; members+=("$value")
        fi ;;
      *) kept+="$line"$'\n' ;;
    esac
  done <<<"$text"
  [ ${#members[@]} -gt 0 ] || return 0
  {
    printf '%s' "$kept"
    local m
    for m in "${members[@]}"; do printf '\n@file %s\n' "$m"; cat "$dir/$m"; done
  } >"$out"
}

# A .cfg for a folder of Cal3D files without one: the first skeleton and every other file.
cfg_text_for_folder() {
  local dir="$1" f skel=""
  for f in "$dir"/*.xsf "$dir"/*.csf; do [ -f "$f" ] && { skel="$(basename "$f")"; break; }; done
  [ -n "$skel" ] && echo "skeleton=$skel"
  for f in "$dir"/*.xmf "$dir"/*.cmf; do [ -f "$f" ] && echo "mesh=$(basename "$f")"; done
  for f in "$dir"/*.xrf "$dir"/*.crf; do [ -f "$f" ] && echo "material=$(basename "$f")"; done
  for f in "$dir"/*.xaf "$dir"/*.caf; do [ -f "$f" ] && echo "animation=$(basename "$f")"; done
  for f in "$dir"/*.xpf "$dir"/*.cpf; do [ -f "$f" ] && echo "morphanim=$(basename "$f")"; done
  return 0
}

# Tiny images of every kind stb decodes, for fuzz_images (the corpus holds no image files).
write_images() {
  local d="$seeds/fuzz_images"
  mkdir -p "$d"
  # 2x2 24-bit TGA, uncompressed, top-left origin; and the same run-length encoded.
  printf '\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x02\x00\x18\x20\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\xff' >"$d/rgb.tga"
  printf '\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x02\x00\x18\x20\x81\xff\x00\x00\x01\x00\xff\x00\x00\x00\xff' >"$d/rle.tga"
  # 8-bit grey TGA with alpha (type 3, 16 bits).
  printf '\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00\x10\x28\x80\xff' >"$d/grey.tga"
  # 2x2 24-bit BMP (rows padded to 4 bytes).
  printf 'BM\x46\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x10\x00\x00\x00\x13\x0b\x00\x00\x13\x0b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\xff\x00\x00\x00\x00\x00\xff\xff\xff\xff\x00\x00' >"$d/rgb.bmp"
  printf 'P6\n2 2\n255\n\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\xff' >"$d/rgb.ppm"
  printf 'P5\n3 1\n255\n\x00\x80\xff' >"$d/grey.pgm"
  # 1x1 GIF89a.
  printf 'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;' >"$d/red.gif"
  # 1x1 Radiance HDR, flat pixels.
  printf '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n\x80\x80\x80\x81' >"$d/grey.hdr"
  # 1x1 PSD, 3 channels, raw.
  printf '8BPS\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x08\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x80\x00' >"$d/rgb.psd"
  # 1x1 PNG (passes through unconverted).
  printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82' >"$d/red.png"
}

# compressed_gltf_seeds TARGET GLB...: each GLB compressed the ways the reader decodes (docs/gltf.md
# §7.1), so the fuzzer starts inside the meshopt and Draco decoders: gltfpack -cc (meshopt,
# quantization, texture transforms) and tests/js/draco.mjs (Draco) when node and its packages are
# installed. Outputs above 512 KB are left out, as for the corpus.
compressed_gltf_seeds() {
  local target="$1" f out; shift
  for f in "$@"; do
    [ "$(stat -c %s "$f")" -le 2097152 ] || continue
    out="$seeds/$target/meshopt_$(basename "$f")"
    if command -v gltfpack >/dev/null 2>&1 && gltfpack -i "$f" -o "$out" -cc >/dev/null 2>&1; then
      [ "$(stat -c %s "$out")" -le 524288 ] || rm -f "$out"
    fi
    out="$seeds/$target/draco_$(basename "$f")"
    if command -v node >/dev/null 2>&1 && [ -d "$root/tests/js/node_modules/draco3dgltf" ] &&
      node "$root/tests/js/draco.mjs" "$f" "$out" >/dev/null 2>&1; then
      [ "$(stat -c %s "$out")" -le 524288 ] || rm -f "$out"
    fi
  done
  return 0
}

make_seeds() {
  local t="$1" c="$corpus"
  mkdir -p "$seeds/$t"
  shopt -s nullglob globstar
  case "$t" in
    fuzz_iqm) [ -n "$c" ] && add_files "$t" 307200 "$c"/iqm/*.iqm ;;
    fuzz_iqe) [ -n "$c" ] && add_text_prefix "$t" 65536 "$c"/iqe/*.iqe ;;
    fuzz_md5) [ -n "$c" ] && add_text_prefix "$t" 65536 "$c"/md5/*.md5mesh "$c"/md5/*.md5anim ;;
    fuzz_smd) [ -n "$c" ] && add_text_prefix "$t" 65536 "$c"/smd/*.smd "$c"/smd/*.vta ;;
    fuzz_obj) [ -n "$c" ] && add_text_prefix "$t" 65536 "$c"/obj/*.obj "$c"/obj/*.mtl ;;
    fuzz_gltf)
      if [ -n "$c" ]; then
        add_files "$t" 524288 "$c"/gltf/*.gltf "$c"/gltf/*.glb
        compressed_gltf_seeds "$t" "$c"/gltf/*.glb
      fi ;;
    fuzz_cal3d_xml) [ -n "$c" ] && add_files "$t" 131072 "$c"/cal3d/**/*.x[smarp]f ;;
    fuzz_cal3d_binary) [ -n "$c" ] && add_files "$t" 131072 "$c"/cal3d/**/*.c[smarp]f ;;
    fuzz_joe) [ -n "$c" ] && add_files "$t" 307200 "$c"/joe/*.joe ;;
    fuzz_jpk) [ -n "$c" ] && add_files "$t" 307200 "$c"/joe/*.jpk ;;
    fuzz_hlmdl) [ -n "$c" ] && add_files "$t" 307200 "$c"/mdl/*hl1_*.mdl ;;
    fuzz_md2) [ -n "$c" ] && add_files "$t" 307200 "$c"/md2/*.md2 ;;
    fuzz_mdl) [ -n "$c" ] && add_files "$t" 524288 "$c"/mdl/assimp_assimp__steg.mdl "$c"/mdl/assimp_assimp__tekmechbot.MDL ;;
    fuzz_md3) [ -n "$c" ] && add_files "$t" 307200 "$c"/md3/*.md3 ;;
    fuzz_fbx) [ -n "$c" ] && add_files "$t" 307200 "$c"/fbx/*.fbx "$c"/fbx/*.FBX "$c"/fbx-cases/*.fbx ;;
    fuzz_images) write_images ;;
    fuzz_cfg)
      if [ -n "$c" ]; then
        local f dir n=0
        for f in "$c"/cal3d/**/*.cfg; do
          n=$((n + 1)); cfg_seed "$(dirname "$f")" "$seeds/$t/cfg$n-$(basename "$f")" "$(cat "$f")"
        done
        for dir in "$c"/cal3d/**/; do
          n=$((n + 1)); cfg_seed "$dir" "$seeds/$t/folder$n.cfg" "$(cfg_text_for_folder "$dir")"
        done
      fi ;;
    fuzz_roundtrip)
      if [ -n "$c" ]; then
        add_files "$t" 65536 "$c"/iqm/*.iqm "$c"/gltf/*.gltf "$c"/gltf/*.glb "$c"/cal3d/**/*.[xc][smarp]f "$c"/joe/*.joe
        add_text_prefix "$t" 32768 "$c"/iqe/*.iqe
      fi ;;
  esac
  shopt -u nullglob globstar
  return 0
}

dict_for() {
  case "$1" in
    fuzz_iqe) echo "$root/tests/fuzz/dict/iqe.dict" ;;
    fuzz_md5) echo "$root/tests/fuzz/dict/md5.dict" ;;
    fuzz_smd) echo "$root/tests/fuzz/dict/smd.dict" ;;
    fuzz_obj) echo "$root/tests/fuzz/dict/obj.dict" ;;
    fuzz_gltf) echo "$root/tests/fuzz/dict/gltf.dict" ;;
    fuzz_cal3d_xml) echo "$root/tests/fuzz/dict/cal3d_xml.dict" ;;
    fuzz_cfg) echo "$root/tests/fuzz/dict/cfg.dict" ;;
    fuzz_fbx) echo "$root/tests/fuzz/dict/fbx.dict" ;;
  esac
}

# ---- runs ------------------------------------------------------------------------------------
logs="$build/fuzz-logs"
mkdir -p "$logs"
[ -z "$corpus" ] && echo "fuzz.sh: no corpus (set RIGPORT_CORPUS); seeds are the regression inputs only" >&2
run_dir="$(mktemp -d "${TMPDIR:-/tmp}/rigport-fuzz.XXXXXX")"
trap 'rm -rf "$run_dir"' EXIT

run_target() {
  local t="$1" work findings args=()
  findings="$build/fuzz-findings/$t"
  mkdir -p "$findings"
  if [ "$smoke" = 1 ]; then work="$run_dir/$t"; args+=(-seed=1); else work="$build/fuzz-corpus/$t"; fi
  mkdir -p "$work"
  local dict; dict="$(dict_for "$t")"
  [ -n "$dict" ] && args+=(-dict="$dict")
  local dirs=("$work" "$seeds/$t")
  [ -d "$root/tests/fuzz/regressions/$t" ] && dirs+=("$root/tests/fuzz/regressions/$t")
  # -timeout is wall-clock: at nice 19 on a busy machine an input of 0.05 CPU-seconds has waited
  # 35 s for the processor, so only a unit stuck for two minutes counts as a hang.
  local wall="$seconds"
  [ "$cpu" = 1 ] && wall="${wall_limit:-$((seconds * 20))}"  # a bound in case the machine is busier still
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
    nice -n 19 "$build/$t" -max_total_time="$wall" -timeout=120 -report_slow_units=120 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "${args[@]}" "${dirs[@]}" >"$logs/$t.log" 2>&1 &
  local pid=$! ticks used=0
  ticks="$(getconf CLK_TCK)"
  # CPU seconds used: utime + stime (fields 14 and 15 of /proc/PID/stat; the name in field 2 has
  # no spaces here), sampled every 2 s.
  local now
  while kill -0 "$pid" 2>/dev/null; do
    now="$(awk -v t="$ticks" '{ print int(($14 + $15) / t) }' "/proc/$pid/stat" 2>/dev/null || true)"
    [ -n "$now" ] && used="$now"
    if [ "$cpu" = 1 ] && [ "$used" -ge "$seconds" ]; then kill -INT "$pid" 2>/dev/null || true; break; fi
    sleep 2
  done
  echo "$used" >"$run_dir/$t.cpu"
  # A fuzzer stopped by a signal or a finding leaves its scratch folder (fuzz_common.hpp) behind.
  rm -rf "/dev/shm/rigport-${t#fuzz_}-$pid" "${TMPDIR:-/tmp}/rigport-${t#fuzz_}-$pid"
  local status=0
  wait "$pid" || status=$?
  # A run stopped by SIGINT at its CPU budget ends with "run interrupted" and exit 72: no finding.
  if [ "$status" != 0 ] && [ "$cpu" = 1 ] && [ "$used" -ge "$seconds" ] && grep -q 'run interrupted' "$logs/$t.log"; then status=0; fi
  echo "$status" >"$run_dir/$t.status"
}

summary() {
  local t="$1" status="$2" log="$logs/$1.log" last runs
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  printf '%-18s cpu %-5s runs %-9s cov %-6s ft %-7s corpus %-6s %s\n' "$t" "$(cat "$run_dir/$t.cpu" 2>/dev/null || echo ?)s" "${runs:-?}" \
    "$(grep -o 'cov: [0-9]*' <<<"$last" | cut -d' ' -f2)" "$(grep -o 'ft: [0-9]*' <<<"$last" | cut -d' ' -f2)" \
    "$(grep -o 'corp: [0-9]*' <<<"$last" | cut -d' ' -f2)" \
    "$([ "$status" = 0 ] && echo "no finding" || echo "FINDING: $(grep -m1 -E 'ERROR: |fuzz finding|SUMMARY: ' "$log" || echo "exit $status"); log $log")"
}

for t in "${targets[@]}"; do make_seeds "$t"; done
echo "== fuzzing ${#targets[@]} targets for ${seconds}s each, $jobs at a time (logs in $logs)"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait
failed=0
for t in "${targets[@]}"; do
  status="$(cat "$run_dir/$t.status" 2>/dev/null || echo lost)"
  [ "$status" = 0 ] || failed=1
  summary "$t" "$status"
done
if [ "$failed" = 1 ]; then
  echo "fuzz.sh: findings (inputs in $build/fuzz-findings/); reproduce with $build/TARGET FILE" >&2
  exit 1
fi

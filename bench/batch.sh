#!/usr/bin/env bash
# Batch conversion benchmark (docs/speed.md, "Many files: batch and JPK extract"): generates a folder of N models of mixed formats from the
# built-in sample (IQM, IQE, glTF binary, VDrift JOE, Cal3D .cfg characters with their parts,
# MD5 mesh + animations), then times `rigport batch GEN -o OUT --format FMT -j J` for each J,
# REPEAT times, and prints the median wall time, the median user+system CPU time and models per
# second; beside it the same batch with --cache (docs/scale.md): a first run into an empty cache
# (converts and stores every model) and a second one (every model a hit), with the cache's size.
# With several binaries (before and after a change) the runs alternate A B A B ...
#
#   bench/batch.sh [RIGPORT_BINARY ...] [--models N] [--format FMT] [--jobs "1 2"] [--repeat R]
#
# Defaults: build/rigport, 500 models, glb, jobs 1 and 2, 5 repeats. Uses a temporary folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binaries=()
models=500
format=glb
jobs="1 2"
repeat=5
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) binaries+=("$1"); shift ;;
  esac
done
[ ${#binaries[@]} -gt 0 ] || binaries=("$root/build/rigport")
for b in "${binaries[@]}"; do [ -x "$b" ] || { echo "batch.sh: no rigport binary at $b (scripts/build.sh first)" >&2; exit 2; }; done
rigport="${binaries[0]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The sample once per source format, then copies: each model is its own file (or .cfg folder).
src="$work/src"
mkdir -p "$src/cal3d" "$src/md5"
"$rigport" sample -o "$src/sample.iqm" >/dev/null
for ext in iqe glb joe; do "$rigport" convert "$src/sample.iqm" -o "$src/sample.$ext" -q; done
"$rigport" convert "$src/sample.iqm" -o "$src/cal3d/char.cfg" -q
"$rigport" convert "$src/sample.iqm" -o "$src/md5/model.md5mesh" -q
kinds=(iqm iqe glb joe cal3d md5)
gen="$work/gen"
for ((i = 0; i < models; ++i)); do
  kind="${kinds[i % ${#kinds[@]}]}"
  dir="$gen/$kind/$((i / 100))"
  mkdir -p "$dir"
  case "$kind" in
    cal3d) mkdir -p "$dir/char$i" && cp "$src"/cal3d/* "$dir/char$i/" ;;
    md5) cp "$src/md5/model.md5mesh" "$dir/model$i.md5mesh" ;;
    *) cp "$src/sample.$kind" "$dir/model$i.$kind" ;;
  esac
done
files=$(find "$gen" -type f | wc -l)
bytes=$(du -sb "$gen" | cut -f1)
echo "generated $models models ($files files, $bytes bytes) in $gen: ${kinds[*]}, round robin"
echo "batch --format $format; $(nproc) hardware threads; median of $repeat; wall and user+system CPU"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# One timed batch: run KEY BINARY J [batch options...]; adds its wall and CPU time under KEY.
run() {
  local key="$1" binary="$2" j="$3"
  shift 3
  rm -rf "$work/out"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$binary" batch "$gen" -o "$work/out" --format "$format" -j "$j" -q "$@" 2>"$work/log" ||
    { grep -m3 FAILED "$work/log"; tail -1 "$work/log"; exit 1; }
  read -r e u s <"$work/time"
  walls[$key]+="$e "
  cpus[$key]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
}
for j in $jobs; do
  declare -A walls=() cpus=()
  for ((r = 0; r < repeat; ++r)); do
    for ((k = 0; k < ${#binaries[@]}; ++k)); do
      run "$k" "${binaries[k]}" "$j"
      rm -rf "$work/cache"
      run "$k-miss" "${binaries[k]}" "$j" --cache "$work/cache"
      run "$k-hit" "${binaries[k]}" "$j" --cache "$work/cache"
      grep -q "($models from the cache)" "$work/log" || { echo "batch.sh: the second cached run converted models: $(tail -1 "$work/log")" >&2; exit 1; }
    done
  done
  for ((k = 0; k < ${#binaries[@]}; ++k)); do
    for key in "$k" "$k-miss" "$k-hit"; do
      case "$key" in *-miss) what="--cache, empty" ;; *-hit) what="--cache, all hits" ;; *) what="no cache" ;; esac
      m=$(printf '%s\n' ${walls[$key]} | median)
      c=$(printf '%s\n' ${cpus[$key]} | median)
      printf -- "%s -j %s, %s: %.3f s median (%s), CPU %.3f s, %.0f models/s\n" "${binaries[k]}" "$j" "$what" "$m" "${walls[$key]}" "$c" \
        "$(awk -v n="$models" -v t="$m" 'BEGIN { print n / t }')"
    done
  done
  echo "cache: $(find "$work/cache" -type f | wc -l) files, $(du -sb "$work/cache" | cut -f1) bytes (outputs: $(du -sb "$work/out" | cut -f1) bytes)"
done

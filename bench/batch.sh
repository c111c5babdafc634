#!/usr/bin/env bash
# Batch conversion benchmark (issue 16): generates a folder of N models of mixed formats from the
# built-in sample (IQM, IQE, glTF binary, VDrift JOE, Cal3D .cfg characters with their parts,
# MD5 mesh + animations), then times `rigport batch GEN -o OUT --format FMT -j J` for each J,
# REPEAT times, and prints the median wall time and models per second.
#
#   bench/batch.sh [RIGPORT_BINARY] [--models N] [--format FMT] [--jobs "1 2"] [--repeat R]
#
# Defaults: build/rigport, 500 models, glb, jobs 1 and 2, 5 repeats. Uses a temporary folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rigport="$root/build/rigport"
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
    *) rigport="$1"; shift ;;
  esac
done
[ -x "$rigport" ] || { echo "batch.sh: no rigport binary at $rigport (scripts/build.sh first)" >&2; exit 2; }

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
echo "rigport: $rigport; batch --format $format; $(nproc) hardware threads; median of $repeat"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for j in $jobs; do
  times=()
  for ((r = 0; r < repeat; ++r)); do
    rm -rf "$work/out"
    start=$(date +%s.%N)
    "$rigport" batch "$gen" -o "$work/out" --format "$format" -j "$j" -q 2>"$work/log" || { grep -m3 FAILED "$work/log"; tail -1 "$work/log"; exit 1; }
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')")
  done
  m=$(printf '%s\n' "${times[@]}" | median)
  summary=$(tail -1 "$work/log")
  printf -- "-j %s: %.3f s median (%s), %.0f models/s; last run: %s\n" "$j" "$m" "$(printf '%.3f ' "${times[@]}")" \
    "$(awk -v n="$models" -v t="$m" 'BEGIN { print n / t }')" "$summary"
done

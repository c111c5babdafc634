#!/usr/bin/env bash
# JPK extract benchmark (docs/speed.md, "Many files: batch and JPK extract"): generates a pack of 737 members (~510 KB, in 8
# folders, sizes 64..1,264 bytes from a fixed seed) with `rigport pack create`, then times
# `rigport pack extract PACK -o OUT` into an existing folder (every member replaced, as a
# re-extract does; with --fresh into a new folder each time) REPEAT times for each binary,
# interleaved (A B A B ...), and prints the median wall time and the median user+system CPU time.
#
#   bench/jpk.sh [RIGPORT_BINARY ...] [--members N] [--repeat R] [--fresh]
#
# Defaults: build/rigport, 737 members, 11 repeats. Uses a temporary folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binaries=()
members=737
repeat=11
fresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --members) members="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) binaries+=("$1"); shift ;;
  esac
done
[ ${#binaries[@]} -gt 0 ] || binaries=("$root/build/rigport")
for b in "${binaries[@]}"; do [ -x "$b" ] || { echo "jpk.sh: no rigport binary at $b" >&2; exit 2; }; done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Member bytes: a deterministic stream (awk's rand with a fixed seed), cut into members.
src="$work/src"
awk -v n="$members" -v dir="$src" 'BEGIN {
  srand(17)
  for (i = 0; i < n; ++i) {
    folder = sprintf("%s/part%d", dir, i % 8)
    if (!(folder in made)) { system("mkdir -p " folder); made[folder] = 1 }
    size = 64 + int(rand() * 1200)
    file = sprintf("%s/member%04d.joe", folder, i)
    line = ""
    while (length(line) < size) line = line sprintf("%08x", int(rand() * 4294967295))
    printf "%s", substr(line, 1, size) > file
    close(file)
  }
}'
pack="$work/bench.jpk"
"${binaries[0]}" pack create "$src" -o "$pack"
echo "pack: $members members, $(stat -c %s "$pack") bytes; extract into $([ $fresh = 1 ] && echo "a new" || echo "an existing") folder; median of $repeat"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A walls cpus
for ((k = 0; k < ${#binaries[@]}; ++k)); do "${binaries[k]}" pack extract "$pack" -o "$work/out$k"; done  # first extract: folders made
for ((r = 0; r < repeat; ++r)); do
  for ((k = 0; k < ${#binaries[@]}; ++k)); do
    [ $fresh = 0 ] || rm -rf "$work/out$k"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "${binaries[k]}" pack extract "$pack" -o "$work/out$k"
    read -r e u s <"$work/time"
    walls[$k]+="$e "
    cpus[$k]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
  done
done
for ((k = 0; k < ${#binaries[@]}; ++k)); do
  cmp <(cd "$work/out$k" && find . -type f | sort | xargs cat) <(cd "$src" && find . -type f | sort | xargs cat) >/dev/null ||
    { echo "jpk.sh: ${binaries[k]} extracted other bytes" >&2; exit 1; }
  w=$(printf '%s\n' ${walls[$k]} | median)
  c=$(printf '%s\n' ${cpus[$k]} | median)
  printf "%s: wall %.3f s, CPU (user+sys) %.3f s\n" "${binaries[k]}" "$w" "$c"
done

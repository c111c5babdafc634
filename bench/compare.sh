#!/usr/bin/env bash
# rigport against its peers (the reference iqm compiler, assimp, libcal3d's cal3d_converter), whole
# process, interleaved in one run; prints a Markdown table with ratios. See bench/compare.py.
#   bench/compare.sh [--rigport BIN] [--repeat N] [--pin] [--quick] [--only WORD]
set -euo pipefail
exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/compare.py" "$@"

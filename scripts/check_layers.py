#!/usr/bin/env python3
"""The house's one rule, checked: nothing below includes anything above (docs/architecture.md).

Each source file under src/ belongs to a layer by its folder; every `#include "..."` of a file
under src/ must name a file of its own layer or one below. Public headers (include/rigport/) are
the library's face, declarations only, and are not layered. Prints each upward include and exits
1 when there is one.
    scripts/check_layers.py [SOURCE_ROOT]
"""
import os
import re
import sys

# Top floor first. A format folder may use formats/common, process, io, support and model, never
# another format folder (checked separately below) nor the pipeline.
LAYERS = ["pipeline", "render", "formats", "formats/common", "process", "io", "support", "model"]


def layer_of(path):
    """The layer of a path relative to src/ ("formats/iqm/iqm.hpp" -> "formats")."""
    if path.startswith("formats/common/"):
        return "formats/common"
    top = path.split("/", 1)[0]
    return top if top in LAYERS else None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    src = os.path.join(root, "src")
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    problems, files = [], 0
    for folder, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".cpp", ".hpp", ".h")):
                continue
            files += 1
            rel = os.path.relpath(os.path.join(folder, name), src).replace(os.sep, "/")
            mine = layer_of(rel)
            if mine is None:
                problems.append(f"src/{rel}: in no layer (folders: {', '.join(LAYERS)})")
                continue
            text = open(os.path.join(folder, name), encoding="utf-8").read()
            for target in include.findall(text):
                theirs = layer_of(target)
                if theirs is None:
                    continue  # rigport/... public headers, generated headers, third-party
                if LAYERS.index(theirs) < LAYERS.index(mine):
                    problems.append(f"src/{rel}: includes {target} ({theirs} is above {mine})")
                # Formats never include each other: each folder stands alone.
                if mine == "formats" and theirs == "formats" and rel.count("/") >= 2 and target.count("/") >= 2:
                    if rel.split("/")[1] != target.split("/")[1]:
                        problems.append(f"src/{rel}: includes {target} (another format's folder)")
    for p in problems:
        print(p)
    print(f"check_layers: {files} files, {len(problems)} upward includes", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

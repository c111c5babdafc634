// The synthetic IQE model of the IQE benchmarks: a skinned grid bent by a chain of joints.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace rigport::bench {

// A skinned grid of `cells` x `cells` quads (2 triangles each) bent by a chain of `joints`
// joints along X, with `frames` frames of animation; no normals, so a compile generates them.
inline std::string generate_iqe(int cells, int joints, int frames) {
    std::string out = "# Inter-Quake Export\n";
    for (int j = 0; j < joints; ++j) out += fmt::format("joint \"j{}\" {}\n", j, j - 1);
    for (int j = 0; j < joints; ++j) out += fmt::format("pq {} 0 0 0 0 0 -1\n", j == 0 ? 0.0 : 1.0);
    out += "mesh \"grid\"\nmaterial \"grid.png\"\n";
    const int n = cells + 1;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double fx = double(x) / cells * joints, fy = double(y) / cells;
            const int j = std::min(joints - 1, int(fx));
            out += fmt::format("vp {} {} {}\nvt {} {}\nvb {} 0.75 {} 0.25\n", fx, fy * 10, 0.1 * std::sin(fx + fy),
                               double(x) / cells, double(y) / cells, j, std::min(joints - 1, j + 1));
        }
    for (int y = 0; y < cells; ++y)
        for (int x = 0; x < cells; ++x) {
            const int a = y * n + x, b = a + 1, c = a + n, d = c + 1;
            out += fmt::format("fm {} {} {}\nfm {} {} {}\n", a, c, b, b, c, d);
        }
    out += "animation \"bend\"\nframerate 30\nloop\n";
    for (int f = 0; f < frames; ++f) {
        out += fmt::format("frame {}\n", f);
        const double angle = 0.02 * std::sin(f * 0.1);
        for (int j = 0; j < joints; ++j)
            out += fmt::format("pq {} 0 0 0 0 {} {}\n", j == 0 ? 0.0 : 1.0, std::sin(angle / 2), -std::cos(angle / 2));
    }
    return out;
}

}  // namespace rigport::bench

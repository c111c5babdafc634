// Degenerate triangles: the one rule every route of the compiler applies (docs/iqm.md §5.1, "Where
// rigport's IQM output differs"; §3.2 step 4, where the reference compiler drops them).
#include "rigport/process.hpp"

namespace rigport {

bool is_degenerate(const Mesh& mesh, const Triangle& t) {
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) return true;
    const auto& p = mesh.positions;
    if (t[0] >= p.size() || t[1] >= p.size() || t[2] >= p.size()) return false;  // not ours to judge
    return p[t[0]] == p[t[1]] || p[t[1]] == p[t[2]] || p[t[0]] == p[t[2]];
}

uint64_t drop_degenerate_triangles(Scene& scene) {
    uint64_t dropped = 0;
    for (auto& mesh : scene.meshes) {
        // Cal3D's level-of-detail data counts the faces each collapse removes, in face order.
        if (mesh.has_lod()) continue;
        const size_t before = mesh.triangles.size();
        std::erase_if(mesh.triangles, [&](const Triangle& t) { return is_degenerate(mesh, t); });
        dropped += before - mesh.triangles.size();
    }
    return dropped;
}

}  // namespace rigport

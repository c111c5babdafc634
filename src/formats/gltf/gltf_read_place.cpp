// glTF reader: meshes placed in the scene (glTF 2.0 §3.7.3 skinning; docs/gltf.md §8.3): static
// meshes baked to world space, meshes under joints bound rigidly, skinned meshes bound to their
// skin's joints, with vertices baked where inverse bind matrices differ from the rest pose.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

using D3 = std::array<double, 3>;
static_assert(sizeof(Mat4) == 16 * sizeof(double), "Mat4 is 16 contiguous doubles (copied flat below)");

D3 linear(const Mat4& m, const float* v) {
    return {m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2], m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
            m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2]};
}
double length(const D3& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
void store(float* out, const D3& v, double scale) {
    for (int k = 0; k < 3; ++k) out[k] = float(v[k] * scale);
}
double determinant(const Mat4& m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
           m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
}
// The inverse transpose of the linear part, for normals (as a Mat4 whose linear part it is).
Mat4 normal_matrix(const Mat4& m) {
    const Mat4 inv = inverse_affine(m);
    Mat4 n = identity_matrix();
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) n[c][r] = inv[r][c];
    return n;
}

// Vertex v mapped by m: position, unit normal, unit tangent (w flips with a mirror) and the
// morph deltas, scaled like the attribute they displace.
void map_vertex(Mesh& mesh, uint32_t v, const Mat4& m, const Mat4& nm, bool mirror) {
    const auto p = transform_point(m, {mesh.positions[v][0], mesh.positions[v][1], mesh.positions[v][2]});
    store(mesh.positions[v].data(), p, 1.0);
    double nscale = 1.0, tscale = 1.0;
    if (!mesh.normals.empty()) {
        const D3 n = linear(nm, mesh.normals[v].data());
        const double len = length(n);
        nscale = len > 0 ? 1.0 / len : 1.0;
        if (len > 0) store(mesh.normals[v].data(), n, nscale);
    }
    if (!mesh.tangents.empty()) {
        Vec4& t = mesh.tangents[v];
        const D3 d = linear(m, t.data());
        const double len = length(d);
        tscale = len > 0 ? 1.0 / len : 1.0;
        if (len > 0) store(t.data(), d, tscale);
        if (mirror) t[3] = -t[3];
    }
    for (auto& mt : mesh.morph_targets) {
        if (!mt.position_deltas.empty()) store(mt.position_deltas[v].data(), linear(m, mt.position_deltas[v].data()), 1.0);
        if (!mt.normal_deltas.empty()) store(mt.normal_deltas[v].data(), linear(nm, mt.normal_deltas[v].data()), nscale);
        if (!mt.tangent_deltas.empty()) store(mt.tangent_deltas[v].data(), linear(m, mt.tangent_deltas[v].data()), tscale);
    }
}

bool is_identity(const Mat4& m) { return m == identity_matrix(); }

// The largest difference of W_k * IBM_k from identity, translation relative to the joint's size.
double deviation(const Mat4& d, const Mat4& w) {
    double worst = 0;
    const double size = 1 + length({w[3][0], w[3][1], w[3][2]});
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) worst = std::max(worst, std::fabs(d[c][r] - (c == r ? 1.0 : 0.0)) / (c == 3 ? size : 1.0));
    return worst;
}

class Placer {
public:
    Placer(Reader& r, Plan& plan) : r_(r), plan_(plan), bind_(plan.skins.size()) {}
    bool run();

private:
    bool bind_skinned(Mesh& mesh, uint32_t skin_index);
    const std::vector<Mat4>* skin_bind(uint32_t skin_index);

    Reader& r_;
    Plan& plan_;
    std::vector<std::optional<std::vector<Mat4>>> bind_;  // per skin: W_k * IBM_k
    std::vector<bool> baked_;                             // per skin: differs from identity
};

// W_k * IBM_k per joint of a skin (identity IBMs when the skin gives none), computed once.
const std::vector<Mat4>* Placer::skin_bind(uint32_t s) {
    if (bind_[s]) return &*bind_[s];
    const SkinInfo& skin = plan_.skins[s];
    std::vector<Mat4> d(skin.joints.size(), identity_matrix());
    if (skin.inverse_bind_matrices != none) {
        const Accessor* a = r_.accessor(skin.inverse_bind_matrices);
        if (!a) return nullptr;
        if (a->components != 16 || a->type != "MAT4" || a->count < skin.joints.size())
            return r_.malformed(fmt::format("/skins/{}/inverseBindMatrices", s),
                                fmt::format("accessor {} is {} x {}; expected MAT4 x {} (one per joint)", skin.inverse_bind_matrices, a->type, a->count, skin.joints.size())),
                   nullptr;
        for (size_t k = 0; k < d.size(); ++k)
            for (uint32_t c = 0; c < 16; ++c) d[k][c / 4][c % 4] = a->value(k, c);
    }
    double worst = 0, spread = 0;
    for (size_t k = 0; k < d.size(); ++k) {
        const Mat4& w = plan_.nodes[skin.joints[k]].world;
        d[k] = multiply(w, d[k]);
        worst = std::max(worst, deviation(d[k], w));
        Mat4 relative = multiply(d[k], inverse_affine(d[0]));  // one matrix for all joints: a bind-shape matrix
        spread = std::max(spread, deviation(relative, w));
    }
    if (baked_.size() < plan_.skins.size()) baked_.resize(plan_.skins.size());
    baked_[s] = worst > 1e-4;
    if (baked_[s])
        r_.warn(WarningCode::BindPoseMismatch,
                spread > 1e-4 ? fmt::format("skin {}: inverse bind matrices differ from the joints' rest pose, by up to {:.3g} and not alike "
                                            "over the joints; skinned vertices baked at the rest pose (exact there, approximate in poses far from it)", s, worst)
                              : fmt::format("skin {}: inverse bind matrices hold one extra transform for every joint (a bind-shape matrix, up to "
                                            "{:.3g} from identity); skinned vertices baked with it", s, worst));
    bind_[s] = std::move(d);
    return &*bind_[s];
}

bool Placer::bind_skinned(Mesh& mesh, uint32_t s) {
    const std::vector<Mat4>* d = skin_bind(s);
    if (!d) return false;
    const SkinInfo& skin = plan_.skins[s];
    SkinInfluences& inf = mesh.skin;
    if (baked_[s]) {
        // Neighbouring vertices mostly share their blend: the normal matrix (an inverse) of the
        // previous one is reused when the blended matrix is bit for bit the same.
        Mat4 last{}, last_nm{};
        bool have_last = false, last_mirror = false;
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            double total = 0;
            for (uint32_t i = inf.offsets[v]; i < inf.offsets[v + 1]; ++i) total += inf.influences[i].weight;
            if (!(total > 0)) continue;
            // m = sum of D_joint * weight / total, each entry as before, over flat arrays of 16 the
            // compiler can compute two or four at a time (the same IEEE operations per entry).
            double acc[16] = {}, dj[16];
            for (uint32_t i = inf.offsets[v]; i < inf.offsets[v + 1]; ++i) {
                std::memcpy(dj, &(*d)[inf.influences[i].joint], sizeof dj);
                const double w = inf.influences[i].weight;
                for (int k = 0; k < 16; ++k) acc[k] += dj[k] * w / total;
            }
            Mat4 m;
            std::memcpy(&m, acc, sizeof m);
            if (!have_last || std::memcmp(&m, &last, sizeof(Mat4)) != 0) {
                last = m;
                last_nm = normal_matrix(m);
                last_mirror = determinant(m) < 0;
                have_last = true;
            }
            map_vertex(mesh, v, m, last_nm, last_mirror);
        }
    }
    // Skin slots -> joints; two slots naming one node become one influence.
    SkinInfluences merged;
    merged.offsets.push_back(0);
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
        const size_t first = merged.influences.size();
        for (uint32_t i = inf.offsets[v]; i < inf.offsets[v + 1]; ++i) {
            const uint32_t joint = uint32_t(plan_.nodes[skin.joints[inf.influences[i].joint]].joint);
            auto same = std::find_if(merged.influences.begin() + first, merged.influences.end(), [&](const Influence& x) { return x.joint == joint; });
            if (same != merged.influences.end()) same->weight += inf.influences[i].weight;
            else merged.influences.push_back({joint, inf.influences[i].weight});
        }
        merged.offsets.push_back(uint32_t(merged.influences.size()));
    }
    inf = std::move(merged);
    return true;
}

bool Placer::run() {
    auto& nodes = plan_.nodes;
    plan_.node_meshes.assign(nodes.size(), {});
    for (uint32_t n : plan_.order) {
        const NodeInfo& node = nodes[n];
        if (!node.in_scene || node.mesh == none) continue;
        const Json* m = r_.item("meshes", node.mesh);
        const std::string mesh_path = fmt::format("/meshes/{}", node.mesh);
        const Json* prims = m ? r_.array(*m, "primitives", mesh_path) : nullptr;
        std::string name;
        if (!r_.ok() || !r_.string(*m, "name", mesh_path, name)) return false;
        if (!prims || prims->empty()) return r_.malformed(mesh_path + "/primitives", "missing or empty");
        if (name.empty()) name = node.name.empty() ? fmt::format("mesh_{}", node.mesh) : node.name;
        const uint32_t skin = node.skin != none && plan_.skins[node.skin].used ? node.skin : none;
        for (uint32_t p = 0; p < prims->size(); ++p) {
            Primitive prim;
            if (!read_primitive(r_, node.mesh, p, skin == none ? none : uint32_t(plan_.skins[skin].joints.size()), prim)) return false;
            Mesh& mesh = prim.mesh;
            if (mesh.positions.empty()) continue;
            mesh.name = prims->size() > 1 ? fmt::format("{}_{}", name, p) : name;
            if (prim.skinned) {
                if (!bind_skinned(mesh, skin)) return false;
            } else {
                if (skin != none) r_.warn(WarningCode::DroppedData, fmt::format("{}: the node has a skin but the primitive has no JOINTS_0 / WEIGHTS_0", mesh_path));
                if (!is_identity(node.world)) transform_mesh(mesh, node.world);
                int64_t joint = n;  // the nearest joint at or above the node carries the mesh rigidly
                while (joint >= 0 && nodes[joint].joint < 0) joint = nodes[joint].parent;
                if (joint >= 0) {
                    mesh.skin.offsets.resize(mesh.vertex_count() + 1);
                    for (uint32_t v = 0; v <= mesh.vertex_count(); ++v) mesh.skin.offsets[v] = v;
                    mesh.skin.influences.assign(mesh.vertex_count(), Influence{uint32_t(nodes[joint].joint), 1.0f});
                }
            }
            plan_.node_meshes[n].push_back(uint32_t(r_.scene.meshes.size()));
            r_.scene.meshes.push_back(std::move(mesh));
        }
    }
    return true;
}

}  // namespace

void transform_mesh(Mesh& mesh, const Mat4& m) {
    const Mat4 nm = normal_matrix(m);
    const bool mirror = determinant(m) < 0;
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) map_vertex(mesh, v, m, nm, mirror);
    if (mirror)  // a mirror turns counter-clockwise faces clockwise: swap two corners back
        for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
}

bool place_meshes(Reader& r, Plan& plan) { return Placer(r, plan).run(); }

}  // namespace rigport::gltf::read_detail

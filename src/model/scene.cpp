// Scene helpers and the invariants every reader guarantees (scene.hpp).
#include "rigport/scene.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/guarded.hpp"

namespace rigport {

uint32_t component_size(ComponentType type) {
    switch (type) {
        case ComponentType::Int8:
        case ComponentType::UInt8: return 1;
        case ComponentType::Int16:
        case ComponentType::UInt16:
        case ComponentType::Half: return 2;
        case ComponentType::Int32:
        case ComponentType::UInt32:
        case ComponentType::Float32: return 4;
        case ComponentType::Float64: return 8;
    }
    return 0;
}

const char* to_string(ComponentType type) {
    static const char* names[] = {"byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double"};
    auto i = static_cast<unsigned>(type);
    return i < component_count_types ? names[i] : "?";
}

const char* to_string(Attribute attribute) {
    static const char* names[] = {"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights", "color"};
    auto i = static_cast<unsigned>(attribute);
    return i < 7 ? names[i] : "?";
}

const char* to_string(TextureType type) {
    static const char* names[] = {"diffuse", "normal", "specular", "emissive", "opacity", "ambient", "other"};
    auto i = static_cast<unsigned>(type);
    return i < 7 ? names[i] : "?";
}

float Animation::duration() const {
    float d = 0.0f;
    for (auto& t : tracks)
        if (!t.times.empty()) d = std::max(d, t.times.back());
    for (auto& t : morph_tracks)
        if (!t.times.empty()) d = std::max(d, t.times.back());
    return d;
}

bool Mesh::has_lod() const {
    for (auto& l : lod)
        if (l.collapse_id != -1 || l.face_collapse_count != 0) return true;
    return false;
}

std::string Mesh::cloth_and_lod_names() const {
    const bool cloth = !springs.empty(), detail = has_lod();
    if (cloth && detail) return "cloth springs and level-of-detail data";
    return cloth ? "cloth springs" : detail ? "level-of-detail data" : "";
}

uint64_t Scene::vertex_count() const {
    uint64_t n = 0;
    for (auto& m : meshes) n += m.positions.size();
    return n;
}

uint64_t Scene::triangle_count() const {
    uint64_t n = 0;
    for (auto& m : meshes) n += m.triangles.size();
    return n;
}

namespace {

Error breach(std::string message) { return make_error(ErrorCode::Malformed, std::move(message)); }

template <class V>
bool all_finite(const V& v) {
    for (auto x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

}  // namespace

static Status check_invariants_unguarded(const Scene& scene) {
    const auto& joints = scene.skeleton.joints;
    for (size_t j = 0; j < joints.size(); ++j) {
        const auto& jt = joints[j];
        if (jt.parent < -1 || jt.parent >= static_cast<int32_t>(j))
            return breach(fmt::format("joint {}: parent {} is not an earlier joint", j, jt.parent));
        if (!all_finite(jt.bind.translate) || !all_finite(jt.bind.rotate) || !all_finite(jt.bind.scale))
            return breach(fmt::format("joint {}: bind pose is not finite", j));
    }
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const auto& mesh = scene.meshes[m];
        const size_t n = mesh.positions.size();
        auto sized = [&](size_t count, const char* what) -> Status {
            if (count != 0 && count != n)
                return breach(fmt::format("mesh {}: {} has {} entries for {} vertices", m, what, count, n));
            return Ok{};
        };
        for (auto st : {sized(mesh.normals.size(), "normals"), sized(mesh.tangents.size(), "tangents"),
                        sized(mesh.lod.size(), "lod"), sized(mesh.spring_weights.size(), "spring weights")})
            if (!st) return st;
        for (auto& set : mesh.texcoords)
            if (set.size() != n) return breach(fmt::format("mesh {}: a texcoord set has {} entries for {} vertices", m, set.size(), n));
        for (auto& set : mesh.colors)
            if (set.size() != n) return breach(fmt::format("mesh {}: a color set has {} entries for {} vertices", m, set.size(), n));
        for (auto& c : mesh.custom)
            if (c.size == 0 || c.values.size() != uint64_t(n) * c.size)
                return breach(fmt::format("mesh {}: custom array '{}' has {} values for {} vertices of size {}", m, c.name, c.values.size(), n, c.size));
        if (mesh.material < -1 || mesh.material >= static_cast<int32_t>(scene.materials.size()))
            return breach(fmt::format("mesh {}: material {} out of range", m, mesh.material));
        for (size_t t = 0; t < mesh.triangles.size(); ++t)
            for (uint32_t v : mesh.triangles[t])
                if (v >= n) return breach(fmt::format("mesh {}: triangle {} uses vertex {} >= {}", m, t, v, n));
        if (!mesh.skin.empty()) {
            const auto& s = mesh.skin;
            if (s.offsets.size() != n + 1)
                return breach(fmt::format("mesh {}: skin offsets has {} entries for {} vertices (needs {})", m, s.offsets.size(), n, n + 1));
            if (s.offsets.front() != 0) return breach(fmt::format("mesh {}: skin offsets[0] is {}, not 0", m, s.offsets.front()));
            for (size_t v = 0; v < n; ++v)
                if (s.offsets[v] > s.offsets[v + 1])
                    return breach(fmt::format("mesh {}: skin offsets[{}] is {}, below offsets[{}] = {}", m, v + 1, s.offsets[v + 1], v, s.offsets[v]));
            if (s.offsets.back() != s.influences.size())
                return breach(fmt::format("mesh {}: skin offsets[{}] is {}, not the {} influences", m, n, s.offsets.back(), s.influences.size()));
            for (size_t i = 0; i < s.influences.size(); ++i)
                if (s.influences[i].joint >= joints.size())
                    return breach(fmt::format("mesh {}: skin influence {} is on joint {} >= {} joints", m, i, s.influences[i].joint, joints.size()));
        }
        for (auto& mt : mesh.morph_targets) {
            for (auto st : {sized(mt.position_deltas.size(), "a morph target's positions"),
                            sized(mt.normal_deltas.size(), "a morph target's normals"),
                            sized(mt.tangent_deltas.size(), "a morph target's tangents")})
                if (!st) return st;
        }
        for (auto& sp : mesh.springs)
            if (sp.vertex0 >= n || sp.vertex1 >= n) return breach(fmt::format("mesh {}: spring vertex out of range", m));
    }
    for (size_t i = 0; i < scene.materials.size(); ++i)
        for (auto& map : scene.materials[i].maps)
            if (map.image < -1 || map.image >= static_cast<int64_t>(scene.images.size()))
                return breach(fmt::format("material {}: map image {} out of range", i, map.image));
    for (size_t a = 0; a < scene.animations.size(); ++a) {
        const auto& anim = scene.animations[a];
        for (auto& tr : anim.tracks) {
            if (tr.joint >= joints.size())
                return breach(fmt::format("animation {}: track on joint {} >= {}", a, tr.joint, joints.size()));
            if (tr.values.size() != tr.times.size() * tr.components())
                return breach(fmt::format("animation {}: track on joint {} has {} values for {} keys", a, tr.joint, tr.values.size(), tr.times.size()));
            for (size_t k = 1; k < tr.times.size(); ++k)
                if (!(tr.times[k] >= tr.times[k - 1]))
                    return breach(fmt::format("animation {}: track on joint {}: times[{}] = {} is before times[{}] = {}", a, tr.joint, k, tr.times[k], k - 1, tr.times[k - 1]));
            if (!all_finite(tr.values) || !all_finite(tr.times)) return breach(fmt::format("animation {}: values not finite", a));
        }
        for (auto& mt : anim.morph_tracks) {
            if (mt.mesh >= scene.meshes.size()) return breach(fmt::format("animation {}: morph track on mesh {} out of range", a, mt.mesh));
            if (mt.weights.size() != mt.times.size() * scene.meshes[mt.mesh].morph_targets.size())
                return breach(fmt::format("animation {}: morph track weights do not match the targets", a));
        }
    }
    return Ok{};
}

Status check_invariants(const Scene& scene) {
    return detail::guarded(std::string(), "checking", [&] { return check_invariants_unguarded(scene); });
}

}  // namespace rigport

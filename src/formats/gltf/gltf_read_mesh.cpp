// glTF reader: one mesh primitive (glTF 2.0 §3.7.2) as a rigport mesh: indices triangulated
// (triangles, strips, fans), standard attributes in every set, influences of every JOINTS_n /
// WEIGHTS_n pair merged, `_NAME` attributes as custom arrays, KHR_mesh_quantization types;
// KHR_draco_mesh_compression primitives decoded first (gltf_read_draco.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

// "TEXCOORD_3" -> 3 for prefix "TEXCOORD_"; nothing when the name is not prefix + digits.
std::optional<uint32_t> set_number(const std::string& name, std::string_view prefix) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    uint32_t n = 0;
    const char* b = name.data() + prefix.size();
    auto [end, ec] = std::from_chars(b, name.data() + name.size(), n);
    if (ec != std::errc() || end != name.data() + name.size()) return std::nullopt;
    return n;
}

ComponentType rigport_type(uint32_t gltf_type) {
    switch (gltf_type) {
        case BYTE: return ComponentType::Int8;
        case UNSIGNED_BYTE: return ComponentType::UInt8;
        case SHORT: return ComponentType::Int16;
        case UNSIGNED_SHORT: return ComponentType::UInt16;
        case UNSIGNED_INT: return ComponentType::UInt32;
        case 5124: return ComponentType::Int32;
        default: return ComponentType::Float32;
    }
}

class PrimitiveReader {
public:
    PrimitiveReader(Reader& r, std::string path, Primitive& out) : r_(r), path_(std::move(path)), out_(out), mesh_(out.mesh) {}

    // The accessor of an attribute, checked to have `components` (or `alt`) per element and
    // one element per vertex.
    const Accessor* attribute(const std::string& name, uint32_t index, uint32_t components, uint32_t alt = 0) {
        const Accessor* a = r_.accessor(index);
        if (!a) return nullptr;
        const std::string at = path_ + "/attributes/" + name;
        if (a->components != components && a->components != alt)
            return r_.malformed(at, fmt::format("accessor {} is {}, expected {} components", index, a->type, components)), nullptr;
        if (a->count != vertices_)
            return r_.malformed(at, fmt::format("accessor {} has {} elements, POSITION has {}", index, a->count, vertices_)), nullptr;
        // Core types (§3.7.2.1): FLOAT; normalized UNSIGNED_BYTE / UNSIGNED_SHORT for texcoords,
        // colours and weights; UNSIGNED_BYTE / UNSIGNED_SHORT joints; anything for `_NAME`.
        // KHR_mesh_quantization allows the other integer forms.
        const bool small_unsigned = a->component_type == UNSIGNED_BYTE || a->component_type == UNSIGNED_SHORT;
        const bool normalizable = name.rfind("TEXCOORD_", 0) == 0 || name.rfind("COLOR_", 0) == 0 || name.rfind("WEIGHTS_", 0) == 0;
        const bool joints = name.rfind("JOINTS_", 0) == 0;
        const bool core = (a->component_type == FLOAT && !joints) || name[0] == '_' || (normalizable && a->normalized && small_unsigned) ||
                          (joints && small_unsigned);
        if (!core && !r_.quantization)
            r_.warn(WarningCode::NonStandardFormat, fmt::format("{}: component type {} without KHR_mesh_quantization; read anyway", detail::excerpt(name), a->component_type));
        return a;
    }

    template <size_t N>
    std::vector<std::array<float, N>> values(const Accessor& a, float fill_last) {
        std::vector<std::array<float, N>> out(a.count);
        if (a.component_type == FLOAT && a.dense.empty() && !a.data.empty()) {  // the common case, without a switch per value
            for (uint64_t v = 0; v < a.count; ++v)
                for (uint32_t c = 0; c < N; ++c) out[v][c] = c < a.components ? float(Accessor::decode(a.data.data() + v * a.stride + a.offsets[c], FLOAT)) : fill_last;
            return out;
        }
        for (uint64_t v = 0; v < a.count; ++v)
            for (uint32_t c = 0; c < N; ++c) out[v][c] = c < a.components ? float(a.value(v, c)) : fill_last;
        return out;
    }

    bool run(const Json& prim, uint32_t skin_joints);

private:
    bool read_influences(const std::map<uint32_t, uint32_t>& joints, const std::map<uint32_t, uint32_t>& weights, uint32_t skin_joints);

    Reader& r_;
    std::string path_;
    Primitive& out_;
    Mesh& mesh_;
    uint64_t vertices_ = 0;
};

bool PrimitiveReader::read_influences(const std::map<uint32_t, uint32_t>& joints, const std::map<uint32_t, uint32_t>& weights, uint32_t skin_joints) {
    struct Set {
        uint32_t number;
        const Accessor *joints, *weights;
    };
    std::vector<Set> sets;
    for (auto& [set, index] : joints) {
        auto w = weights.find(set);
        if (w == weights.end()) {
            r_.warn(WarningCode::DroppedData, fmt::format("{}: JOINTS_{} without WEIGHTS_{} ignored", path_, set, set));
            continue;
        }
        const Accessor* j = attribute(fmt::format("JOINTS_{}", set), index, 4);
        const Accessor* wa = j ? attribute(fmt::format("WEIGHTS_{}", set), w->second, 4) : nullptr;
        if (!wa) return false;
        sets.push_back({set, j, wa});
    }
    if (sets.empty()) return true;
    if (!r_.spend(vertices_ * 4 * sets.size(), path_)) return false;
    SkinInfluences& skin = mesh_.skin;
    skin.offsets.reserve(vertices_ + 1);
    skin.offsets.push_back(0);
    for (uint64_t v = 0; v < vertices_; ++v) {
        const size_t first = skin.influences.size();
        for (const Set& s : sets)
            for (uint32_t k = 0; k < 4; ++k) {
                const float w = float(s.weights->value(v, k));
                if (!(w > 0) || !std::isfinite(w)) continue;  // zero weights (and nonsense) carry nothing
                const double j = s.joints->raw(v, k);
                if (!(j >= 0 && j < skin_joints && j == std::floor(j)))
                    return r_.malformed(fmt::format("{}/attributes/JOINTS_{}", path_, s.number),
                                        fmt::format("vertex {} uses joint {} with weight {}; the skin has {} joints", v, j, w, skin_joints));
                auto same = std::find_if(skin.influences.begin() + first, skin.influences.end(), [&](const Influence& i) { return i.joint == uint32_t(j); });
                if (same != skin.influences.end()) same->weight += w;  // a joint listed twice: one influence
                else skin.influences.push_back({uint32_t(j), w});
            }
        skin.offsets.push_back(uint32_t(skin.influences.size()));
    }
    out_.skinned = true;
    return true;
}

bool PrimitiveReader::run(const Json& prim, uint32_t skin_joints) {
    const Json* attributes = r_.object(prim, "attributes", path_);
    uint64_t mode = TRIANGLES;
    uint32_t material = none;
    if (!r_.ok() || !r_.uint(prim, "mode", path_, mode, false) || !r_.index(prim, "material", path_, material, false, "materials", r_.count("materials")))
        return false;
    if (!attributes) return r_.malformed(path_ + "/attributes", "missing");
    // A Draco-compressed primitive: its accessors are filled from the decoded mesh first, so every
    // read below is the same as for stored data.
    const Json* extensions = r_.object(prim, "extensions", path_);
    if (!r_.ok()) return false;
    if (const Json* draco = extensions ? Reader::find(*extensions, "KHR_draco_mesh_compression") : nullptr)
        if (!decode_draco(r_, prim, *draco, path_)) return false;
    if (mode > 6) return r_.malformed(path_ + "/mode", fmt::format("{} is not a primitive mode (0..6)", mode));
    if (mode < TRIANGLES) {
        static const char* names[] = {"points", "lines", "line loops", "line strips"};
        r_.warn(WarningCode::DroppedData, fmt::format("{}: {} skipped (only triangles are read)", path_, names[mode]));
        return true;
    }
    const Json* position = Reader::find(*attributes, "POSITION");
    if (!position) {
        r_.warn(WarningCode::DroppedData, fmt::format("{}: no POSITION; the primitive was skipped", path_));
        return true;
    }
    uint32_t index = 0;
    if (!r_.index_value(*position, path_ + "/attributes/POSITION", index, "accessors", r_.count("accessors"))) return false;
    const Accessor* pa = r_.accessor(index);
    if (!pa) return false;
    vertices_ = pa->count;
    if (vertices_ > UINT32_MAX || !r_.spend(vertices_, path_)) return vertices_ > UINT32_MAX ? r_.fail(ErrorCode::LimitExceeded, path_, "more than 2^32 vertices") : false;
    if (!attribute("POSITION", index, 3)) return false;
    mesh_.positions = values<3>(*pa, 0);
    if (material != none) mesh_.material = int32_t(material);

    std::map<uint32_t, uint32_t> texcoords, colors, joints, weights;
    for (auto it = attributes->begin(); it != attributes->end(); ++it) {
        const std::string name(it->key());
        if (name == "POSITION") continue;
        if (!r_.index_value(*it, path_ + "/attributes/" + name, index, "accessors", r_.count("accessors"))) return false;
        if (name == "NORMAL") {
            const Accessor* a = attribute(name, index, 3);
            if (!a) return false;
            mesh_.normals = values<3>(*a, 0);
        } else if (name == "TANGENT") {
            const Accessor* a = attribute(name, index, 4);
            if (!a) return false;
            mesh_.tangents = values<4>(*a, 1);
        } else if (auto s = set_number(name, "TEXCOORD_")) {
            texcoords[*s] = index;
        } else if (auto c = set_number(name, "COLOR_")) {
            colors[*c] = index;
        } else if (auto j = set_number(name, "JOINTS_")) {
            joints[*j] = index;
        } else if (auto w = set_number(name, "WEIGHTS_")) {
            weights[*w] = index;
        } else if (name.size() > 1 && name[0] == '_') {
            const Accessor* a = r_.accessor(index);
            if (!a || !attribute(name, index, a->components)) return false;
            if (a->components > 4) {
                r_.warn(WarningCode::DroppedData, fmt::format("{}: attribute {} is {}; custom arrays hold 1 to 4 components", path_, detail::excerpt(name), a->type));
                continue;
            }
            CustomArray c{name.substr(1), rigport_type(a->component_type), a->components, {}};
            c.values.reserve(a->count * a->components);
            for (uint64_t v = 0; v < a->count; ++v)
                for (uint32_t k = 0; k < a->components; ++k) c.values.push_back(a->raw(v, k));
            mesh_.custom.push_back(std::move(c));
        } else {
            r_.warn(WarningCode::DroppedData, fmt::format("attribute {} is not one rigport reads; ignored", detail::excerpt(name)));
        }
    }
    for (auto& [set, acc] : texcoords) {
        const Accessor* a = attribute(fmt::format("TEXCOORD_{}", set), acc, 2);
        if (!a) return false;
        if (set != mesh_.texcoords.size()) r_.warn(WarningCode::Tolerated, fmt::format("{}: TEXCOORD_{} read as set {} (sets are not contiguous)", path_, set, mesh_.texcoords.size()));
        mesh_.texcoords.push_back(values<2>(*a, 0));
    }
    for (auto& [set, acc] : colors) {
        const Accessor* a = attribute(fmt::format("COLOR_{}", set), acc, 4, 3);
        if (!a) return false;
        if (set != mesh_.colors.size()) r_.warn(WarningCode::Tolerated, fmt::format("{}: COLOR_{} read as set {} (sets are not contiguous)", path_, set, mesh_.colors.size()));
        mesh_.colors.push_back(values<4>(*a, 1));  // VEC3: alpha 1
    }
    if (skin_joints != none) {
        if (!read_influences(joints, weights, skin_joints)) return false;
    } else if (!joints.empty()) {
        r_.warn(WarningCode::DroppedData, "JOINTS_n / WEIGHTS_n on a mesh whose node has no skin; ignored");
    }
    return read_triangles(r_, prim, path_, vertices_, uint32_t(mode), mesh_.triangles);
}

}  // namespace

bool read_primitive(Reader& r, uint32_t mesh, uint32_t primitive, uint32_t skin_joints, Primitive& out) {
    const std::string mesh_path = fmt::format("/meshes/{}", mesh);
    const Json* m = r.item("meshes", mesh);
    const Json* prims = m ? r.array(*m, "primitives", mesh_path) : nullptr;
    if (!r.ok()) return false;
    if (!prims || primitive >= prims->size()) return r.malformed(mesh_path + "/primitives", "missing");
    const Json& prim = (*prims)[primitive];
    const std::string path = fmt::format("{}/primitives/{}", mesh_path, primitive);
    if (!prim.is_object()) return r.malformed(path, "expected an object");
    PrimitiveReader reader(r, path, out);
    if (!reader.run(prim, skin_joints)) return false;
    if (out.mesh.positions.empty()) return true;  // skipped
    apply_texture_transforms(r, path, out.mesh);
    return read_targets(r, mesh, primitive, prim, out.mesh);
}

}  // namespace rigport::gltf::read_detail

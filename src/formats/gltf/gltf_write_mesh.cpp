// glTF 2.0 meshes: one primitive per scene mesh, its indices, attributes, custom `_NAME` attributes
// and morph targets (docs/gltf.md §2, §4.6; glTF 2.0 §3.7.2).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <optional>
#include <set>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"

namespace rigport::gltf {

namespace {

using Vec3d = std::array<double, 3>;

// v / |v| in double, or nothing when v is zero or not finite.
std::optional<Vec3> unit(const float* v) {
    const double x = v[0], y = v[1], z = v[2];
    const double n = std::sqrt(x * x + y * y + z * z);
    if (!(n > 0) || !std::isfinite(n)) return std::nullopt;
    return Vec3{float(x / n), float(y / n), float(z / n)};
}

// A unit vector perpendicular to n: n crossed with the axis n leans on least.
Vec3 perpendicular(const Vec3& n) {
    const int axis = std::fabs(n[0]) <= std::fabs(n[1]) && std::fabs(n[0]) <= std::fabs(n[2]) ? 0 : std::fabs(n[1]) <= std::fabs(n[2]) ? 1 : 2;
    float e[3] = {0, 0, 0};
    e[axis] = 1;
    const float c[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
    return unit(c).value_or(Vec3{1, 0, 0});
}

template <class V>
std::vector<float> flatten(const std::vector<V>& items) {
    std::vector<float> out;
    out.reserve(items.size() * std::tuple_size_v<V>);
    for (auto& v : items) out.insert(out.end(), v.begin(), v.end());
    return out;
}

void write_indices(WriteContext& ctx, const Mesh& mesh, Primitive& p) {
    if (mesh.triangles.empty()) {
        p.mode = POINTS;  // a mesh without faces keeps its vertices as points
        return;
    }
    // Clockwise front faces become glTF's counter-clockwise by swapping two corners; Unknown is
    // taken as counter-clockwise (glTF's own convention) and written as stored.
    const bool swap = ctx.scene.meta.front_face == Winding::Clockwise;
    std::vector<int64_t> indices;
    indices.reserve(mesh.triangles.size() * 3);
    for (auto& t : mesh.triangles) {
        indices.push_back(t[0]);
        indices.push_back(swap ? t[2] : t[1]);
        indices.push_back(swap ? t[1] : t[2]);
    }
    // 65535 is the primitive-restart value, so it may not be an index of an UNSIGNED_SHORT list.
    const uint32_t type = mesh.vertex_count() <= 65535 ? UNSIGNED_SHORT : UNSIGNED_INT;
    p.indices = ctx.buffer.integers(indices, 1, type, ELEMENT_ARRAY_BUFFER);
}

// Compressed output: unit normals as normalized BYTE, through the octahedral filter with
// --compress-level small (docs/gltf.md "Compressed output"); FLOAT otherwise.
uint32_t write_unit_vectors(WriteContext& ctx, const std::vector<Vec3>& normals) {
    if (!ctx.grid) return ctx.buffer.floats(flatten(normals), 3, ARRAY_BUFFER, false);
    if (ctx.filters) {
        std::vector<Vec4> v;
        v.reserve(normals.size());
        for (auto& n : normals) v.push_back({n[0], n[1], n[2], 0});
        return ctx.buffer.encoded(octahedral_snorm8(v), 4, 3, BYTE, true, ARRAY_BUFFER, "OCTAHEDRAL");
    }
    return ctx.buffer.integers(quantize_unit_snorm8(normals), 3, BYTE, ARRAY_BUFFER, true);
}

// Tangents (x y z unit, w +-1) as normalized BYTE VEC4, likewise.
uint32_t write_tangents_quantized(WriteContext& ctx, const std::vector<float>& tangents) {
    std::vector<Vec4> v(tangents.size() / 4);
    for (size_t i = 0; i < v.size(); ++i) v[i] = {tangents[i * 4], tangents[i * 4 + 1], tangents[i * 4 + 2], tangents[i * 4 + 3]};
    if (ctx.filters) return ctx.buffer.encoded(octahedral_snorm8(v), 4, 4, BYTE, true, ARRAY_BUFFER, "OCTAHEDRAL");
    std::vector<Vec3> xyz;
    xyz.reserve(v.size());
    for (auto& t : v) xyz.push_back({t[0], t[1], t[2]});
    const std::vector<int64_t> q3 = quantize_unit_snorm8(xyz);
    std::vector<int64_t> q;
    q.reserve(v.size() * 4);
    for (size_t i = 0; i < v.size(); ++i) q.insert(q.end(), {q3[i * 3], q3[i * 3 + 1], q3[i * 3 + 2], v[i][3] < 0 ? -127 : 127});
    return ctx.buffer.integers(q, 4, BYTE, ARRAY_BUFFER, true);
}

// TEXCOORD_n / COLOR_n: normalized UNSIGNED_SHORT texture coordinates and UNSIGNED_BYTE colours
// when compressing and every value lies in [0, 1] (normalized integers hold nothing else); FLOAT
// otherwise.
uint32_t write_unit_range(WriteContext& ctx, const std::vector<float>& values, uint32_t components, uint32_t bits) {
    if (ctx.grid && all_in_unit_range(values))
        return ctx.buffer.integers(quantize_unorm(values, bits), components, bits == 8 ? UNSIGNED_BYTE : UNSIGNED_SHORT, ARRAY_BUFFER, true);
    return ctx.buffer.floats(values, components, ARRAY_BUFFER, false);
}

// NORMAL unit length; TANGENT xyz unit length and w exactly +1 or -1 (§2.3).
void write_normals_tangents(WriteContext& ctx, const Mesh& mesh, const std::string& where, Primitive& p, bool tangents_used) {
    std::vector<Vec3> normals;
    uint32_t bad = 0;
    for (auto& n : mesh.normals) {
        auto u = unit(n.data());
        bad += !u;
        normals.push_back(u.value_or(Vec3{0, 1, 0}));
    }
    if (bad) ctx.warn(WarningCode::InvalidNormal, fmt::format("{}: {} zero or non-finite normals written as +Y", where, bad));
    if (!normals.empty()) p.attributes.emplace_back("NORMAL", write_unit_vectors(ctx, normals));
    if (mesh.tangents.empty() || !tangents_used) return;
    std::vector<float> tangents;
    bad = 0;
    for (size_t v = 0; v < mesh.tangents.size(); ++v) {
        const Vec4& t = mesh.tangents[v];
        auto u = unit(t.data());
        bad += !u;
        Vec3 xyz = u ? *u : normals.empty() ? Vec3{1, 0, 0} : perpendicular(normals[v]);
        tangents.insert(tangents.end(), {xyz[0], xyz[1], xyz[2], t[3] < 0 ? -1.0f : 1.0f});
    }
    if (bad) ctx.warn(WarningCode::InvalidNormal, fmt::format("{}: {} zero or non-finite tangents replaced", where, bad));
    p.attributes.emplace_back("TANGENT", ctx.grid ? write_tangents_quantized(ctx, tangents) : ctx.buffer.floats(tangents, 4, ARRAY_BUFFER, false));
}

// `_NAME` attributes: 8- and 16-bit integers kept (never normalized), the rest as FLOAT.
void write_custom(WriteContext& ctx, const Mesh& mesh, const std::string& where, Primitive& p) {
    std::set<std::string> used;
    for (size_t i = 0; i < mesh.custom.size(); ++i) {
        const CustomArray& c = mesh.custom[i];
        if (c.size < 1 || c.size > 4) {
            ctx.warn(WarningCode::DroppedData, fmt::format("{}: custom array '{}' has {} components; glTF attributes hold 1 to 4", where, c.name, c.size));
            continue;
        }
        std::string name = "_";
        for (unsigned char ch : c.name) name += std::isalnum(ch) ? char(std::toupper(ch)) : '_';
        if (name == "_") name = fmt::format("_CUSTOM{}", i);
        for (uint32_t k = 2; used.count(name); ++k) name = fmt::format("{}_{}", name, k);
        used.insert(name);
        uint32_t type = 0;
        int64_t lo = 0, hi = 0;
        switch (c.type) {
            case ComponentType::Int8: type = BYTE, lo = INT8_MIN, hi = INT8_MAX; break;
            case ComponentType::UInt8: type = UNSIGNED_BYTE, hi = UINT8_MAX; break;
            case ComponentType::Int16: type = SHORT, lo = INT16_MIN, hi = INT16_MAX; break;
            case ComponentType::UInt16: type = UNSIGNED_SHORT, hi = UINT16_MAX; break;
            default: break;
        }
        if (type) {
            std::vector<int64_t> values;
            values.reserve(c.values.size());
            for (double v : c.values) values.push_back(std::clamp(int64_t(std::llround(v)), lo, hi));
            p.attributes.emplace_back(name, ctx.buffer.integers(values, c.size, type, ARRAY_BUFFER));
            continue;
        }
        std::vector<float> values;
        values.reserve(c.values.size());
        uint32_t inexact = 0;
        for (double v : c.values) {
            const float f = float(std::clamp(v, double(-FLT_MAX), double(FLT_MAX)));
            inexact += double(f) != v;
            values.push_back(f);
        }
        if (inexact && c.type != ComponentType::Float32 && c.type != ComponentType::Half)
            ctx.warn(WarningCode::DroppedData, fmt::format("{}: custom array '{}': {} {} values are not exact as glTF FLOAT", where, c.name, inexact, to_string(c.type)));
        p.attributes.emplace_back(name, ctx.buffer.floats(values, c.size, ARRAY_BUFFER, false));
    }
}

// POSITION / NORMAL / TANGENT displacements; every target carries the same attributes, and a
// NORMAL or TANGENT delta only when the base has that attribute (§4.6).
void write_targets(WriteContext& ctx, const Mesh& mesh, const std::string& where, MeshDoc& md, bool tangents_used) {
    bool pos = false, nrm = false, tan = false;
    for (auto& mt : mesh.morph_targets) pos |= !mt.position_deltas.empty(), nrm |= !mt.normal_deltas.empty(), tan |= !mt.tangent_deltas.empty();
    if ((nrm && mesh.normals.empty()) || (tan && mesh.tangents.empty()))
        ctx.warn(WarningCode::DroppedData, fmt::format("{}: morph normal or tangent deltas without base normals or tangents were not written", where));
    nrm &= !mesh.normals.empty(), tan &= !mesh.tangents.empty() && tangents_used;
    const std::vector<Vec3> zeros(mesh.vertex_count(), Vec3{0, 0, 0});
    for (auto& mt : mesh.morph_targets) {
        Attributes target;
        auto add = [&](const char* semantic, bool wanted, const std::vector<Vec3>& d, bool min_max) {
            if (!wanted) return;
            const std::vector<Vec3>& deltas = d.empty() ? zeros : d;
            if (ctx.grid && min_max) {
                // POSITION deltas live in the grid's steps too: the node or the inverse bind
                // matrices scale the morphed position as a whole. SHORT when they fit, else FLOAT.
                if (auto q = quantize_deltas(deltas, *ctx.grid)) {
                    target.emplace_back(semantic, ctx.buffer.integers(*q, 3, SHORT, ARRAY_BUFFER, false, true));
                    return;
                }
                std::vector<float> scaled = flatten(deltas);
                for (float& x : scaled) x /= ctx.grid->step;
                target.emplace_back(semantic, ctx.buffer.floats(scaled, 3, ARRAY_BUFFER, true));
                return;
            }
            target.emplace_back(semantic, ctx.buffer.floats(flatten(deltas), 3, ARRAY_BUFFER, min_max));
        };
        add("POSITION", pos || (!nrm && !tan), mt.position_deltas, true);  // a target needs one attribute
        add("NORMAL", nrm, mt.normal_deltas, false);
        add("TANGENT", tan, mt.tangent_deltas, false);
        md.primitive.targets.push_back(std::move(target));
        md.weights.push_back(mt.default_weight);
        md.target_names.push_back(mt.name);
    }
}

}  // namespace

Expected<Ok> write_meshes(WriteContext& ctx) {
    const Scene& scene = ctx.scene;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const std::string where = fmt::format("mesh {} '{}'", m, mesh.name);
        if (mesh.vertex_count() == 0) {
            ctx.warn(WarningCode::DroppedData, fmt::format("{}: no vertices; glTF has no empty primitives, so it was not written", where));
            continue;
        }
        MeshDoc md;
        md.name = mesh.name;
        Primitive& p = md.primitive;
        write_indices(ctx, mesh, p);
        if (ctx.grid)
            p.attributes.emplace_back("POSITION", ctx.buffer.integers(quantize_positions(mesh.positions, *ctx.grid), 3, ctx.grid->component_type,
                                                                      ARRAY_BUFFER, false, true));
        else
            p.attributes.emplace_back("POSITION", ctx.buffer.floats(flatten(mesh.positions), 3, ARRAY_BUFFER, true));
        // Compressed output leaves out what no texture of the mesh's material uses, as gltfpack
        // does (the validator reports such tangents, UNUSED_MESH_TANGENT): TANGENT without a
        // normal map, TEXCOORD_0 without any texture, and TEXCOORD_1 and later, which no written
        // material names (docs/gltf.md "Compressed output"). The materials are written first then.
        size_t texcoord_sets = mesh.texcoords.size();
        bool tangents_used = true;
        if (ctx.grid) {
            const MaterialDoc* mat = mesh.material >= 0 && size_t(mesh.material) < ctx.doc.materials.size() ? &ctx.doc.materials[size_t(mesh.material)] : nullptr;
            const bool textured = mat && (mat->base_color_texture || mat->normal_texture || mat->emissive_texture);
            tangents_used = mat && mat->normal_texture;
            texcoord_sets = std::min<size_t>(texcoord_sets, textured ? 1 : 0);
            const bool tangents_left = !mesh.tangents.empty() && !tangents_used;
            if (texcoord_sets < mesh.texcoords.size() || tangents_left)
                ctx.warn(WarningCode::DroppedData,
                         fmt::format("{}: {}{}{} not written: no texture of its material uses them (compressed output)", where,
                                     texcoord_sets < mesh.texcoords.size() ? fmt::format("{} texture coordinate sets", mesh.texcoords.size() - texcoord_sets) : "",
                                     texcoord_sets < mesh.texcoords.size() && tangents_left ? " and " : "", tangents_left ? "tangents" : ""));
        }
        write_normals_tangents(ctx, mesh, where, p, tangents_used);
        for (size_t s = 0; s < texcoord_sets; ++s)
            p.attributes.emplace_back(fmt::format("TEXCOORD_{}", s), write_unit_range(ctx, flatten(mesh.texcoords[s]), 2, 16));
        for (size_t s = 0; s < mesh.colors.size(); ++s)
            p.attributes.emplace_back(fmt::format("COLOR_{}", s), write_unit_range(ctx, flatten(mesh.colors[s]), 4, 8));
        if (ctx.mesh_skinned[m]) write_influences(ctx, mesh, where, p.attributes);
        write_custom(ctx, mesh, where, p);
        write_targets(ctx, mesh, where, md, tangents_used);
        if (mesh.material >= 0) p.material = uint32_t(mesh.material);

        Node node;
        node.name = mesh.name;
        node.mesh = uint32_t(ctx.doc.meshes.size());
        if (ctx.mesh_skinned[m]) {
            node.skin = 0;  // a scene root without TRS (§3.4); its grid is undone by the inverse bind matrices
        } else if (ctx.grid) {
            // The node's TRS undoes the position grid: p = origin + step * q.
            if (ctx.grid->origin != Vec3{0, 0, 0}) node.translation = ctx.grid->origin;
            if (ctx.grid->step != 1.0f) node.scale = Vec3{ctx.grid->step, ctx.grid->step, ctx.grid->step};
        }
        ctx.doc.meshes.push_back(std::move(md));
        ctx.mesh_node[m] = uint32_t(ctx.doc.nodes.size());
        if (ctx.axis_node && !ctx.mesh_skinned[m]) ctx.doc.nodes[*ctx.axis_node].children.push_back(ctx.mesh_node[m]);
        ctx.doc.nodes.push_back(std::move(node));
    }
    return Ok{};
}

}  // namespace rigport::gltf

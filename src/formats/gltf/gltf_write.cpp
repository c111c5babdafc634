// glTF 2.0 writer: Scene -> Document -> .gltf (+ .bin) or .glb (docs/gltf.md §1-§5). The parts:
// gltf_write_skin.cpp, gltf_write_mesh.cpp, gltf_write_weights.cpp, gltf_write_anim.cpp,
// gltf_write_material.cpp, gltf_document.cpp (JSON) and gltf_glb.cpp (container).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::gltf {

namespace {

Error not_finite(const std::string& what) { return make_error(ErrorCode::Malformed, what + " is not finite; JSON and glTF hold finite numbers only"); }

template <class V>
bool finite(const V& v) {
    return std::all_of(v.begin(), v.end(), [](auto x) { return std::isfinite(x); });
}

// Index of the first element of `items` with a non-finite component, or -1.
template <class Items>
int64_t first_bad(const Items& items) {
    for (size_t i = 0; i < items.size(); ++i)
        if (!finite(items[i])) return int64_t(i);
    return -1;
}

// Values glTF would have to carry as numbers (normals and tangents get a fallback instead).
Status check_finite(const Scene& scene) {
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const std::string at = fmt::format("mesh {} '{}'", m, mesh.name);
        if (auto v = first_bad(mesh.positions); v >= 0) return not_finite(fmt::format("{}: position of vertex {}", at, v));
        for (auto& set : mesh.texcoords)
            if (auto v = first_bad(set); v >= 0) return not_finite(fmt::format("{}: texcoord of vertex {}", at, v));
        for (auto& set : mesh.colors)
            if (auto v = first_bad(set); v >= 0) return not_finite(fmt::format("{}: color of vertex {}", at, v));
        for (auto& c : mesh.custom)
            if (!finite(c.values)) return not_finite(fmt::format("{}: a value of custom array '{}'", at, c.name));
        for (auto& inf : mesh.skin.influences)
            if (!std::isfinite(inf.weight)) return not_finite(fmt::format("{}: an influence weight", at));
        for (auto& mt : mesh.morph_targets) {
            for (auto* d : {&mt.position_deltas, &mt.normal_deltas, &mt.tangent_deltas})
                if (auto v = first_bad(*d); v >= 0) return not_finite(fmt::format("{}: morph target '{}' delta of vertex {}", at, mt.name, v));
            if (!std::isfinite(mt.default_weight)) return not_finite(fmt::format("{}: morph target '{}' weight", at, mt.name));
        }
    }
    for (size_t i = 0; i < scene.materials.size(); ++i) {
        const Material& mat = scene.materials[i];
        if (!finite(mat.diffuse) || !finite(mat.emissive)) return not_finite(fmt::format("material {} '{}': a colour", i, mat.name));
    }
    for (auto& a : scene.animations)
        for (auto& t : a.morph_tracks)
            if (!finite(t.times) || !finite(t.weights)) return not_finite(fmt::format("animation '{}': a morph weight key", a.name));
    return Ok{};
}

// About the binary buffer's final size (attributes, indices, skin, keys), so it is allocated
// once, plus room for a GLB's header and JSON, which make_glb() puts in front of the data in the
// same memory. Only a hint: the builder grows past it when a guess falls short.
uint64_t estimate_buffer_bytes(const Scene& scene) {
    uint64_t bytes = 4096 + 256 * (scene.skeleton.joints.size() + 8 * scene.meshes.size() + scene.materials.size());
    for (auto& m : scene.meshes) {
        const uint64_t per_vertex = 12 + 12 + 16 + 8 * m.texcoords.size() + 16 * m.colors.size() + 16 * m.custom.size() + 24;
        bytes += uint64_t(m.vertex_count()) * (per_vertex + 36 * m.morph_targets.size()) + 12 * m.triangles.size() + 64;
        bytes += 24 * m.skin.influences.size();  // JOINTS_n + WEIGHTS_n sets beyond the first
    }
    bytes += 64 * scene.skeleton.joints.size();
    for (auto& a : scene.animations) {
        for (auto& t : a.tracks) bytes += 4 * (t.times.size() + t.values.size()) + 256;
        for (auto& t : a.morph_tracks) bytes += 4 * (t.times.size() + t.weights.size()) + 256;
    }
    return bytes;
}

bool has_glb_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext == ".glb";
}

// Scene 0 lists every node no other node has as a child, in node order.
void collect_scene_roots(Document& doc) {
    std::vector<bool> child(doc.nodes.size(), false);
    for (auto& n : doc.nodes)
        for (uint32_t c : n.children) child[c] = true;
    for (uint32_t i = 0; i < doc.nodes.size(); ++i)
        if (!child[i]) doc.scene_nodes.push_back(i);
}

Expected<Output> write_container(const Scene& scene, const std::string& path, const SaveOptions& options, bool glb) {
    // The scene\'s invariants: checked by save_output before any writer runs (src/pipeline/save.cpp).
    if (auto st = check_finite(scene); !st) return st.error();
    if (scene.skeleton.joints.size() > 65536)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} joints: JOINTS_n hold at most 65536", scene.skeleton.joints.size()));
    // glTF keeps keys as they are, however far apart in time (no frames are sampled).

    // Bake: a copy turned Y-up. Root: the data as it is, under an axis node (plan_nodes).
    const GltfCompression& compression = options.gltf.compression;
    std::optional<Scene> baked;
    if (options.gltf.axis == GltfOptions::AxisMode::Bake && (scene.meta.up == UpAxis::Z || scene.meta.up == UpAxis::X)) {
        baked = scene;
        convert_to_y_up(*baked);
    }
    if (compression.enabled) {
        if (compression.position_bits > 16)
            return make_error(ErrorCode::InvalidArgument, fmt::format("{} position bits: the grid holds 1 to 16", compression.position_bits));
        // Compressed output: vertices ordered for the vertex cache, then numbered in first use,
        // on the writer's copy: meshoptimizer's codecs compress such an order far better
        // (docs/gltf.md "Compressed output").
        if (!baked) baked = scene;
        optimize_vertex_cache(*baked);
    }
    WriteContext ctx(baked ? *baked : scene, options, glb);
    ctx.buffer.reserve(estimate_buffer_bytes(ctx.scene));
    ctx.doc.comment = scene.meta.comment;
    if (compression.enabled) {
        ctx.grid = plan_position_grid(ctx.scene, compression.position_bits);
        ctx.filters = compression.level == GltfCompression::Level::Small;
        ctx.doc.extensions_used.push_back("KHR_mesh_quantization");
        ctx.doc.extensions_required.push_back("KHR_mesh_quantization");
        const PositionGrid& g = *ctx.grid;
        ctx.notes.push_back(fmt::format("positions: {}-bit grid, step {:.6g}, error at most half a step = {:.6g} = 1/{:.0f} of the longest side {:.6g}",
                                    g.bits, g.step, 0.5 * g.step, g.error_fraction() > 0 ? 1 / g.error_fraction() : 0.0, g.longest_side));
    }
    plan_nodes(ctx);
    // Compressed output writes the materials first: which attributes a mesh keeps depends on its
    // material's textures (write_meshes).
    if (compression.enabled) write_materials(ctx);
    if (auto r = write_meshes(ctx); !r) return r.error();
    write_skin(ctx);
    if (auto r = write_animations(ctx); !r) return r.error();
    if (!compression.enabled) write_materials(ctx);
    collect_scene_roots(ctx.doc);

    std::vector<uint8_t> bin = ctx.buffer.finish();
    if (compression.enabled) bin = pack_buffer_views(ctx.doc, std::move(bin));
    Output out;
    out.notes = std::move(ctx.notes);
    out.side_files = std::move(ctx.side_files);
    if (!glb && !bin.empty()) {
        if (options.gltf.embed_buffer) {
            ctx.doc.buffer_uri = "data:application/octet-stream;base64," + base64(bin);
        } else {
            std::string stem = std::filesystem::path(path).stem().string();
            OutputFile side{(stem.empty() ? std::string("buffer") : stem) + ".bin", std::move(bin)};
            ctx.doc.buffer_uri = encode_uri(side.name);
            out.side_files.push_back(std::move(side));
        }
    }
    auto [json, ok] = to_json(ctx.doc);
    if (!ok) return make_error(ErrorCode::Malformed, "a non-finite number reached the glTF JSON");
    if (glb) {
        if (json.size() + bin.size() + 64 > UINT32_MAX)
            return make_error(ErrorCode::LimitExceeded, fmt::format("the GLB would be {} bytes; its length field is 32-bit", json.size() + bin.size()));
        out.bytes = make_glb(json, std::move(bin));
        out.format = "glb";
    } else {
        out.bytes.assign(json.begin(), json.end());
    }
    return out;
}

}  // namespace

Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options) {
    return write_container(scene, path, options, has_glb_extension(path));
}

Expected<Output> write_glb(const Scene& scene, const std::string& path, const SaveOptions& options) {
    return write_container(scene, path, options, true);
}

}  // namespace rigport::gltf

// glTF 2.0 reader (Khronos glTF 2.0 specification; docs/gltf.md §8): .glb or .gltf -> Scene in
// glTF's own conventions (Y up, right-handed, counter-clockwise, metres). The parts:
// gltf_read_json.cpp, _buffers, _accessor, _nodes, _skeleton, _mesh, _morph, _place, _anim, _material.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <new>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf {

namespace {

using namespace read_detail;

// Extensions whose data this reader understands (the rest of extensionsRequired is refused).
// Each is described in docs/gltf.md §7.1.
bool understood(const std::string& name) {
    static const char* const names[] = {"KHR_mesh_quantization",          "EXT_meshopt_compression",         "KHR_draco_mesh_compression",
                                        "KHR_texture_transform",          "KHR_materials_emissive_strength", "KHR_materials_specular",
                                        "KHR_materials_unlit",            "KHR_materials_pbrSpecularGlossiness"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool check_document(Reader& r) {
    const Json* asset = r.object(r.root, "asset", "");
    if (!r.ok()) return false;
    if (!asset) return r.malformed("/asset", "missing (every glTF has asset.version)");
    std::string version, min_version;
    if (!r.string(*asset, "version", "/asset", version) || !r.string(*asset, "minVersion", "/asset", min_version)) return false;
    if (version.rfind("2.", 0) != 0) return r.fail(ErrorCode::Unsupported, "/asset/version", fmt::format("'{}' (only glTF 2.x is read)", detail::excerpt(version)));
    if (!min_version.empty() && min_version != "2.0")
        return r.fail(ErrorCode::Unsupported, "/asset/minVersion", fmt::format("'{}' (this reader implements 2.0)", detail::excerpt(min_version)));
    r.scene.meta.source_version = 2;
    for (const char* list : {"accessors", "animations", "buffers", "bufferViews", "images", "materials", "meshes", "nodes", "samplers",
                             "scenes", "skins", "textures", "extensionsUsed", "extensionsRequired"})
        if (r.array(r.root, list, ""), !r.ok()) return false;

    std::vector<std::string> refused, ignored;
    for (bool required : {true, false}) {
        const char* list = required ? "extensionsRequired" : "extensionsUsed";
        const Json* names = Reader::find(r.root, list);
        for (size_t i = 0; names && i < names->size(); ++i) {
            if (!(*names)[i].is_string()) return r.malformed(fmt::format("/{}/{}", list, i), "expected a string");
            const std::string name((*names)[i].text);
            if (name == "KHR_mesh_quantization") r.quantization = true;
            auto& into = required ? refused : ignored;
            if (!understood(name) && std::find(refused.begin(), refused.end(), name) == refused.end() &&
                std::find(ignored.begin(), ignored.end(), name) == ignored.end())
                into.push_back(name);
        }
    }
    if (!refused.empty()) {
        std::string names;
        for (auto& n : refused) names += (names.empty() ? "" : ", ") + detail::excerpt(n);
        return r.fail(ErrorCode::Unsupported, "/extensionsRequired", fmt::format("{} not supported", names));
    }
    for (auto& n : ignored) r.warn(WarningCode::Ignored, fmt::format("extension {} ignored", n));

    // Conventions of glTF 2.0 §3.4: Y up, +Z forward, right-handed, counter-clockwise, metres.
    Meta& meta = r.scene.meta;
    meta.source_format = "gltf";
    meta.up = UpAxis::Y;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::CounterClockwise;
    meta.unit_scale = 1.0f;
    const Json* extras = r.object(*asset, "extras", "/asset");
    std::string comment, generator, copyright;
    if (!r.ok() || (extras && !r.string(*extras, "comment", "/asset/extras", comment)) || !r.string(*asset, "generator", "/asset", generator) ||
        !r.string(*asset, "copyright", "/asset", copyright))
        return false;
    // rigport's own output keeps the source comment in asset.extras.comment; otherwise the
    // generator and copyright say where the file came from.
    if (!comment.empty()) meta.comment = comment;
    else if (!generator.empty() || !copyright.empty())
        meta.comment = (generator.empty() ? "" : "glTF generator: " + generator) + (generator.empty() || copyright.empty() ? "" : "\n") +
                       (copyright.empty() ? "" : "copyright: " + copyright);
    return true;
}

template <class Items>
bool finite(const Items& items) {
    for (auto& item : items)
        for (float v : item)
            if (!std::isfinite(v)) return false;
    return true;
}

// Node transforms can carry finite data past float range; what no writer could keep is refused.
bool check_finite(Reader& r) {
    for (size_t m = 0; m < r.scene.meshes.size(); ++m) {
        const Mesh& mesh = r.scene.meshes[m];
        bool ok = finite(mesh.positions) && finite(mesh.normals) && finite(mesh.tangents);
        for (auto& mt : mesh.morph_targets) ok = ok && finite(mt.position_deltas) && finite(mt.normal_deltas) && finite(mt.tangent_deltas);
        for (auto& inf : mesh.skin.influences) ok = ok && std::isfinite(inf.weight);
        if (!ok) return r.malformed("", fmt::format("mesh '{}': its node transform takes vertex data beyond float range", detail::excerpt(mesh.name)));
    }
    for (auto& j : r.scene.skeleton.joints)
        if (!finite(std::array<Vec3, 2>{j.bind.translate, j.bind.scale}) || !finite(std::array<Quat, 1>{j.bind.rotate}))
            return r.malformed("", fmt::format("joint '{}': its rest pose is beyond float range", detail::excerpt(j.name)));
    for (auto& a : r.scene.animations)
        for (auto& t : a.tracks)
            for (float v : t.values)
                if (!std::isfinite(v)) return r.malformed("", fmt::format("animation '{}': keys beyond float range", detail::excerpt(a.name)));
    return true;
}

Expected<Scene> read_document(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Reader r(options);
    r.bytes_read = bytes.size();
    std::span<const uint8_t> text = bytes;
    uint64_t base = 0;
    if (bytes.size() >= 4 && bytes[0] == 'g' && bytes[1] == 'l' && bytes[2] == 'T' && bytes[3] == 'F') {
        auto chunks = split_glb(bytes, r.scene.warnings);
        if (!chunks) return chunks.error();
        text = chunks->json;
        base = chunks->json_offset;
        r.glb = true;
        r.glb_bin = chunks->bin;
        while (!text.empty() && text.back() == 0) text = text.first(text.size() - 1);  // NUL padding seen in the wild
    }
    auto doc = parse_json(text, base, options.max_depth);
    if (!doc) return doc.error();
    r.json = std::move(*doc);
    r.root = r.json.root();

    Plan plan;
    if (check_document(r) && read_materials(r) && read_nodes(r, plan) && build_skeleton(r, plan) && place_meshes(r, plan) &&
        read_animations(r, plan))
        check_finite(r);
    if (r.error) return *r.error;
    // The scene's invariants are checked by load_bytes, once for every format (src/pipeline/load.cpp).
    return std::move(r.scene);
}

}  // namespace

// The last guard of "no exception crosses the API": the reader itself uses no throwing calls,
// but an allocation can still fail on hostile sizes below the limits.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    try {
        return read_document(bytes, options);
    } catch (const std::bad_alloc&) {
        return make_error(ErrorCode::LimitExceeded, "out of memory while reading the glTF");
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Malformed, fmt::format("glTF reader: {}", e.what()));
    }
}

}  // namespace rigport::gltf

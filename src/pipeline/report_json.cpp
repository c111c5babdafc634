// The info and validate reports as JSON (include/rigport/report.hpp): one builder for the CLI's
// --json output and the Python module's dicts.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "rigport/compile.hpp"
#include "rigport/report.hpp"

namespace rigport {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace); }

std::string attribute_label(Attribute attribute, uint32_t set) {
    std::string label = to_string(attribute);
    if (set > 0) label += std::to_string(set);
    return label;
}

// What the source stored (meta.attribute_formats) plus the custom arrays by name. A reader that
// recorded no formats gets rows derived from the streams the meshes hold.
std::vector<VertexArrayRow> vertex_rows(const Scene& scene) {
    std::vector<VertexArrayRow> rows;
    for (auto& af : scene.meta.attribute_formats)
        rows.push_back({attribute_label(af.attribute, af.set), "", to_string(af.type), af.size});
    if (rows.empty() && !scene.meshes.empty()) {
        const Mesh& m = scene.meshes.front();
        auto f32 = to_string(ComponentType::Float32);
        rows.push_back({"position", "", f32, 3});
        for (size_t s = 0; s < m.texcoords.size(); ++s) rows.push_back({attribute_label(Attribute::Texcoord, uint32_t(s)), "", f32, 2});
        if (!m.normals.empty()) rows.push_back({"normal", "", f32, 3});
        if (!m.tangents.empty()) rows.push_back({"tangent", "", f32, 4});
        if (!m.skin.empty()) {
            // Influences per vertex vary; the row shows the most any vertex of any mesh has.
            uint32_t widest = 0;
            for (auto& mesh : scene.meshes)
                for (size_t v = 0; v + 1 < mesh.skin.offsets.size(); ++v)
                    widest = std::max(widest, mesh.skin.offsets[v + 1] - mesh.skin.offsets[v]);
            rows.push_back({"blendindexes", "", to_string(ComponentType::UInt32), widest});
            rows.push_back({"blendweights", "", f32, widest});
        }
        for (size_t s = 0; s < m.colors.size(); ++s) rows.push_back({attribute_label(Attribute::Color, uint32_t(s)), "", f32, 4});
    }
    std::set<std::string> seen;
    for (auto& mesh : scene.meshes)
        for (auto& c : mesh.custom)
            if (seen.insert(c.name).second) rows.push_back({"custom", c.name, to_string(c.type), c.size});
    return rows;
}

// Frames of an animation: the source's frame count, else the number of distinct key times.
uint64_t frames_of(const Animation& a) {
    if (a.frame_count > 0) return a.frame_count;
    std::set<float> times;
    for (auto& t : a.tracks) times.insert(t.times.begin(), t.times.end());
    for (auto& t : a.morph_tracks) times.insert(t.times.begin(), t.times.end());
    return times.size();
}

std::string material_of(const Scene& scene, const Mesh& mesh) {
    return mesh.material >= 0 && size_t(mesh.material) < scene.materials.size() ? scene.materials[size_t(mesh.material)].name : "";
}

Json scene_json(const std::string& path, const Scene& scene) {
    Json j;
    j["path"] = path;
    j["format"] = scene.meta.source_format;
    j["version"] = scene.meta.source_version;
    j["unit_scale"] = scene.meta.unit_scale;  // metres per unit (docs/units.md)
    j["vertices"] = scene.vertex_count();
    j["triangles"] = scene.triangle_count();
    j["joints"] = scene.skeleton.animation_only ? 0 : scene.skeleton.joints.size();
    j["poses"] = scene.skeleton.joints.size();
    j["animation_only"] = scene.skeleton.animation_only;
    j["meshes"] = Json::array();
    for (auto& m : scene.meshes)
        j["meshes"].push_back({{"name", m.name}, {"material", material_of(scene, m)}, {"vertices", m.vertex_count()},
                               {"triangles", m.triangles.size()}, {"morph_targets", m.morph_targets.size()}});
    j["materials"] = Json::array();
    for (auto& m : scene.materials) j["materials"].push_back(m.name);
    j["vertex_arrays"] = Json::array();
    for (auto& row : vertex_rows(scene)) {
        Json a{{"type", row.type}, {"format", row.format}, {"size", row.size}};
        if (!row.name.empty()) a["name"] = row.name;
        j["vertex_arrays"].push_back(std::move(a));
    }
    j["skeleton"] = Json::array();
    for (auto& jt : scene.skeleton.joints) j["skeleton"].push_back({{"name", jt.name}, {"parent", jt.parent}});
    j["animations"] = Json::array();
    for (auto& a : scene.animations)
        j["animations"].push_back({{"name", a.name}, {"frames", frames_of(a)}, {"fps", a.frame_rate}, {"loop", a.loop}});
    if (scene.meta.stored_bounds.empty()) {
        j["bounds"] = nullptr;
    } else {
        const FrameBounds& b = scene.meta.stored_bounds.front();
        j["bounds"] = {{"frames", scene.meta.stored_bounds.size()}, {"min", b.min}, {"max", b.max},
                       {"xy_radius", b.xy_radius}, {"radius", b.radius}};
    }
    j["comment"] = scene.meta.comment;
    j["extensions"] = Json::array();
    for (auto& e : scene.meta.extensions) j["extensions"].push_back({{"name", e.name}, {"bytes", e.data.size()}});
    j["warnings"] = Json::array();
    for (auto& w : scene.warnings.items) j["warnings"].push_back(warning_text(w));
    return j;
}

}  // namespace

std::vector<VertexArrayRow> vertex_array_rows(const Scene& scene) { return vertex_rows(scene); }
uint64_t info_frame_count(const Animation& animation) { return frames_of(animation); }
std::string mesh_material_name(const Scene& scene, const Mesh& mesh) { return material_of(scene, mesh); }

std::string error_json(const Error& error) {
    Json j;
    j["code"] = to_string(error.code);
    j["message"] = error.message;
    if (!error.path.empty()) j["path"] = error.path;
    if (error.line > 0) {
        j["line"] = error.line;
        j["column"] = error.column;
    }
    if (error.offset) j["offset"] = *error.offset;
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string info_json(const std::string& path, const Scene& scene) { return dump(scene_json(path, scene)); }

std::string info_json(const ModelInfo& info) {
    Json j = scene_json(info.paths.front(), info.scene);
    j["companions"] = info.companions;
    if (info.paths.size() > 1) j["inputs"] = info.paths;
    for (auto& part : info.parts) {
        Json counts = Json::object();
        for (auto& [name, value] : part.counts) counts[std::string(name)] = value;
        j[fmt::format("{}_{}s", info.format->name, part.part)].push_back(std::move(counts));
    }
    return dump(j);
}

std::string pack_info_json(const std::string& path, const JpkPack& pack) {
    Json j;
    j["path"] = path;
    j["format"] = "jpk";
    j["members"] = Json::array();
    for (auto& e : pack.entries)
        if (!e.overridden) j["members"].push_back({{"name", e.name}, {"length", e.length}});
    return dump(j);
}

std::string validation_json(const ValidationReport& r) {
    Json j;
    j["path"] = r.path;
    j["format"] = r.format;
    j["errors"] = r.count(Severity::Error);
    j["warnings"] = r.count(Severity::Warning);
    j["infos"] = r.count(Severity::Info);
    j["companions"] = r.companions;
    // What a format's checker measured over stored data (IQM: "adjacency").
    for (auto& t : r.tallies) {
        Json counts = Json::object();
        for (auto& [key, value] : t.counts) counts[key] = value;
        j[t.name] = std::move(counts);
    }
    j["findings"] = Json::array();
    for (auto& f : r.findings) {
        Json o{{"severity", to_string(f.severity)}, {"code", f.code}, {"message", f.message}};
        o["offset"] = f.offset ? Json(*f.offset) : Json(nullptr);
        o["count"] = f.count;
        j["findings"].push_back(std::move(o));
    }
    return dump(j);
}

}  // namespace rigport

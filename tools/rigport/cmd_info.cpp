// `rigport info FILE [--json]`: what a model holds, as text or one JSON object.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "cli.hpp"
#include "rigport/jpk.hpp"

namespace rigport::cli {

namespace {

using Json = nlohmann::ordered_json;

struct ArrayRow {
    std::string type;  // "position", "texcoord1", "custom"
    std::string name;  // custom arrays only
    std::string format;
    uint32_t size = 0;
};

std::string attribute_label(Attribute attribute, uint32_t set) {
    std::string label = to_string(attribute);
    if (set > 0) label += std::to_string(set);
    return label;
}

// What the source stored (meta.attribute_formats) plus the custom arrays by name. A reader that
// recorded no formats gets rows derived from the streams the meshes hold.
std::vector<ArrayRow> vertex_arrays(const Scene& scene) {
    std::vector<ArrayRow> rows;
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
uint64_t frame_count(const Animation& a) {
    if (a.frame_count > 0) return a.frame_count;
    std::set<float> times;
    for (auto& t : a.tracks) times.insert(t.times.begin(), t.times.end());
    for (auto& t : a.morph_tracks) times.insert(t.times.begin(), t.times.end());
    return times.size();
}

uint64_t named_joints(const Scene& scene) { return scene.skeleton.animation_only ? 0 : scene.skeleton.joints.size(); }

std::string material_name(const Scene& scene, const Mesh& mesh) {
    return mesh.material >= 0 && size_t(mesh.material) < scene.materials.size() ? scene.materials[size_t(mesh.material)].name : "";
}

std::string joint_label(const Scene& scene, size_t j) {
    const std::string& name = scene.skeleton.joints[j].name;
    return name.empty() ? fmt::format("#{}", j) : printable(name, 80);
}

}  // namespace

Json to_json(const std::string& path, const Scene& scene) {
    Json j;
    j["path"] = path;
    j["format"] = scene.meta.source_format;
    j["version"] = scene.meta.source_version;
    j["vertices"] = scene.vertex_count();
    j["triangles"] = scene.triangle_count();
    j["joints"] = named_joints(scene);
    j["poses"] = scene.skeleton.joints.size();
    j["animation_only"] = scene.skeleton.animation_only;
    j["meshes"] = Json::array();
    for (auto& m : scene.meshes)
        j["meshes"].push_back({{"name", m.name}, {"material", material_name(scene, m)}, {"vertices", m.vertex_count()},
                               {"triangles", m.triangles.size()}});
    j["materials"] = Json::array();
    for (auto& m : scene.materials) j["materials"].push_back(m.name);
    j["vertex_arrays"] = Json::array();
    for (auto& row : vertex_arrays(scene)) {
        Json a{{"type", row.type}, {"format", row.format}, {"size", row.size}};
        if (!row.name.empty()) a["name"] = row.name;
        j["vertex_arrays"].push_back(std::move(a));
    }
    j["skeleton"] = Json::array();
    for (auto& jt : scene.skeleton.joints) j["skeleton"].push_back({{"name", jt.name}, {"parent", jt.parent}});
    j["animations"] = Json::array();
    for (auto& a : scene.animations)
        j["animations"].push_back({{"name", a.name}, {"frames", frame_count(a)}, {"fps", a.frame_rate}, {"loop", a.loop}});
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

namespace {

void print_joint_tree(const Scene& scene) {
    const auto& joints = scene.skeleton.joints;
    std::vector<uint32_t> depth(joints.size(), 0);
    // Joints are parent-first (a loader invariant), so a parent's depth is known before its children's.
    for (size_t j = 0; j < joints.size(); ++j) {
        const int32_t p = joints[j].parent;
        if (p >= 0 && size_t(p) < j) depth[j] = depth[size_t(p)] + 1;
    }
    // Depth-first order: children listed under their parent, in index order.
    std::vector<std::vector<size_t>> children(joints.size());
    std::vector<size_t> stack;
    for (size_t j = joints.size(); j-- > 0;) {
        const int32_t p = joints[j].parent;
        if (p >= 0 && size_t(p) < j)
            children[size_t(p)].push_back(j);
        else
            stack.push_back(j);
    }
    while (!stack.empty()) {
        size_t j = stack.back();
        stack.pop_back();
        fmt::print("  {:{}}{}\n", "", 2 * depth[j], joint_label(scene, j));
        for (size_t c : children[j]) stack.push_back(c);  // children were collected in reverse index order
    }
}

void print_text(const std::string& path, const Scene& scene) {
    const Meta& meta = scene.meta;
    fmt::print("{}: {} version {}\n", path, meta.source_format, meta.source_version);
    fmt::print("meshes: {} ({} vertices, {} triangles)\n", scene.meshes.size(), scene.vertex_count(), scene.triangle_count());
    for (auto& m : scene.meshes)
        fmt::print("  {:<24} material {:<24} {:>7} vertices {:>7} triangles\n", fmt::format("'{}'", printable(m.name, 60)),
                   fmt::format("'{}'", printable(material_name(scene, m), 60)), m.vertex_count(), m.triangles.size());
    auto rows = vertex_arrays(scene);
    fmt::print("vertex arrays: {}\n", rows.size());
    for (auto& row : rows)
        fmt::print("  {:<14} {:<7} x{}\n", row.name.empty() ? row.type : fmt::format("custom '{}'", printable(row.name, 60)),
                   row.format, row.size);
    const auto& joints = scene.skeleton.joints;
    if (scene.skeleton.animation_only)
        fmt::print("joints: none (animation only: {} poses without names or bind pose)\n", joints.size());
    else
        fmt::print("joints: {}\n", joints.size());
    print_joint_tree(scene);
    fmt::print("animations: {}\n", scene.animations.size());
    for (auto& a : scene.animations)
        fmt::print("  {:<24} {:>5} frames {:>7.4g} fps{}\n", fmt::format("'{}'", printable(a.name, 60)), frame_count(a), a.frame_rate,
                   a.loop ? "  loop" : "");
    if (meta.stored_bounds.empty()) {
        fmt::print("bounds: none stored\n");
    } else {
        const FrameBounds& b = meta.stored_bounds.front();
        fmt::print("bounds: {} frames stored; frame 0 min ({:.4g}, {:.4g}, {:.4g}) max ({:.4g}, {:.4g}, {:.4g}) radius {:.4g}\n",
                   meta.stored_bounds.size(), b.min[0], b.min[1], b.min[2], b.max[0], b.max[1], b.max[2], b.radius);
    }
    if (meta.comment.empty())
        fmt::print("comment: none\n");
    else
        fmt::print("comment: '{}' ({} bytes)\n", printable(meta.comment), meta.comment.size());
    fmt::print("extensions: {}\n", meta.extensions.size());
    for (auto& e : meta.extensions) fmt::print("  {:<24} {} bytes\n", printable(e.name, 60), e.data.size());
    fmt::print("warnings: {}\n", scene.warnings.items.size());
    for (auto& w : scene.warnings.items) fmt::print("  {}\n", warning_text(w));
}

struct InfoArgs {
    std::string path;                // the first file
    std::vector<std::string> paths;  // every file given
    bool json = false;
    LoadFlags load;
};

}  // namespace

// One file as loaded (a .cfg with its members too); several (a Cal3D character, a mesh and its
// animation files): the one scene `rigport convert` builds from them, before a writer's needs
// (every influence, keys as they are).
Expected<Scene> load_model(const std::vector<std::string>& paths, const LoadOptions& load_options) {
    if (paths.size() == 1) return load(paths[0], load_options);
    std::vector<CompileInput> inputs;
    for (auto& p : paths) inputs.push_back(CompileInput{{p}, {}});
    CompileOptions options;
    options.load = load_options;
    return compile(inputs, options);
}

namespace {

// A VDrift JPK pack is an archive, not a model: its members are listed, with the way to read one
// (`rigport info PACK.jpk:MEMBER`). Returns nothing when the file is not a pack.
std::optional<int> info_pack(const std::string& path, bool json) {
    // The signature first: a model is not read twice to find it is not a pack. Only a regular
    // file is opened (a named pipe would block).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    char head[sizeof(jpk_signature)] = {};
    std::ifstream(path, std::ios::binary).read(head, sizeof(head));
    if (std::memcmp(head, jpk_signature, sizeof(head)) != 0) return std::nullopt;
    auto bytes = read_file(path);
    if (!bytes || !detect_jpk(*bytes)) return std::nullopt;
    auto pack = parse_jpk(*bytes);
    if (!pack) {
        Error e = pack.error();
        e.path = path;
        return fail(e, read_exit_code(e), json);
    }
    if (json) {
        Json j;
        j["path"] = path;
        j["format"] = "jpk";
        j["members"] = Json::array();
        for (auto& e : pack->entries)
            if (!e.overridden) j["members"].push_back({{"name", e.name}, {"length", e.length}});
        fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
        return exit_ok;
    }
    uint64_t members = 0;
    for (auto& e : pack->entries) members += !e.overridden;
    fmt::print("{}: VDrift JPK pack, {} members (a pack, not a model: read one as {}:MEMBER; `rigport pack list` shows the layout)\n",
               path, members, path);
    for (auto& e : pack->entries)
        if (!e.overridden) fmt::print("  {:>10}  {}\n", e.length, printable(e.name, 200));
    return exit_ok;
}

}  // namespace

Verb add_info(CLI::App& app) {
    auto args = std::make_shared<InfoArgs>();
    CLI::App* sub = app.add_subcommand("info", "Show what a model holds: meshes, vertex arrays, joints, animations, bounds");
    sub->add_option("FILE", args->paths, "Model file; several files (or a .cfg) are one model, as 'convert' merges them")->required();
    sub->add_flag("--json", args->json, "Print one JSON object instead of text; a failure as {\"error\": {...}}");
    args->load.add_to(sub);
    return {sub, [args]() -> int {
                args->path = args->paths.front();
                if (args->paths.size() == 1)
                    if (auto listed = info_pack(args->path, args->json)) return *listed;
                auto scene = load_model(args->paths, args->load.load_options());
                if (!scene) return fail(scene.error(), read_exit_code(scene.error()), args->json);
                // Counts the file stores per part that the scene does not show (JOE: per frame,
                // before VDrift welds corners; docs/joe.md), when its format has them.
                const FormatInfo* format = find_format(scene->meta.source_format);
                std::vector<StoredPart> parts;
                if (args->paths.size() == 1 && format && format->stored_parts)
                    if (auto bytes = read_input(args->path, args->load.load_options()); bytes)
                        if (auto stored = format->stored_parts(*bytes); stored) parts = std::move(*stored);
                if (args->json) {
                    // Names and comments are bytes from the file: invalid UTF-8 is replaced, never fatal.
                    Json j = to_json(args->path, *scene);
                    if (args->paths.size() > 1) j["inputs"] = args->paths;
                    for (auto& part : parts) {
                        Json counts = Json::object();
                        for (auto& [name, value] : part.counts) counts[std::string(name)] = value;
                        j[fmt::format("{}_{}s", format->name, part.part)].push_back(std::move(counts));
                    }
                    fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
                } else {
                    print_text(args->path, *scene);
                    for (size_t i = 0; i < parts.size(); ++i) {
                        std::string line = fmt::format("{} {} {}:", format->name, parts[i].part, i);
                        for (size_t k = 0; k < parts[i].counts.size(); ++k)
                            line += fmt::format("{} {} {}", k ? "," : "", parts[i].counts[k].second, parts[i].counts[k].first);
                        fmt::print("{}\n", line);
                    }
                }
                return exit_ok;
            }};
}

}  // namespace rigport::cli

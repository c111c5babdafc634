// `rigport info FILE [--json]`: what a model holds, as text or one JSON object.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli.hpp"
#include "rigport/jpk.hpp"

namespace rigport::cli {

namespace {

using Json = nlohmann::ordered_json;

std::string joint_label(const Scene& scene, size_t j) {
    const std::string& name = scene.skeleton.joints[j].name;
    return name.empty() ? fmt::format("#{}", j) : printable(name, 80);
}

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
    // The unit, where the file says it is not metres (FBX: UnitScaleFactor; docs/units.md).
    if (meta.unit_scale != 1.0f) fmt::print("unit: {:g} m (glTF and IQM outputs are scaled to metres)\n", meta.unit_scale);
    fmt::print("meshes: {} ({} vertices, {} triangles)\n", scene.meshes.size(), scene.vertex_count(), scene.triangle_count());
    for (auto& m : scene.meshes)
        fmt::print("  {:<24} material {:<24} {:>7} vertices {:>7} triangles{}\n", fmt::format("'{}'", printable(m.name, 60)),
                   fmt::format("'{}'", printable(mesh_material_name(scene, m), 60)), m.vertex_count(), m.triangles.size(),
                   m.morph_targets.empty() ? std::string() : fmt::format(" {:>5} morph targets", m.morph_targets.size()));
    auto rows = vertex_array_rows(scene);
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
        fmt::print("  {:<24} {:>5} frames {:>7.4g} fps{}\n", fmt::format("'{}'", printable(a.name, 60)), info_frame_count(a), a.frame_rate,
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
    for (auto& line : warning_lines(scene.warnings.items)) fmt::print("  {}\n", terminal_text(line.text));
}

struct InfoArgs {
    std::string path;                // the first file
    std::vector<std::string> paths;  // every file given
    bool json = false;
    LoadFlags load;
};

}  // namespace

namespace {

// A VDrift JPK pack is an archive, not a model: its members are listed, with the way to read one
// (`rigport info PACK.jpk:MEMBER`). Returns nothing when the file is not a pack.
std::optional<int> info_pack(const std::string& path, bool json) {
    auto pack = read_pack_listing(path);
    if (!pack) return std::nullopt;
    if (!*pack) return fail(pack->error(), read_exit_code(pack->error()), json);
    if (json) {
        fmt::print("{}\n", pack_info_json(path, **pack));
        return exit_ok;
    }
    uint64_t members = 0;
    for (auto& e : (*pack)->entries) members += !e.overridden;
    fmt::print("{}: VDrift JPK pack, {} members (a pack, not a model: read one as {}:MEMBER; `rigport pack list` shows the layout)\n",
               path, members, path);
    for (auto& e : (*pack)->entries)
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
                auto info = read_model_info(args->paths, args->load.load_options());
                if (!info) return fail(info.error(), read_exit_code(info.error()), args->json);
                print_companions(args->path, info->companions);
                const Scene* scene = &info->scene;
                const FormatInfo* format = info->format;
                const std::vector<StoredPart>& parts = info->parts;
                if (args->json) {
                    // Names and comments are bytes from the file: invalid UTF-8 is replaced, never fatal.
                    fmt::print("{}\n", info_json(*info));
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

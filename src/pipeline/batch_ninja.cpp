// A batch as a Ninja build file: one edge per model running `rigport convert`, so Ninja converts
// again only the models whose files changed (docs/cli.md "Build systems").
#include <fmt/format.h>

#include <filesystem>
#include <utility>

#include "rigport/batch.hpp"

namespace rigport {

namespace {

// Paths are absolute, so the file works from any folder; each edge's command gets its paths
// shell-quoted in edge variables (Ninja does not quote $in and $out). `rigport convert
// --ninja-deps` prints every file the conversion read, which Ninja records (deps = msvc, the one
// form of its dependency input that takes any name but a line break), so Ninja rebuilds a model
// when its input, a .cfg member, a .gltf buffer or a texture changes, and only then. A model
// under a folder whose path Ninja's msvc reader drops ("Program Files") uses --depfile instead
// (deps = gcc), which takes fewer names.

std::string absolute_path(const std::string& p) {
    std::error_code ec;
    std::filesystem::path a = std::filesystem::absolute(p, ec);
    return (ec ? std::filesystem::path(p) : a).lexically_normal().string();
}
// A path in a `build` line: '$', ' ' and ':' escaped with '$'; '|' (which Ninja 1.11 cannot
// escape) as the file-scope variable rigport_pipe. Line breaks were refused before.
std::string ninja_path(const std::string& p) {
    std::string out;
    for (char c : p) {
        if (c == '|') {
            out += "${rigport_pipe}";
            continue;
        }
        if (c == '$' || c == ' ' || c == ':') out += '$';
        out += c;
    }
    return out;
}
// A value in single quotes for the shell, '$' doubled for Ninja's variable expansion.
std::string ninja_shell_quoted(const std::string& p) {
    std::string out = "'";
    for (char c : p) {
        if (c == '\'') out += "'\\''";
        else if (c == '$') out += "$$";
        else out += c;
    }
    return out + "'";
}

// A line break ends a line of a build file whatever the escaping: a path with one is refused.
Status line_safe(const std::string& path, const std::string& what) {
    if (path.find_first_of("\r\n") == std::string::npos) return Ok{};
    return make_error(ErrorCode::InvalidArgument, fmt::format("{} {:?}: a path with a line break cannot go into a build file", what, path));
}

// The convert options a build file's command line cannot carry (it passes on the format, the unit,
// the texture paths and the vertex frame rate): the first one set, by its ConvertOptions name;
// empty when none.
std::string option_not_passed_on(const ConvertOptions& o) {
    const TransformOptions t;
    const bool transformed = o.transform.scale != t.scale || o.transform.rotate_degrees != t.rotate_degrees || o.transform.meshtrans != t.meshtrans;
    const std::pair<bool, const char*> set[] = {
        {transformed, "transform"}, {o.clip_end.has_value(), "clip_end"}, {o.force_joints, "force_joints"}, {o.fix_normals, "fix_normals"},
        {o.force, "force"}, {o.axis != GltfOptions::AxisMode::Bake, "axis"}, {o.loop_key, "loop_key"},
        {o.images.mode != ImageOptions::Mode::Auto, "images.mode"}, {o.images.convert, "images.convert"},
        {o.cal3d.dialect != Cal3dOptions::Dialect::Imvu919, "cal3d.dialect"}, {o.cal3d.binary, "cal3d.binary"}, {!o.md3.tags.empty(), "md3.tags"},
        {o.fbx.ascii, "fbx.ascii"}, {o.fbx.version != FbxOptions{}.version, "fbx.version"},
        {o.load.allow_outside, "load.allow_outside"}, {o.load.allow_missing, "load.allow_missing"}, {o.load.resample_curves, "load.resample_curves"}};
    for (auto& [on, name] : set)
        if (on) return name;
    return {};
}

}  // namespace

Expected<NinjaFile> ninja_text(const BatchPlan& plan, const BatchOptions& o, const std::string& rigport_binary) {
    if (const std::string option = option_not_passed_on(o.convert); !option.empty())
        return make_error(ErrorCode::InvalidArgument,
                          fmt::format("convert.{} is set, and a build file's commands pass on only the format, the unit, the texture paths and the frame rate", option));
    if (auto st = prepare_batch(plan, o); !st) return st.error();
    for (auto& [what, path] : {std::pair<std::string, std::string>{o.names.build_file, o.build_file}, {"the rigport binary", rigport_binary}})
        if (auto st = line_safe(path, what); !st) return st.error();
    for (auto& m : plan.jobs) {
        auto st = line_safe(m.input, "the model");
        for (auto& c : m.companions)
            if (st) st = line_safe(c, "the animation file");
        if (st) st = line_safe(m.output, "the output");
        if (!st) return st.error();
    }
    // The command line passes the format by its registry name: letters and digits only; the unit
    // likewise (checked against the known names by plan_batch). Texture paths go in absolute
    // (Ninja may run elsewhere), quoted as the inputs are.
    const std::string& unit = o.convert.unit;
    std::string common_args = unit.empty() ? "" : " --unit " + unit;
    if (o.convert.load.vertex_frame_rate != 0.0f) common_args += fmt::format(" --frame-rate {}", o.convert.load.vertex_frame_rate);
    for (auto& dir : o.convert.images.texture_paths) {
        if (auto st = line_safe(dir, fmt::format("the {} folder", o.names.texture_paths)); !st) return st.error();
        common_args += " --texture-path " + ninja_shell_quoted(absolute_path(dir));
    }
    // The cache goes on to every command (absolute, as Ninja may run elsewhere): a model Ninja
    // rebuilds whose files are as an entry has them is written from it (docs/scale.md "Ninja and Make").
    if (!o.convert.cache.dir.empty()) {
        if (auto st = line_safe(o.convert.cache.dir, "the cache folder"); !st) return st.error();
        common_args += " --cache " + ninja_shell_quoted(absolute_path(o.convert.cache.dir));
        if (o.convert.cache.max_bytes) common_args += fmt::format(" --cache-max {}", o.convert.cache.max_bytes);
    }
    const std::string_view format = plan.format->name;
    NinjaFile file;
    file.text = fmt::format(
        "# Written by `rigport batch --ninja`: `ninja -f FILE` converts the models whose files changed.\n"
        "ninja_required_version = 1.5\n"
        "rigport = {}\n"
        "rigport_pipe = |\n\n"
        "rule convert\n"
        "  command = $rigport convert $input -o $output --format {}{} --ninja-deps -q\n"
        "  deps = msvc\n"
        "  msvc_deps_prefix = {}\n"
        "  description = rigport $in -> $out\n\n"
        "rule convert_depfile\n"
        "  command = $rigport convert $input -o $output --format {}{} --depfile $output.d -q\n"
        "  depfile = $out.d\n"
        "  deps = gcc\n"
        "  description = rigport $in -> $out\n\n",
        ninja_shell_quoted(rigport_binary), format, common_args, ninja_deps_prefix, format, common_args);
    for (auto& m : plan.jobs) {
        if (m.refused) continue;
        // The mesh first, then its animation files (convert binds them by joint name).
        std::string ins, quoted;
        std::vector<std::string> files{m.input};
        files.insert(files.end(), m.companions.begin(), m.companions.end());
        bool msvc_drops = false;
        for (auto& f : files) {
            const std::string abs = absolute_path(f);
            ins += (ins.empty() ? "" : " ") + ninja_path(abs);
            quoted += (quoted.empty() ? "" : " ") + ninja_shell_quoted(abs);
            msvc_drops = msvc_drops || ninja_msvc_drops(abs);
        }
        const std::string out = absolute_path(m.output);
        file.text += fmt::format("build {}: {} {}\n  input = {}\n  output = {}\n", ninja_path(out), msvc_drops ? "convert_depfile" : "convert", ins,
                                 quoted, ninja_shell_quoted(out));
        ++file.edges;
    }
    return file;
}

}  // namespace rigport

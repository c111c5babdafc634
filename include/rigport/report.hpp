// The reports `rigport info --json` and `rigport validate --json` print, built here so the CLI and
// the Python module give the same objects (docs/cli.md, docs/python.md).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/scene.hpp"
#include "rigport/validate.hpp"

namespace rigport {

// "path: offset N: code: message", with " (N times)" when the warning was seen N > 1 times.
std::string warning_text(const Warning& warning);

// A line of warnings as printed for a person, and how many of the warnings it stands for.
struct WarningLine {
    std::string text;
    size_t warnings = 1;
};
// The warnings as lines: warning_text() of each, except that warnings of one code and file whose
// messages differ only in their quoted names, numbers and paths (one per material, mesh, value) are
// folded into the first one's line: "MESSAGE (N times; also 'B', 'C', 'D' and 8 more)", where N
// adds up their counts. Lines keep the order of each fold's first warning (docs/cli.md "Warnings").
std::vector<WarningLine> warning_lines(std::span<const Warning> warnings);

// Text from a model (a name, a path, a message quoting it) as it may be printed on a terminal:
// valid UTF-8 kept, control characters (C0, DEL, C1) and bytes that are not UTF-8 written as
// \xNN (\n, \r, \t by name); at most max_bytes of it, then "..." (a character or escape is never
// split). The readers' quotes and the CLI's messages use this one routine (docs/cli.md "Messages").
std::string printable_text(std::string_view text, size_t max_bytes = std::string::npos);
// {"code", "message", "path", "line", "column", "offset"} as compact JSON; the place fields the
// error does not have are left out.
std::string error_json(const Error& error);

// A row of info's "vertex_arrays": what the source stored per attribute (meta.attribute_formats,
// else rows derived from the streams the meshes hold), then the custom arrays by name.
struct VertexArrayRow {
    std::string type;  // "position", "texcoord1", "custom"
    std::string name;  // custom arrays only
    std::string format;
    uint32_t size = 0;
};
std::vector<VertexArrayRow> vertex_array_rows(const Scene& scene);
// Frames of an animation as info counts them: the source's frame count, else distinct key times.
uint64_t info_frame_count(const Animation& animation);
// The name of a mesh's material, "" when it has none.
std::string mesh_material_name(const Scene& scene, const Mesh& mesh);

// One file as loaded (a .cfg with its members too); several (a Cal3D character, a mesh and its
// animation files): the one scene `rigport convert` builds from them, before a writer's needs
// (every influence, keys as they are). One mesh file takes its companions (add_companions, unless
// options.companions is off); companions, when given, gets them.
Expected<Scene> load_model(const std::vector<std::string>& paths, const LoadOptions& options = {},
                           std::vector<std::string>* companions = nullptr);

// What `rigport info` describes: the model as load_model gives it, plus the counts its file stores
// per part (FormatInfo::stored_parts; one file only).
struct ModelInfo {
    std::vector<std::string> paths;  // as given; the first names the model
    std::vector<std::string> companions;  // the files beside it read with it (add_companions)
    Scene scene;
    const FormatInfo* format = nullptr;  // the scene's source format, when registered
    std::vector<StoredPart> parts;
};
Expected<ModelInfo> read_model_info(const std::vector<std::string>& paths, const LoadOptions& options = {});

// `rigport info --json`'s object (indented by 2, invalid UTF-8 replaced): for one scene alone, and
// for a ModelInfo (adds "companions", "inputs" for several files and "<format>_<part>s").
std::string info_json(const std::string& path, const Scene& scene);
std::string info_json(const ModelInfo& info);

// A VDrift JPK pack is an archive, not a model: nothing when the file at path is not one (only a
// regular file's first bytes are looked at), else the pack or its error (naming path).
std::optional<Expected<JpkPack>> read_pack_listing(const std::string& path);
// `rigport info --json` of a pack: {"path", "format": "jpk", "members": [{"name", "length"}]}.
std::string pack_info_json(const std::string& path, const JpkPack& pack);

// The report `rigport validate` gives: one file as stored (validate_file), several as the one
// model convert builds (validate_compiled); one mesh file with companions (add_companions) as
// several, the report's companions naming them.
Expected<ValidationReport> validate_model(const std::vector<std::string>& paths, const LoadOptions& options = {});
// `rigport validate --json`'s object (indented by 2).
std::string validation_json(const ValidationReport& report);

}  // namespace rigport

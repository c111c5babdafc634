// The format registry: each format's name, extensions, content detection, reader and writer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"
#include "rigport/validate.hpp"

namespace rigport {

// Counts a file stores per part that its scene does not show (JOE: each frame's faces, verts,
// texcoords, normals and corners, before VDrift welds corners; docs/joe.md). `rigport info` prints
// them as "<format> <part> <i>: <value> <name>, ..." and in JSON as "<format>_<part>s".
struct StoredPart {
    std::string_view part;                                   // "frame"
    std::vector<std::pair<std::string_view, uint64_t>> counts;  // in the file's order
};

// What a file listing one model's files names (a studiomdl .qc): its mesh files and its animation
// files, as written (relative to the list's folder). Names the list's format leaves without an
// extension come with the one it implies (a .qc's "idle" is "idle.smd").
struct ModelList {
    std::vector<std::string> meshes;
    std::vector<std::string> animations;
};

struct FormatInfo {
    std::string_view name;                     // "iqm"
    std::string_view description;              // "Inter-Quake Model (binary)"
    std::vector<std::string_view> extensions;  // lower case, with the dot: ".iqm"
    // True when the bytes are this format (magic and version), whatever the file is called.
    bool (*detect)(std::span<const uint8_t> bytes) = nullptr;
    Expected<Scene> (*read)(std::span<const uint8_t> bytes, const LoadOptions& options) = nullptr;
    // path names the output (its extension may pick a variant, its stem names side files).
    Expected<Output> (*write)(const Scene& scene, const std::string& path, const SaveOptions& options) = nullptr;
    // Format-specific structural checks, added to the report (may be null).
    void (*validate)(std::span<const uint8_t> bytes, const LoadOptions& options, ValidationReport& report) = nullptr;
    // What the format holds, so that a caller prepares a scene for it without knowing its name:
    uint32_t max_influences = 0;   // skin influences per vertex it stores (IQM: 4); 0 = any number
    bool stated_duration = false;  // keeps a clip's length past its last key (Cal3D DURATION): no end keys are added
    bool holds_images = false;     // carries image data itself (glTF: inside the file, or beside it)
    // One of the reference compiler's source formats (IQE, MD5, SMD): Pipeline::Compiler runs on its
    // geometry, and an animation it leaves unnamed is named after its file.
    bool compiler_source = false;
    // Counts the file stores per part, for inspection (may be null).
    Expected<std::vector<StoredPart>> (*stored_parts)(std::span<const uint8_t> bytes) = nullptr;
    // The files this file is made of, as it names them (relative to its folder): a Cal3D .cfg's
    // members. A batch converts them as part of this file, not as models of their own (may be null).
    Expected<std::vector<std::string>> (*named_files)(std::span<const uint8_t> bytes) = nullptr;
    // The extension of this format's animation files, which go with the mesh file of the same
    // format beside them whose stem begins theirs, the longest such stem winning (MD5: Bob.md5mesh
    // takes Bob.md5anim and Bob_walk.md5anim; docs/cli.md "Companions"); empty = none by name.
    std::string_view animation_extension;
    // The unit of length the format defines, in metres (glTF 2.0 and IQM: 1, metres); 0 = the format
    // does not say. save_output converts a scene to it unless SaveOptions::unit says otherwise.
    double metres_per_unit = 0;
    // Files beside a mesh file that say which animation files go with it (SMD: a studiomdl .qc,
    // docs/cli.md "Companions"): their extension, and what one of them lists. Best effort over
    // any bytes: what cannot be read as a list names nothing (may be null).
    std::string_view model_list_extension;
    ModelList (*model_list)(std::span<const uint8_t> bytes) = nullptr;
};

// A file that holds models but is none (a VDrift JPK pack): a batch does not expand one, and a
// model inside one is named as ARCHIVE:MEMBER (docs/cli.md "Inputs"). One row per archive format.
struct ArchiveInfo {
    std::string_view name;                     // "jpk"
    std::vector<std::string_view> extensions;  // lower case, with the dot: ".jpk"
    // Why a batch skips one, after "skipped PATH: ": what it is and how to name a member instead.
    std::string_view not_expanded;
    // "ARCHIVE:MEMBER" -> (ARCHIVE, MEMBER) when the text has that form; nothing otherwise.
    std::optional<std::pair<std::string, std::string>> (*split_member_path)(const std::string& path) = nullptr;
};

const std::vector<FormatInfo>& formats();
const std::vector<ArchiveInfo>& archives();
// The archive format whose extension the path's own extension is (any letter case); null when none.
const ArchiveInfo* find_archive_by_extension(std::string_view path);
// "ARCHIVE:MEMBER" split by the first archive format that reads it so; nothing otherwise.
std::optional<std::pair<std::string, std::string>> split_archive_member_path(const std::string& path);
// By registry name in any letter case ("glb", "GLB"); null when no format has that name.
const FormatInfo* find_format(std::string_view name);
const FormatInfo* find_format_by_extension(std::string_view path);
// Content first (magic bytes); the extension only when no content check matches.
const FormatInfo* detect_format(std::span<const uint8_t> bytes, std::string_view path);

}  // namespace rigport

// The format registry: each format's name, extensions, content detection, reader and writer.
#pragma once

#include <cstdint>
#include <deque>
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

// What a format's files hold, as rigport writes them (as it reads them, for a format it only
// reads): a caller tells what an output keeps without knowing the format's name (the Blender
// add-on's menus, `rigport formats --json`).
struct FormatHolds {
    bool meshes = false;           // triangles with positions
    bool skeleton = false;         // joints with a bind pose (skinned meshes bind to them)
    bool skin = false;             // skin influences (a Cal3D mesh file keeps them without the skeleton)
    bool animation = false;        // skeletal animations (joint tracks)
    bool morphs = false;           // morph targets (blend shapes)
    bool morph_animation = false;  // animations of morph-target weights
    bool colours = false;          // vertex colours
    bool materials = false;        // materials (names, colours, texture references)
    // Texture-coordinate sets per vertex it keeps; 0 = none, any_uv_sets = as many as the scene has.
    uint32_t uv_sets = 0;
    static constexpr uint32_t any_uv_sets = UINT32_MAX;
    // The rest say what a written file keeps, so that save_output warns once, in one wording, for
    // every format about what the scene has and the output loses (docs/architecture.md "What a
    // row declares"). A writer warns itself only about what depends on its options or its own rules.
    uint32_t colour_sets = any_uv_sets;  // colour sets it keeps when it holds colours
    bool normals = false;                // vertex normals
    bool tangents = false;               // vertex tangents
    bool custom_arrays = false;          // per-vertex arrays with no standard meaning
    bool joint_scales = false;           // scale in joint poses and keys
    bool cloth = false;                  // Cal3D cloth springs and level-of-detail collapses
    // One file of a model that several files make up (a Cal3D skeleton, mesh, material or animation
    // file): written for its part, it is not warned about the parts the other files hold (meshes,
    // the skeleton, animations, materials), only about what its own part loses.
    bool one_part = false;
    // Stores animation as whole frames of vertices (MD2, MD3, Quake MDL): the writer bakes skins,
    // skeletal animation and morph targets into them (docs/formats.md "Vertex animation"), so only
    // the joints themselves are lost.
    bool vertex_frames = false;
};

// Which of a scene's embedded images (Scene::images) save_output writes as files beside an
// output, because the output names them as its materials' textures.
enum class TextureFiles : uint8_t {
    none,               // names no texture file (skeleton, mesh, animation files), or holds its images itself
    diffuse_of_used,    // one texture per material a mesh uses: its diffuse map (IQM, IQE, JOE)
    every_material,     // every map of every material (a Cal3D .cfg, an OBJ's .mtl)
    first_material,     // every map of material 0 (a Cal3D material file)
};

// What a reader gives the reference compiler beyond the scene: its meshes' smoothing groups and
// whether it has normals (defined in src/process/compiler_source.hpp; IQE).
struct CompilerSource;

// One row of the registry: what a format is, what it holds and how its files work. Rows are
// written with designated initializers, and every member has a default, so a row names what it
// sets and nothing else (docs/architecture.md "Adding a format: one folder + one row").
struct FormatInfo {
    std::string_view name{};                     // "iqm"
    std::string_view description{};              // "Inter-Quake Model (binary)"
    std::vector<std::string_view> extensions{};  // lower case, with the dot: ".iqm"
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
    // When these bytes are another model's side file rather than a model (a Half-Life texture
    // file NAMEt.mdl): what it is, in a few words; null otherwise (may be null). A batch lists such
    // files as skipped with this reason instead of converting them.
    const char* (*side_file)(std::span<const uint8_t> bytes) = nullptr;
    // The extension of this format's animation files, which go with the mesh file of the same
    // format beside them whose stem begins theirs, the longest such stem winning (MD5: Bob.md5mesh
    // takes Bob.md5anim and Bob_walk.md5anim; docs/cli.md "Companions"); empty = none by name.
    std::string_view animation_extension{};
    // The unit of length the format defines, in metres (glTF 2.0 and IQM: 1, metres); 0 = the format
    // does not say. save_output converts a scene to it unless SaveOptions::unit says otherwise.
    double metres_per_unit = 0;
    // Its files state their unit and the tools writing them keep to it (glTF 2.0: metres by its
    // specification; FBX: UnitScaleFactor). convert --target scales such a model to the engine's
    // unit (docs/targets.md "Units, axes and names"). IQM also says metres, but only since 2019:
    // most IQM files are in the Quake units of the engines that load them, so it does not count.
    bool states_unit = false;
    // Its specification says its models face +Z, Y up (glTF 2.0 §3.4: "the front of a glTF asset
    // faces +Z"). convert --target turns such a model to face the way the engine's models do.
    bool faces_plus_z = false;
    // Files beside a mesh file that say which animation files go with it (SMD: a studiomdl .qc,
    // docs/cli.md "Companions"): their extension, and what one of them lists. Best effort over
    // any bytes: what cannot be read as a list names nothing (may be null).
    std::string_view model_list_extension{};
    ModelList (*model_list)(std::span<const uint8_t> bytes) = nullptr;

    // What the format's files hold (see FormatHolds).
    FormatHolds holds{};
    // Which embedded images save_output writes beside an output of this format.
    TextureFiles texture_files = TextureFiles::none;
    // The extensions of the files one file of this format is made of (a Cal3D .cfg: .csf, .xsf,
    // .cmf ...), lower case with the dot. The compiler reads every input with one of these, and the
    // file itself, as one model (docs/cal3d.md §4.5); empty = the format's files stand alone.
    std::vector<std::string_view> member_extensions{};
    // Its extensions whose files hold animations only (an .md5anim, a Cal3D .caf): given with other
    // files, they come after the file that has the meshes and skeleton.
    std::vector<std::string_view> animation_only_extensions{};
    // The extension that makes the writer write one file holding everything, its images inside
    // (glTF: .glb); an output with it embeds its textures unless told otherwise (ImageOptions::Mode::Auto).
    std::string_view single_file_extension{};
    // The writer replaces a zero or non-finite normal or tangent by a unit fallback, with a
    // warning (glTF): save_output does not refuse those before writing.
    bool repairs_normals = false;
    // True when the output, written with these options, stores names as XML text, which cannot
    // hold every byte a name may have: save_output checks the names first (Cal3D XML). Null = never.
    bool (*writes_xml_text)(const SaveOptions& options) = nullptr;
    // True when the output, written with these options, holds its textures' images itself (FBX
    // with embed_images): the images the scene holds are then not written beside it. Null = never.
    bool (*embeds_images)(const SaveOptions& options) = nullptr;
    // The writer takes skin sizes or pixels from the materials' textures (MD2, Quake MDL): the
    // pipeline reads the textures found on disk into SaveOptions::images for it, as it does for
    // a writer that embeds them.
    bool uses_texture_images = false;
    // The convert options (as the CLI spells them) that change what this format's writer writes,
    // beyond the general ones: "--cal3d-dialect", "--cal3d-binary" for Cal3D.
    std::vector<std::string_view> writer_options{};
    // Reads the file as the reference compiler reads it: the scene plus what normal generation
    // needs (IQE's smoothing groups). Null: the compiler reads it through load_bytes.
    Expected<CompilerSource> (*read_compiler_source)(std::span<const uint8_t> bytes, const LoadOptions& options) = nullptr;
};

// The registry: the built-in rows, then the rows register_format added, in that order. A deque,
// so a row's address never changes (find_format's pointers stay valid after a registration).
const std::deque<FormatInfo>& formats();
// Appends a row after the built-in ones (and after earlier registrations), for tests and for
// programs embedding rigport that bring a format of their own: from then on load, save, convert,
// detection by content and extension, and the formats listing use it like any other row. Returns
// false, adding nothing, when the name (in any letter case) is empty or already registered. Call
// it before other rigport calls run, never concurrently with them (the registry has no lock).
bool register_format(FormatInfo format);
// A file that holds models but is none (a VDrift JPK pack): a batch does not expand one, and a
// model inside one is named as ARCHIVE:MEMBER (docs/cli.md "Inputs"). One row per archive format.
struct ArchiveInfo {
    std::string_view name;                     // "jpk"
    std::string_view description;              // "VDrift JPK pack": menus and `rigport formats`
    std::vector<std::string_view> extensions;  // lower case, with the dot: ".jpk"
    // Why a batch skips one, after "skipped PATH: ": what it is and how to name a member instead.
    std::string_view not_expanded;
    // "ARCHIVE:MEMBER" -> (ARCHIVE, MEMBER) when the text has that form; nothing otherwise.
    std::optional<std::pair<std::string, std::string>> (*split_member_path)(const std::string& path) = nullptr;
    // True when the bytes are such an archive (its signature).
    bool (*detect)(std::span<const uint8_t> bytes) = nullptr;
    // One member's bytes, by its name as split_member_path gives it; NotFound when the archive has
    // none so named. Errors carry no path (the caller names the archive).
    Expected<std::vector<uint8_t>> (*read_member)(std::span<const uint8_t> archive, const std::string& member) = nullptr;
    // What to tell someone who gave the archive at `path` where a model was expected: what it is
    // and how to name a member; empty when the bytes do not read as one.
    std::string (*not_a_model)(std::span<const uint8_t> archive, const std::string& path) = nullptr;
};

const std::vector<ArchiveInfo>& archives();
// The archive format whose extension the path's own extension is (any letter case); null when none.
const ArchiveInfo* find_archive_by_extension(std::string_view path);
// The archive format whose signature the bytes have; null when none.
const ArchiveInfo* detect_archive(std::span<const uint8_t> bytes);
// What to tell someone who gave the archive at `path` where a model was expected (what it is, how
// to name a member); empty when the bytes are no archive.
std::string archive_not_a_model(std::span<const uint8_t> bytes, const std::string& path);
// "ARCHIVE:MEMBER" split by the first archive format that reads it so; nothing otherwise.
std::optional<std::pair<std::string, std::string>> split_archive_member_path(const std::string& path);
// By registry name in any letter case ("glb", "GLB"); null when no format has that name.
const FormatInfo* find_format(std::string_view name);
const FormatInfo* find_format_by_extension(std::string_view path);
// Content first (magic bytes); the extension only when no content check matches.
const FormatInfo* detect_format(std::span<const uint8_t> bytes, std::string_view path);
// The format whose files path is one of: the row that has path's extension among its own and
// member_extensions (a Cal3D .caf or .cfg: the "cal3d" row); null when no such row claims it.
const FormatInfo* find_format_made_of(std::string_view path);
// True when path's extension (any letter case) is one of `extensions`.
bool has_extension(std::string_view path, const std::vector<std::string_view>& extensions);
// The registry as JSON (`rigport formats --json`, indented by 2): one object per row with its
// name, description, extensions, read / write / validate, holds, texture_files,
// member_extensions, animation_only_extensions, single_file_extension, writer_options
// (docs/formats.md "The registry as JSON").
std::string formats_json();

}  // namespace rigport

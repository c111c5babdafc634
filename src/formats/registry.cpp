// The format registry: one entry per format family member, detection by magic first.
#include <algorithm>
#include <deque>
#include <cctype>
#include <filesystem>
#include <string>

#include "formats/cal3d/cal3d.hpp"
#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/cal3d_write_cfg.hpp"
#include "formats/fbx/fbx.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/hlmdl/hlmdl.hpp"
#include "formats/iqe/iqe.hpp"
#include "formats/iqm/iqm.hpp"
#include "formats/joe/joe.hpp"
#include "formats/md2/md2.hpp"
#include "formats/mdl/mdl.hpp"
#include "formats/md3/md3.hpp"
#include "formats/md5/md5.hpp"
#include "formats/obj/obj.hpp"
#include "formats/smd/smd.hpp"
#include "rigport/formats.hpp"
#include "rigport/jpk.hpp"

namespace rigport {

namespace {

// A single-file writer as a registry writer: no side files, the path is not needed.
template <Expected<std::vector<uint8_t>> (*Write)(const Scene&, const SaveOptions&)>
Expected<Output> single_file(const Scene& scene, const std::string&, const SaveOptions& options) {
    auto bytes = Write(scene, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

constexpr FormatHolds gltf_holds{.meshes = true, .skeleton = true, .skin = true, .animation = true, .morphs = true, .morph_animation = true,
                                 .colours = true, .materials = true, .uv_sets = FormatHolds::any_uv_sets, .normals = true, .tangents = true,
                                 .custom_arrays = true, .joint_scales = true};

// XML text for the names (a Cal3D .x?f file always; a .cfg unless its members are binary).
bool always_xml(const SaveOptions&) { return true; }
bool fbx_embeds_images(const SaveOptions& o) { return o.fbx.embed_images; }
bool xml_unless_binary(const SaveOptions& options) { return !options.cal3d.binary; }

constexpr FormatHolds cal3d_mesh{.meshes = true, .skin = true, .morphs = true, .colours = true, .uv_sets = FormatHolds::any_uv_sets,
                                 .normals = true, .cloth = true, .one_part = true};

// Every row, built-in first, then what register_format added. A deque: rows never move.
std::deque<FormatInfo>& registry() {
    static std::deque<FormatInfo> list = {
        FormatInfo{.name = "iqm", .description = "Inter-Quake Model (binary), v1 and v2", .extensions = {".iqm"},
                   .detect = &iqm::detect, .read = &iqm::read, .write = &single_file<&iqm::write>, .validate = &iqm::validate,
                   .max_influences = 4, .metres_per_unit = 1.0,
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .colours = true, .materials = true,
                             .uv_sets = FormatHolds::any_uv_sets, .normals = true, .tangents = true, .custom_arrays = true, .joint_scales = true},
                   .texture_files = TextureFiles::diffuse_of_used},
        FormatInfo{.name = "iqe", .description = "Inter-Quake Export (text)", .extensions = {".iqe"},
                   .detect = &iqe::detect, .read = &iqe::read, .write = &single_file<&iqe::write>, .compiler_source = true,
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .colours = true, .materials = true,
                             .uv_sets = 1, .colour_sets = 1, .normals = true, .tangents = true, .custom_arrays = true, .joint_scales = true},
                   .texture_files = TextureFiles::diffuse_of_used, .read_compiler_source = &iqe::read_compiler_source},
        // Write: .glb -> binary container; anything else -> JSON with a <stem>.bin buffer. Read:
        // either container. Detected by the GLB header only: JSON is claimed by extension, never
        // by content (a .json file is not assumed to be glTF).
        FormatInfo{.name = "gltf", .description = "glTF 2.0 (.gltf JSON + .bin, or .glb binary)", .extensions = {".gltf", ".glb"},
                   .detect = &gltf::detect, .read = &gltf::read, .write = &gltf::write, .holds_images = true, .metres_per_unit = 1.0,
                   .states_unit = true, .faces_plus_z = true, .holds = gltf_holds, .single_file_extension = ".glb", .repairs_normals = true,
                   .writer_options = {"--compress", "--compress-level", "--position-bits"}},
        // The same writer forced to GLB whatever the output is called (--format glb); reads either.
        // Its .glb says what it writes (the CLI's extension rule, batch's output names); by
        // extension a .glb is still found as "gltf", the entry above.
        FormatInfo{.name = "glb", .description = "glTF 2.0 binary container (writes GLB whatever the extension)", .extensions = {".glb"},
                   .read = &gltf::read, .write = &gltf::write_glb, .holds_images = true, .metres_per_unit = 1.0,
                   .states_unit = true, .faces_plus_z = true, .holds = gltf_holds, .single_file_extension = ".glb", .repairs_normals = true,
                   .writer_options = {"--compress", "--compress-level", "--position-bits"}},
        // Cal3D: one entry per file type and encoding (docs/cal3d.md); binary by magic + version,
        // XML by its header or root element. Whole characters: the "cal3d" (.cfg) entry below.
        FormatInfo{.name = "cal3d-csf", .description = "Cal3D binary skeleton", .extensions = {".csf"},
                   .detect = &cal3d::detect_csf, .read = &cal3d::read_csf, .write = &cal3d::write_csf, .stated_duration = true,
                   .holds = {.skeleton = true, .one_part = true}, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-cmf", .description = "Cal3D binary mesh", .extensions = {".cmf"},
                   .detect = &cal3d::detect_cmf, .read = &cal3d::read_cmf, .write = &cal3d::write_cmf, .stated_duration = true,
                   .holds = cal3d_mesh, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-caf", .description = "Cal3D binary animation", .extensions = {".caf"},
                   .detect = &cal3d::detect_caf, .read = &cal3d::read_caf, .write = &cal3d::write_caf, .stated_duration = true,
                   .holds = {.animation = true, .one_part = true}, .animation_only_extensions = {".caf"}, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-crf", .description = "Cal3D binary material", .extensions = {".crf"},
                   .detect = &cal3d::detect_crf, .read = &cal3d::read_crf, .write = &cal3d::write_crf, .stated_duration = true,
                   .holds = {.materials = true, .one_part = true}, .texture_files = TextureFiles::first_material, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-cpf", .description = "Cal3D binary morph animation", .extensions = {".cpf"},
                   .detect = &cal3d::detect_cpf, .read = &cal3d::read_cpf, .write = &cal3d::write_cpf, .stated_duration = true,
                   .holds = {.morph_animation = true, .one_part = true}, .animation_only_extensions = {".cpf"}, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-xsf", .description = "Cal3D XML skeleton", .extensions = {".xsf"},
                   .detect = &cal3d::detect_xsf, .read = &cal3d::read_xsf, .write = &cal3d::write_xsf, .stated_duration = true,
                   .holds = {.skeleton = true, .one_part = true}, .writes_xml_text = &always_xml, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-xmf", .description = "Cal3D XML mesh", .extensions = {".xmf"},
                   .detect = &cal3d::detect_xmf, .read = &cal3d::read_xmf, .write = &cal3d::write_xmf, .stated_duration = true,
                   .holds = cal3d_mesh, .writes_xml_text = &always_xml, .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-xaf", .description = "Cal3D XML animation", .extensions = {".xaf"},
                   .detect = &cal3d::detect_xaf, .read = &cal3d::read_xaf, .write = &cal3d::write_xaf, .stated_duration = true,
                   .holds = {.animation = true, .one_part = true}, .animation_only_extensions = {".xaf"}, .writes_xml_text = &always_xml,
                   .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-xrf", .description = "Cal3D XML material", .extensions = {".xrf"},
                   .detect = &cal3d::detect_xrf, .read = &cal3d::read_xrf, .write = &cal3d::write_xrf, .stated_duration = true,
                   .holds = {.materials = true, .one_part = true}, .texture_files = TextureFiles::first_material, .writes_xml_text = &always_xml,
                   .writer_options = {"--cal3d-dialect"}},
        FormatInfo{.name = "cal3d-xpf", .description = "Cal3D XML morph animation", .extensions = {".xpf"},
                   .detect = &cal3d::detect_xpf, .read = &cal3d::read_xpf, .write = &cal3d::write_xpf, .stated_duration = true,
                   .holds = {.morph_animation = true, .one_part = true}, .animation_only_extensions = {".xpf"}, .writes_xml_text = &always_xml,
                   .writer_options = {"--cal3d-dialect"}},
        // A whole Cal3D character: the .cfg list and its files beside it. No content detection; the
        // reader fetches the members through LoadOptions::read_resource, and named_files lists them.
        FormatInfo{.name = "cal3d", .description = "Cal3D character (.cfg + skeleton, mesh, material, animation files)", .extensions = {".cfg"},
                   .read = &cal3d::read_cfg, .write = &cal3d::write_cfg, .stated_duration = true, .named_files = &cal3d::cfg_named_files,
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .morphs = true, .morph_animation = true,
                             .colours = true, .materials = true, .uv_sets = FormatHolds::any_uv_sets, .normals = true, .cloth = true},
                   .texture_files = TextureFiles::every_material,
                   .member_extensions = {".csf", ".xsf", ".cmf", ".xmf", ".crf", ".xrf", ".caf", ".xaf", ".cpf", ".xpf"},
                   .writes_xml_text = &xml_unless_binary, .writer_options = {"--cal3d-dialect", "--cal3d-binary"}},
        // Doom 3 / idTech 4 MD5 (docs/md5.md): one row for both files, told apart by their keywords;
        // detected by "MD5Version". Writes an .md5mesh with one .md5anim per animation beside it
        // (<stem>_<animation>.md5anim), or, to a .md5anim path, the first animation there.
        FormatInfo{.name = "md5", .description = "Doom 3 MD5 (.md5mesh + .md5anim, MD5Version 10)", .extensions = {".md5mesh", ".md5anim"},
                   .detect = &md5::detect, .read = &md5::read, .write = &md5::write, .max_influences = md5::max_weights_per_vertex,
                   .compiler_source = true, .animation_extension = ".md5anim",
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .materials = true, .uv_sets = 1},
                   .animation_only_extensions = {".md5anim"}},
        // Valve SMD (docs/smd.md): reference, animation and .vta files in one row, told apart by their
        // sections; detected by "version" first. Writes a reference .smd with one animation SMD per
        // animation beside it (<stem>_<animation>.smd). Link lists hold any number of influences
        // (studiomdl keeps the heaviest three itself). A reference SMD takes the animation SMDs
        // that a .qc beside it names for its model (docs/cli.md "Companions"). Its .vta shapes are
        // read as morph targets, but the writer writes no .vta: holds says what a written file keeps.
        FormatInfo{.name = "smd", .description = "Valve Studiomdl Data (.smd reference / animation, .vta flex; version 1)", .extensions = {".smd", ".vta"},
                   .detect = &smd::detect, .read = &smd::read, .write = &smd::write, .compiler_source = true,
                   .model_list_extension = ".qc", .model_list = &smd::read_qc,
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .materials = true, .uv_sets = 1, .normals = true}},
        // Wavefront OBJ + .mtl (docs/obj.md): no magic, so claimed by extension only. Static meshes:
        // writes a <stem>.mtl beside it. One of the reference compiler's sources (it reads OBJ).
        FormatInfo{.name = "obj", .description = "Wavefront OBJ (+ .mtl materials), static meshes", .extensions = {".obj"},
                   .read = &obj::read, .write = &obj::write, .compiler_source = true,
                   .holds = {.meshes = true, .colours = true, .materials = true, .uv_sets = 1, .colour_sets = 1, .normals = true},
                   .texture_files = TextureFiles::every_material},
        // Autodesk FBX (docs/fbx.md): binary by its magic, ASCII by its header; reads 5.x to 7.x,
        // writes binary 7.4 (ASCII with --fbx-ascii; 7.5 / 7.7 with --fbx-version). The unit is
        // the scene's (FBX says it in GlobalSettings), so nothing is scaled on the way out.
        FormatInfo{.name = "fbx", .description = "Autodesk FBX: reads 5.x to 7.x (binary or ASCII), writes binary or ASCII 7.4 / 7.5 / 7.7",
                   .extensions = {".fbx"}, .detect = &fbx::detect, .read = &fbx::read, .write = &fbx::write,
                   .states_unit = true, .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .morphs = true, .morph_animation = true,
                             .colours = true, .materials = true, .uv_sets = FormatHolds::any_uv_sets, .normals = true, .joint_scales = true},
                   .texture_files = TextureFiles::every_material, .embeds_images = &fbx_embeds_images,
                   .writer_options = {"--fbx-ascii", "--fbx-version", "--fbx-no-pre-rotation", "--timestamp"}},
        // VDrift JOE v3 (docs/joe.md): version 3, magic IDP2 or 0 and an exact size match (IDP2 with
        // version 8 is Quake 2 MD2). JPK packs are archives, not models: include/rigport/jpk.hpp.
        FormatInfo{.name = "joe", .description = "VDrift JOE v3 static mesh (frames as morph targets)", .extensions = {".joe"},
                   .detect = &joe::detect, .read = &joe::read, .write = &single_file<&joe::write>, .validate = &joe::validate,
                   .stored_parts = &joe::stored_parts,
                   .holds = {.meshes = true, .morphs = true, .materials = true, .uv_sets = 1, .normals = true},
                   .texture_files = TextureFiles::diffuse_of_used},
        // Quake 1 MDL (docs/mdl.md): magic IDPO with version 6. Before hlmdl, so that writing
        // X.mdl picks it (Half-Life's .mdl is read only and told apart by its magic "IDST"). Skins
        // read as images in the scene; frames as morph targets grouped into 10 fps animations;
        // written by baking every animation into frames with one box for the whole file.
        FormatInfo{.name = "mdl", .description = "Quake 1 MDL (IDPO version 6): vertex-animated mesh, paletted skins", .extensions = {".mdl"},
                   .detect = &mdl::detect, .read = &mdl::read, .write = &single_file<&mdl::write>,
                   .holds = {.meshes = true, .materials = true, .uv_sets = 1, .normals = true, .vertex_frames = true}, .uses_texture_images = true},
        // Half-Life 1 studio model (docs/hlmdl.md): "IDST" version 10, read only. Detected by its
        // magic, so a Quake .mdl ("IDPO") and this one are told apart whatever the row order for
        // ".mdl". Its textures may lie in NAMEt.mdl and its sequences in NAME01.mdl beside it,
        // read through LoadOptions::read_resource.
        FormatInfo{.name = "hlmdl", .description = "Half-Life 1 studio model (read)", .extensions = {".mdl"},
                   .detect = &hlmdl::detect, .read = &hlmdl::read, .side_file = &hlmdl::side_file,
                   .holds = {.meshes = true, .skeleton = true, .skin = true, .animation = true, .materials = true, .uv_sets = 1, .normals = true}},
        // Quake 2 MD2 (docs/md2.md): magic IDP2 with version 8. Frames read as morph targets grouped
        // into 10 fps animations; written by baking every animation (skins and morphs) into frames.
        FormatInfo{.name = "md2", .description = "Quake 2 MD2 (IDP2 version 8): vertex-animated mesh", .extensions = {".md2"},
                   .detect = &md2::detect, .read = &md2::read, .write = &single_file<&md2::write>,
                   .holds = {.meshes = true, .materials = true, .uv_sets = 1, .normals = true, .vertex_frames = true},
                   .texture_files = TextureFiles::diffuse_of_used, .uses_texture_images = true},
        // Quake 3 MD3 (docs/md3.md): magic IDP3 with version 15. Frames read as morph targets of
        // frame 0 and tags as joints; written by baking every animation into frames, one surface
        // per material, the joints named by --md3-tags as tags.
        FormatInfo{.name = "md3", .description = "Quake 3 MD3 (IDP3 version 15): vertex frames, tags", .extensions = {".md3"},
                   .detect = &md3::detect, .read = &md3::read, .write = &md3::write,
                   .holds = {.meshes = true, .materials = true, .uv_sets = 1, .normals = true, .vertex_frames = true},
                   .texture_files = TextureFiles::diffuse_of_used, .writer_options = {"--md3-tags"}},
    };
    return list;
}

}  // namespace

const std::deque<FormatInfo>& formats() { return registry(); }

bool register_format(FormatInfo format) {
    if (format.name.empty() || find_format(format.name)) return false;
    registry().push_back(std::move(format));
    return true;
}

// Names are matched in any letter case ("GLB" is glb), so every caller that takes a format name
// (the CLI's --format, Python's format=) accepts it alike (docs/cli.md "General rules").
const FormatInfo* find_format(std::string_view name) {
    auto same = [name](std::string_view registered) {
        if (registered.size() != name.size()) return false;
        for (size_t i = 0; i < name.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(name[i])) != registered[i]) return false;
        return true;
    };
    for (auto& f : formats())
        if (same(f.name)) return &f;
    return nullptr;
}

namespace {

// Compared in place, case-insensitively: no copy, so nothing to allocate (and nothing to throw).
bool ends_with(std::string_view path, std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
    return true;
}

}  // namespace

bool has_extension(std::string_view path, const std::vector<std::string_view>& extensions) {
    for (auto ext : extensions)
        if (ends_with(path, ext)) return true;
    return false;
}

const FormatInfo* find_format_by_extension(std::string_view path) {
    for (auto& f : formats())
        if (has_extension(path, f.extensions)) return &f;
    return nullptr;
}

const FormatInfo* find_format_made_of(std::string_view path) {
    for (auto& f : formats())
        if (!f.member_extensions.empty() && (has_extension(path, f.extensions) || has_extension(path, f.member_extensions))) return &f;
    return nullptr;
}

const FormatInfo* detect_format(std::span<const uint8_t> bytes, std::string_view path) {
    for (auto& f : formats())
        if (f.detect && f.detect(bytes)) return &f;
    return find_format_by_extension(path);
}

const std::vector<ArchiveInfo>& archives() {
    static const std::vector<ArchiveInfo> list = {
        ArchiveInfo{.name = "jpk",
                    .description = "VDrift JPK pack",
                    .extensions = {".jpk"},
                    .not_expanded = "a JPK pack is not expanded (convert a member as PACK.jpk:MEMBER)",
                    .split_member_path = &split_jpk_member_path,
                    .detect = &detect_jpk,
                    .read_member = &joe::jpk_read_member,
                    .not_a_model = &joe::jpk_not_a_model_text},
    };
    return list;
}

const ArchiveInfo* find_archive_by_extension(std::string_view path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (auto& a : archives())
        if (std::find(a.extensions.begin(), a.extensions.end(), ext) != a.extensions.end()) return &a;
    return nullptr;
}

const ArchiveInfo* detect_archive(std::span<const uint8_t> bytes) {
    for (auto& a : archives())
        if (a.detect && a.detect(bytes)) return &a;
    return nullptr;
}

std::string archive_not_a_model(std::span<const uint8_t> bytes, const std::string& path) {
    const ArchiveInfo* archive = detect_archive(bytes);
    return archive && archive->not_a_model ? archive->not_a_model(bytes, path) : std::string();
}

std::optional<std::pair<std::string, std::string>> split_archive_member_path(const std::string& path) {
    for (auto& a : archives())
        if (auto split = a.split_member_path ? a.split_member_path(path) : std::nullopt) return split;
    return std::nullopt;
}

}  // namespace rigport

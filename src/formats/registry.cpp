// The format registry: one entry per format family member, detection by magic first.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

#include "formats/cal3d/cal3d_layout.hpp"
#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/cal3d_write_cfg.hpp"
#include "formats/fbx/fbx_layout.hpp"
#include "formats/gltf/gltf_layout.hpp"
#include "formats/iqe/iqe_layout.hpp"
#include "formats/iqm/iqm_layout.hpp"
#include "formats/joe/joe_layout.hpp"
#include "formats/md5/md5_layout.hpp"
#include "formats/obj/obj_layout.hpp"
#include "formats/smd/smd_layout.hpp"
#include "rigport/formats.hpp"
#include "rigport/jpk.hpp"

// Rows name the capability fields they set and leave the trailing ones at their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace rigport {

namespace {

// A single-file writer as a registry writer: no side files, the path is not needed.
template <Expected<std::vector<uint8_t>> (*Write)(const Scene&, const SaveOptions&)>
Expected<Output> single_file(const Scene& scene, const std::string&, const SaveOptions& options) {
    auto bytes = Write(scene, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}};
}

}  // namespace

const std::vector<FormatInfo>& formats() {
    static const std::vector<FormatInfo> list = {
        FormatInfo{"iqm", "Inter-Quake Model (binary), v1 and v2", {".iqm"}, &iqm::detect, &iqm::read, &single_file<&iqm::write>, &iqm::validate, 4, false, false, false, nullptr, nullptr, {}, 1.0},
        FormatInfo{"iqe", "Inter-Quake Export (text)", {".iqe"}, &iqe::detect, &iqe::read, &single_file<&iqe::write>, nullptr, 0, false, false, true},
        // Write: .glb -> binary container; anything else -> JSON with a <stem>.bin buffer. Read:
        // either container. Detected by the GLB header only: JSON is claimed by extension, never
        // by content (a .json file is not assumed to be glTF).
        FormatInfo{"gltf", "glTF 2.0 (.gltf JSON + .bin, or .glb binary)", {".gltf", ".glb"}, &gltf::detect, &gltf::read, &gltf::write, nullptr, 0, false, true, false, nullptr, nullptr, {}, 1.0},
        // The same writer forced to GLB whatever the output is called (--format glb); reads either.
        // Its .glb says what it writes (the CLI's extension rule, batch's output names); by
        // extension a .glb is still found as "gltf", the entry above.
        FormatInfo{"glb", "glTF 2.0 binary container (writes GLB whatever the extension)", {".glb"}, nullptr, &gltf::read, &gltf::write_glb, nullptr, 0, false, true, false, nullptr, nullptr, {}, 1.0},
        // Cal3D: one entry per file type and encoding (docs/cal3d.md); binary by magic + version,
        // XML by its header or root element. Whole characters: the "cal3d" (.cfg) entry below.
        FormatInfo{"cal3d-csf", "Cal3D binary skeleton", {".csf"}, &cal3d::detect_csf, &cal3d::read_csf, &cal3d::write_csf, nullptr, 0, true},
        FormatInfo{"cal3d-cmf", "Cal3D binary mesh", {".cmf"}, &cal3d::detect_cmf, &cal3d::read_cmf, &cal3d::write_cmf, nullptr, 0, true},
        FormatInfo{"cal3d-caf", "Cal3D binary animation", {".caf"}, &cal3d::detect_caf, &cal3d::read_caf, &cal3d::write_caf, nullptr, 0, true},
        FormatInfo{"cal3d-crf", "Cal3D binary material", {".crf"}, &cal3d::detect_crf, &cal3d::read_crf, &cal3d::write_crf, nullptr, 0, true},
        FormatInfo{"cal3d-cpf", "Cal3D binary morph animation", {".cpf"}, &cal3d::detect_cpf, &cal3d::read_cpf, &cal3d::write_cpf, nullptr, 0, true},
        FormatInfo{"cal3d-xsf", "Cal3D XML skeleton", {".xsf"}, &cal3d::detect_xsf, &cal3d::read_xsf, &cal3d::write_xsf, nullptr, 0, true},
        FormatInfo{"cal3d-xmf", "Cal3D XML mesh", {".xmf"}, &cal3d::detect_xmf, &cal3d::read_xmf, &cal3d::write_xmf, nullptr, 0, true},
        FormatInfo{"cal3d-xaf", "Cal3D XML animation", {".xaf"}, &cal3d::detect_xaf, &cal3d::read_xaf, &cal3d::write_xaf, nullptr, 0, true},
        FormatInfo{"cal3d-xrf", "Cal3D XML material", {".xrf"}, &cal3d::detect_xrf, &cal3d::read_xrf, &cal3d::write_xrf, nullptr, 0, true},
        FormatInfo{"cal3d-xpf", "Cal3D XML morph animation", {".xpf"}, &cal3d::detect_xpf, &cal3d::read_xpf, &cal3d::write_xpf, nullptr, 0, true},
        // A whole Cal3D character: the .cfg list and its files beside it. No content detection; the
        // reader fetches the members through LoadOptions::read_resource, and named_files lists them.
        FormatInfo{"cal3d", "Cal3D character (.cfg + skeleton, mesh, material, animation files)", {".cfg"}, nullptr, &cal3d::read_cfg, &cal3d::write_cfg, nullptr, 0, true, false, false, nullptr, &cal3d::cfg_named_files},
        // Doom 3 / idTech 4 MD5 (docs/md5.md): one row for both files, told apart by their keywords;
        // detected by "MD5Version". Writes an .md5mesh with one .md5anim per animation beside it
        // (<stem>_<animation>.md5anim), or, to a .md5anim path, the first animation there.
        FormatInfo{"md5", "Doom 3 MD5 (.md5mesh + .md5anim, MD5Version 10)", {".md5mesh", ".md5anim"}, &md5::detect, &md5::read, &md5::write, nullptr, md5::max_weights_per_vertex, false, false, true, nullptr, nullptr, ".md5anim"},
        // Valve SMD (docs/smd.md): reference, animation and .vta files in one row, told apart by their
        // sections; detected by "version" first. Writes a reference .smd with one animation SMD per
        // animation beside it (<stem>_<animation>.smd). Link lists hold any number of influences
        // (studiomdl keeps the heaviest three itself). A reference SMD takes the animation SMDs
        // that a .qc beside it names for its model (docs/cli.md "Companions").
        FormatInfo{"smd", "Valve Studiomdl Data (.smd reference / animation, .vta flex; version 1)", {".smd", ".vta"}, &smd::detect, &smd::read, &smd::write, nullptr, 0, false, false, true, nullptr, nullptr, {}, 0, ".qc", &smd::read_qc},
        // Wavefront OBJ + .mtl (docs/obj.md): no magic, so claimed by extension only. Static meshes:
        // writes a <stem>.mtl beside it. One of the reference compiler's sources (it reads OBJ).
        FormatInfo{"obj", "Wavefront OBJ (+ .mtl materials), static meshes", {".obj"}, nullptr, &obj::read, &obj::write, nullptr, 0, false, false, true},
        // VDrift JOE v3 (docs/joe.md): version 3, magic IDP2 or 0 and an exact size match (IDP2 with
        // version 8 is Quake 2 MD2). JPK packs are archives, not models: include/rigport/jpk.hpp.
        // Autodesk FBX (docs/fbx.md): binary by its magic, ASCII by its header; 5.x to 7.x, read only.
        FormatInfo{"fbx", "Autodesk FBX 5.x to 7.x (binary or ASCII): meshes, materials, skeleton, skins; read only", {".fbx"}, &fbx::detect, &fbx::read},
        FormatInfo{"joe", "VDrift JOE v3 static mesh (frames as morph targets)", {".joe"}, &joe::detect, &joe::read, &single_file<&joe::write>, &joe::validate, 0, false, false, false, &joe::stored_parts},
    };
    return list;
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

const FormatInfo* find_format_by_extension(std::string_view path) {
    // Compared in place, case-insensitively: no copy, so nothing to allocate (and nothing to throw).
    auto ends_with = [path](std::string_view ext) {
        if (path.size() < ext.size()) return false;
        for (size_t i = 0; i < ext.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
        return true;
    };
    for (auto& f : formats())
        for (auto ext : f.extensions)
            if (ends_with(ext)) return &f;
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
                    .extensions = {".jpk"},
                    .not_expanded = "a JPK pack is not expanded (convert a member as PACK.jpk:MEMBER)",
                    .split_member_path = &split_jpk_member_path},
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

std::optional<std::pair<std::string, std::string>> split_archive_member_path(const std::string& path) {
    for (auto& a : archives())
        if (auto split = a.split_member_path ? a.split_member_path(path) : std::nullopt) return split;
    return std::nullopt;
}

}  // namespace rigport

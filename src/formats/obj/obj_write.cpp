// OBJ writer (Wavefront OBJ + .mtl; docs/obj.md): a static model. Each mesh is an `o` with its
// `usemtl`, v (with r g b when it has vertex colours) / vt / vn and 1-based f v/vt/vn corners; a
// <stem>.mtl side file holds every material (Ka Kd Ks Ke Ns d and the map_* files). The scene is
// first put in OBJ's conventions: Y up, counter-clockwise front faces, V up from the image bottom.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>

#include "formats/obj/obj.hpp"
#include "rigport/process.hpp"

namespace rigport::obj {

namespace {

// The shortest text that reads back as the same float; deterministic on every machine.
void put(std::string& out, double v) {
    const float f = float(v);
    if (f == 0.0f) out += '0';
    else fmt::format_to(std::back_inserter(out), "{}", f);
}

// A name as the rest of one line: no line breaks, no blanks at either end (readers trim them),
// not empty, not starting a comment.
std::string line_name(std::string name, const std::string& fallback, bool& changed) {
    for (char& c : name)
        if (c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f') c = ' ', changed = true;
    const size_t b = name.find_first_not_of(' '), e = name.find_last_not_of(' ');
    std::string s = b == std::string::npos ? std::string() : name.substr(b, e - b + 1);
    if (s.size() != name.size() && !name.empty()) changed = true;
    if (s.empty()) return fallback;
    if (s[0] == '#') s = "_" + s, changed = true;
    return s;
}

const char* map_keyword(const TextureMap& map) {
    switch (map.type) {
        case TextureType::Diffuse: return "map_Kd";
        case TextureType::Specular: return "map_Ks";
        case TextureType::Ambient: return "map_Ka";
        case TextureType::Emissive: return "map_Ke";
        case TextureType::Opacity: return "map_d";
        case TextureType::Normal: return "map_Bump";
        case TextureType::Other: break;
    }
    return nullptr;
}

}  // namespace

Expected<Output> write(const Scene& input, const std::string& path, const SaveOptions& options) {
    auto warn = [&](WarningCode code, std::string message) {
        if (options.warnings) options.warnings->add(code, std::move(message));
    };
    // OBJ is Y up with counter-clockwise front faces: other scenes are written from a copy.
    const std::optional<Scene> converted = y_up_ccw_copy(input);
    const Scene& scene = converted ? *converted : input;
    // The scene\'s invariants: checked by save_output before any writer runs (src/pipeline/save.cpp).

    // What OBJ cannot hold at all is said by save_output from the registry row; the alpha of a
    // colour is OBJ's own rule (its v lines carry r g b).
    for (const Mesh& m : scene.meshes)
        if (!m.colors.empty()) {
            bool alpha = false;
            for (const Vec4& c : m.colors[0]) alpha = alpha || c[3] != 1.0f;
            if (alpha) warn(WarningCode::DroppedData, fmt::format("mesh '{}': vertex colour alpha (v lines carry r g b)", m.name));
        }

    bool changed = false;
    std::vector<std::string> materials;
    std::set<std::string> used;
    for (size_t i = 0; i < scene.materials.size(); ++i) {
        std::string name = line_name(scene.materials[i].name, fmt::format("material{}", i), changed);
        for (size_t k = 2; !used.insert(name).second; ++k) name = fmt::format("{}_{}", line_name(scene.materials[i].name, "material", changed), k), changed = true;
        materials.push_back(std::move(name));
    }

    // Mesh names unique too: a reader joins consecutive faces of one (group, material) into one mesh.
    std::vector<std::string> meshes;
    std::set<std::string> mesh_names;
    for (size_t i = 0; i < scene.meshes.size(); ++i) {
        const std::string base = line_name(scene.meshes[i].name, fmt::format("mesh{}", i), changed);
        std::string name = base;
        for (size_t k = 2; !mesh_names.insert(name).second; ++k) name = fmt::format("{}_{}", base, k);
        meshes.push_back(std::move(name));
    }

    const std::string stem = std::filesystem::path(path).stem().string();
    const std::string mtl_name = (stem.empty() ? std::string("model") : stem) + ".mtl";
    std::string out = "# Wavefront OBJ written by rigport\n";
    if (!materials.empty()) out += "mtllib " + mtl_name + "\n";
    uint64_t base_v = 1, base_vt = 1, base_vn = 1;
    bool had_material = false;
    for (size_t i = 0; i < scene.meshes.size(); ++i) {
        const Mesh& m = scene.meshes[i];
        out += "o " + meshes[i] + "\n";
        if (m.material >= 0 && size_t(m.material) < materials.size()) {
            out += "usemtl " + materials[size_t(m.material)] + "\n";
            had_material = true;
        } else if (had_material) {
            out += "usemtl\n";  // no material: an empty name ends the previous one (as Blender writes it)
            had_material = false;
        }
        const bool colors = !m.colors.empty();
        for (uint32_t v = 0; v < m.vertex_count(); ++v) {
            out += 'v';
            for (float x : m.positions[v]) out += ' ', put(out, x);
            if (colors)
                for (int c = 0; c < 3; ++c) out += ' ', put(out, m.colors[0][v][size_t(c)]);
            out += '\n';
        }
        const bool uv = !m.texcoords.empty(), normals = !m.normals.empty();
        if (uv)
            for (const Vec2& t : m.texcoords[0]) out += "vt ", put(out, t[0]), out += ' ', put(out, 1.0 - double(t[1])), out += '\n';
        if (normals)
            for (const Vec3& n : m.normals) out += "vn ", put(out, n[0]), out += ' ', put(out, n[1]), out += ' ', put(out, n[2]), out += '\n';
        if (!m.triangles.empty()) out += "s off\n";  // the normals are given; no smoothing of one's own
        for (const Triangle& t : m.triangles) {
            out += 'f';
            for (uint32_t v : t) {
                fmt::format_to(std::back_inserter(out), " {}", base_v + v);
                if (uv && normals) fmt::format_to(std::back_inserter(out), "/{}/{}", base_vt + v, base_vn + v);
                else if (uv) fmt::format_to(std::back_inserter(out), "/{}", base_vt + v);
                else if (normals) fmt::format_to(std::back_inserter(out), "//{}", base_vn + v);
            }
            out += '\n';
        }
        base_v += m.vertex_count();
        if (uv) base_vt += m.vertex_count();
        if (normals) base_vn += m.vertex_count();
    }

    std::string mtl = "# Wavefront material library written by rigport\n";
    uint64_t other_maps = 0;
    for (size_t i = 0; i < scene.materials.size(); ++i) {
        const Material& mat = scene.materials[i];
        mtl += "\nnewmtl " + materials[i] + "\n";
        auto rgb = [&](const char* key, const Vec4& c) {
            mtl += key;
            for (int k = 0; k < 3; ++k) mtl += ' ', put(mtl, c[size_t(k)]);
            mtl += '\n';
        };
        rgb("Ka", mat.ambient);
        rgb("Kd", mat.diffuse);
        rgb("Ks", mat.specular);
        rgb("Ke", mat.emissive);
        mtl += "Ns ", put(mtl, mat.shininess), mtl += '\n';
        mtl += "d ", put(mtl, mat.diffuse[3]), mtl += '\n';
        for (const TextureMap& map : mat.maps) {
            const char* key = map_keyword(map);
            if (!key) {
                ++other_maps;
                continue;
            }
            bool uri_changed = false;
            const std::string uri = line_name(map.uri, "", uri_changed);
            if (uri.empty() || uri_changed) {
                changed = true;
                if (uri.empty()) continue;
            }
            mtl += std::string(key) + " " + uri + "\n";
        }
    }
    if (other_maps) warn(WarningCode::DroppedData, fmt::format("{} texture maps of no type .mtl names (TextureType::Other)", other_maps));
    if (changed) warn(WarningCode::Substituted, "names made one trimmed, non-empty line (materials unique) as OBJ and .mtl read them");
    if (mesh_names.size() < scene.meshes.size() || std::any_of(scene.meshes.begin(), scene.meshes.end(), [&](const Mesh& m) { return !mesh_names.count(m.name); }))
        warn(WarningCode::Substituted, "mesh names made unique and non-empty (consecutive faces of one name and material read back as one mesh)");

    Output result;
    result.format = "obj";
    result.bytes.assign(out.begin(), out.end());
    if (!materials.empty()) result.side_files.push_back(OutputFile{mtl_name, std::vector<uint8_t>(mtl.begin(), mtl.end())});
    return result;
}

}  // namespace rigport::obj

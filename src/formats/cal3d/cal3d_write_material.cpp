// Cal3D material writers, CRF and XRF in the IMVU 919 / classic 1100 / trunk 1301 dialects, and the
// registry entries (docs/cal3d.md §1.1, §2.4, §3.6, §4.5, §9 rule 10).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/cal3d_write_material.hpp"

namespace rigport::cal3d {

namespace {

// 0..1 -> 0..255, rounded, clamped (§3.6: colours are bytes).
uint8_t color_byte(float c) { return uint8_t(std::lround(std::clamp(std::isfinite(c) ? c : 0.0f, 0.0f, 1.0f) * 255.0f)); }

// The map's type string: the source's own when it had one, else the 3ds Max / IMVU name of the type.
std::string type_string(const TextureMap& map) {
    if (!map.type_name.empty()) return map.type_name;
    switch (map.type) {
        case TextureType::Diffuse: return "Diffuse Color";
        case TextureType::Opacity: return "Opacity";
        case TextureType::Specular: return "Specular Color";
        case TextureType::Normal: return "Bump";
        case TextureType::Emissive: return "Self-Illumination";
        case TextureType::Ambient: return "Ambient Color";
        case TextureType::Other: break;
    }
    return "Other";
}

constexpr std::string_view alpha_zero_extension = "cal3d:alpha_zero";

}  // namespace

Expected<std::vector<uint8_t>> write_material(const Material& material, bool binary, const SaveOptions& options) {
    const Dialect dialect = options.cal3d.dialect;
    // Classic files have no map type: a classic reader would take the string for the next map (§2.4).
    const bool typed = dialect != Dialect::Classic1100;
    if (material.maps.size() > uint64_t(std::numeric_limits<int32_t>::max())) return make_error(ErrorCode::LimitExceeded, "too many maps");
    if (options.warnings) {
        bool out_of_range = false;
        for (const Vec4* c : {&material.ambient, &material.diffuse, &material.specular})
            for (float v : *c) out_of_range |= !(v >= 0 && v <= 1);
        if (out_of_range) options.warnings->add(WarningCode::ValueClamped, "material colours outside 0..1 clamped");
        if (material.emissive != Vec4{0, 0, 0, 1}) options.warnings->add(WarningCode::DroppedData, "emissive colour not written: Cal3D materials have none");
        bool typed_maps = false;
        for (auto& m : material.maps) typed_maps |= !m.type_name.empty() || m.type != TextureType::Diffuse;
        if (!typed && typed_maps)
            options.warnings->add(WarningCode::DroppedData, "map types not written: version 1100 materials have none");
    }
    uint8_t colors[3][4];
    const Vec4* sources[3] = {&material.ambient, &material.diffuse, &material.specular};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 4; ++k) colors[c][k] = color_byte((*sources[c])[size_t(k)]);

    if (binary) {
        ByteWriter w;
        w.magic(FileType::Material);
        w.i32(version_of(dialect));
        for (auto& c : colors)
            for (uint8_t b : c) w.u8(b);
        w.f32(material.shininess);
        w.i32(int32_t(material.maps.size()));
        for (auto& map : material.maps) {
            w.string(map.uri);
            if (typed) w.string(type_string(map));
        }
        return std::move(w.bytes);
    }

    XmlWriter x;
    const std::string root = x.header(FileType::Material, dialect);
    x.open("MATERIAL", root + fmt::format(" NUMMAPS=\"{}\"", material.maps.size()));
    const char* names[3] = {"AMBIENT", "DIFFUSE", "SPECULAR"};
    for (int c = 0; c < 3; ++c) x.leaf(names[c], {}, fmt::format("{} {} {} {}", colors[c][0], colors[c][1], colors[c][2], colors[c][3]));
    x.leaf("SHININESS", {}, xml_float(material.shininess));
    for (auto& map : material.maps) x.leaf("MAP", typed ? xml_attr("TYPE", type_string(map)) : std::string(), xml_escape(map.uri));
    x.close("MATERIAL");
    return std::vector<uint8_t>(x.text.begin(), x.text.end());
}

namespace {

// Material 0 of the scene; the others are dropped, a scene without one gets a default material.
// A source whose alphas were all 0 (3ds Max exports; the readers read that as opaque, §4.5) keeps
// its zero alphas when the material is still opaque, so a file read and written again is the same.
Expected<Output> write_material_file(const Scene& scene, bool binary, const SaveOptions& options) {
    Material material;
    if (scene.materials.empty()) {
        if (options.warnings) options.warnings->add(WarningCode::Substituted, "the scene has no material: a default Cal3D material is written");
    } else {
        material = scene.materials[0];
        if (scene.materials.size() > 1 && options.warnings)
            options.warnings->add(WarningCode::DroppedData,
                                  fmt::format("materials 1..{} not written: a Cal3D material file holds one (write a .cfg for all)", scene.materials.size() - 1));
    }
    const bool alpha_zero = std::any_of(scene.meta.extensions.begin(), scene.meta.extensions.end(),
                                        [](const PreservedExtension& e) { return e.name == alpha_zero_extension; });
    if (alpha_zero && material.ambient[3] == 1 && material.diffuse[3] == 1 && material.specular[3] == 1)
        material.ambient[3] = material.diffuse[3] = material.specular[3] = 0;
    auto bytes = write_material(material, binary, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

}  // namespace

void mark_alpha_zero(Scene& scene, const uint8_t ambient[4], const uint8_t diffuse[4], const uint8_t specular[4]) {
    if (ambient[3] == 0 && diffuse[3] == 0 && specular[3] == 0) scene.meta.extensions.push_back({std::string(alpha_zero_extension), {}});
}

Expected<Output> write_crf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_material_file(scene, true, options); }
Expected<Output> write_xrf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_material_file(scene, false, options); }

}  // namespace rigport::cal3d

// XSF XML skeleton and XRF XML material readers (docs/cal3d.md §3.3, §3.6).
#include <fmt/format.h>

#include "support/excerpt.hpp"
#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/cal3d_write_material.hpp"
#include "formats/cal3d/cal3d_xml.hpp"

namespace rigport::cal3d {

Expected<Scene> read_xsf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    xml::Document d;
    if (auto e = xml::parse(bytes, FileType::Skeleton, d, scene.warnings, options.max_depth)) return *e;
    std::vector<Bone> bones;
    std::vector<BoneLight> lights;  // IMVU LIGHTTYPE / LIGHTCOLOR per bone, kept for IMVU writers
    bool non_finite = false, bad_light = false;
    // The bone index is the document order (§3.2): BONE ID and NUMBONES are not trusted.
    for (auto node = xml::child(d.body, "BONE"); node; node = xml::next(node, "BONE")) {
        if (bones.size() >= options.max_elements)
            return make_error(ErrorCode::LimitExceeded, fmt::format("more than {} bones", options.max_elements));
        Bone b;
        b.offset = uint64_t(node.offset_debug());
        const char* name = xml::attribute(node, "NAME");
        b.name = name ? name : "";
        BoneLight light;
        // Viewer state: unreadable values are warned about and read as 0 (the IM default).
        if (const char* type = xml::attribute(node, "LIGHTTYPE"); type && !xml::integer(type, light.type))
            light.type = 0, bad_light = true;
        if (const char* color = xml::attribute(node, "LIGHTCOLOR"); color && !xml::floats(color, light.color.data(), 3, non_finite))
            light.color = {0, 0, 0}, bad_light = true;
        lights.push_back(light);
        auto& w = scene.warnings;
        if (auto e = xml::element_floats(d, node, "TRANSLATION", b.translation.data(), 3, w)) return *e;
        if (auto e = xml::element_floats(d, node, "ROTATION", b.rotation.data(), 4, w)) return *e;
        if (auto e = xml::element_floats(d, node, "LOCALTRANSLATION", b.local_translation.data(), 3, w)) return *e;
        if (auto e = xml::element_floats(d, node, "LOCALROTATION", b.local_rotation.data(), 4, w)) return *e;
        auto parent = xml::child(node, "PARENTID");
        if (!parent) return xml::error_at(d, node, "missing <PARENTID>");
        if (!xml::integer(parent.child_value(), b.parent)) return xml::error_at(d, parent, "not an integer");
        for (auto c = xml::child(node, "CHILDID"); c; c = xml::next(c, "CHILDID")) {
            int32_t id = 0;
            if (!xml::integer(c.child_value(), id)) return xml::error_at(d, c, "not an integer");
            if (b.children.size() >= options.max_elements) return xml::error_at(d, c, "too many CHILDID");
            b.children.push_back(id);
        }
        bones.push_back(std::move(b));
    }
    int32_t declared = -1;
    if (xml::integer(xml::attribute(d.body, "NUMBONES"), declared) && declared != int32_t(bones.size()))
        scene.warnings.add(WarningCode::CountMismatch, fmt::format("NUMBONES {} but {} BONE elements; all are read", declared, bones.size()));
    for (auto c : d.body.children())
        if (c.type() == pugi::node_element && !xml::is(c, "BONE"))
            scene.warnings.add(WarningCode::UnknownCommand, fmt::format("unknown element <{}> in SKELETON ignored", detail::excerpt(c.name())));
    auto sk = build_skeleton(bones, false, scene.warnings);
    if (!sk) return sk.error();
    scene.skeleton = std::move(*sk);
    Vec3 ambient{0, 0, 0};
    if (const char* color = xml::attribute(d.body, "SCENEAMBIENTCOLOR"); color && !xml::floats(color, ambient.data(), 3, non_finite))
        ambient = {0, 0, 0}, bad_light = true;
    if (non_finite) scene.warnings.add(WarningCode::NonFiniteValue, "non-finite light colours replaced by 0");
    if (bad_light) scene.warnings.add(WarningCode::Substituted, "unreadable SCENEAMBIENTCOLOR / LIGHTTYPE / LIGHTCOLOR values read as 0");
    store_imvu_lighting(scene, ambient, lights);
    set_meta(scene, FileType::Skeleton, false, d.version);
    return scene;
}

Expected<Scene> read_xrf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    xml::Document d;
    if (auto e = xml::parse(bytes, FileType::Material, d, scene.warnings, options.max_depth)) return *e;
    Material m;
    uint8_t colors[3][4] = {};
    const char* names[3] = {"AMBIENT", "DIFFUSE", "SPECULAR"};
    for (int c = 0; c < 3; ++c) {
        float v[4] = {0, 0, 0, 0};
        if (auto e = xml::element_floats(d, d.body, names[c], v, 4, scene.warnings)) return *e;
        for (int k = 0; k < 4; ++k) {
            if (v[k] < 0 || v[k] > 255)
                scene.warnings.add(WarningCode::ValueClamped, fmt::format("{} component {} outside 0..255; clamped", names[c], v[k]));
            colors[c][k] = uint8_t(std::clamp(v[k], 0.0f, 255.0f) + 0.5f);
        }
    }
    set_colors(m, colors[0], colors[1], colors[2]);
    mark_alpha_zero(scene, colors[0], colors[1], colors[2]);
    if (auto e = xml::element_floats(d, d.body, "SHININESS", &m.shininess, 1, scene.warnings)) return *e;
    for (auto node = xml::child(d.body, "MAP"); node; node = xml::next(node, "MAP")) {
        if (m.maps.size() >= options.max_elements) return xml::error_at(d, node, "too many MAP elements");
        TextureMap map;
        map.uri = node.child_value();
        const char* type = xml::attribute(node, "TYPE");
        map.type_name = type ? type : "";
        map.type = texture_type(map.type_name);
        m.maps.push_back(std::move(map));
    }
    scene.materials.push_back(std::move(m));
    set_meta(scene, FileType::Material, false, d.version);
    return scene;
}

}  // namespace rigport::cal3d

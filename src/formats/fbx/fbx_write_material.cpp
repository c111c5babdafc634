// FBX materials and textures (docs/fbx.md "Writing FBX", §2.8 for how they are read): a Phong
// Material per scene material, and per texture map a Texture linked to the material's property
// for its kind and a Video naming the same file, by the relative name the scene holds, and
// holding its bytes (Content) with --images embed.
#include "formats/common/embedded_images.hpp"
#include "formats/fbx/fbx_write.hpp"

namespace rigport::fbx::out {

namespace {

// The Material property a map of this kind is linked to.
std::string texture_property(const TextureMap& map) {
    switch (map.type) {
        case TextureType::Diffuse: return "DiffuseColor";
        case TextureType::Normal: return "NormalMap";
        case TextureType::Specular: return "SpecularColor";
        case TextureType::Emissive: return "EmissiveColor";
        case TextureType::Opacity: return "TransparentColor";
        case TextureType::Ambient: return "AmbientColor";
        case TextureType::Other: return map.type_name.empty() ? "DiffuseColor" : map.type_name;
    }
    return "DiffuseColor";
}

// The image a Video holds with embed_images (the scene's, or the one found on disk), or null.
const std::vector<uint8_t>* embedded_bytes(const Document& doc, const TextureMap& map) {
    return doc.options.fbx.embed_images ? detail::texture_image(doc.scene, doc.options, map) : nullptr;
}

void colour(Node& p, const char* name, const Vec4& c) {
    const double rgb[3] = {c[0], c[1], c[2]};
    property_vector(p, name, "Color", "", "A", rgb);
}

}  // namespace

void write_materials(Document& doc) {
    const Scene& scene = doc.scene;
    for (size_t i = 0; i < scene.materials.size(); ++i) {
        const Material& m = scene.materials[i];
        const int64_t material = doc.id("Material", i);
        doc.materials.push_back(material);
        Node& node = doc.object("Material", material, name_or(m.name, "material", i), "Material", "");
        node.add("Version", {i32(102)});
        node.add("ShadingModel", {str("phong")});
        node.add("MultiLayer", {i32(0)});
        Node& p = node.add("Properties70");
        colour(p, "DiffuseColor", m.diffuse);
        property_number(p, "DiffuseFactor", 1.0, true);
        colour(p, "AmbientColor", m.ambient);
        colour(p, "SpecularColor", m.specular);
        colour(p, "EmissiveColor", m.emissive);
        property_number(p, "ShininessExponent", m.shininess, true);
        // Opacity is what the FBX SDK and rigport read first; TransparencyFactor for readers that
        // know only the older property.
        property_number(p, "Opacity", m.diffuse[3], true);
        property_number(p, "TransparencyFactor", 1.0 - m.diffuse[3], true);
        for (size_t k = 0; k < m.maps.size(); ++k) {
            const TextureMap& map = m.maps[k];
            const std::string file = map.uri;
            const std::string name = name_or(file, "texture", k);
            const int64_t texture = doc.id("Texture", i, k), video = doc.id("Video", i, k);
            Node& v = doc.object("Video", video, name, "Video", "Clip");
            v.add("Type", {str("Clip")});
            property_string(v.add("Properties70"), "Path", file);
            v.add("UseMipMap", {i32(0)});
            v.add("Filename", {str(file)});
            v.add("RelativeFilename", {str(file)});
            if (const std::vector<uint8_t>* bytes = embedded_bytes(doc, map)) v.add("Content", {raw(std::string(bytes->begin(), bytes->end()))});
            Node& t = doc.object("Texture", texture, name, "Texture", "");
            t.add("Type", {str("TextureVideoClip")});
            t.add("Version", {i32(202)});
            t.add("TextureName", {object_name(name, "Texture")});
            Node& tp = t.add("Properties70");
            property(tp, "UVSet", "KString", "", "", {str("")});
            property_bool(tp, "UseMaterial", true);
            t.add("Media", {object_name(name, "Video")});
            t.add("FileName", {str(file)});
            t.add("RelativeFilename", {str(file)});
            t.add("ModelUVTranslation", {f64(0), f64(0)});
            t.add("ModelUVScaling", {f64(1), f64(1)});
            t.add("Texture_Alpha_Source", {str("None")});
            t.add("Cropping", {i32(0), i32(0), i32(0), i32(0)});
            doc.connect(video, texture);
            doc.connect_property(texture, material, texture_property(map));
        }
    }
}

}  // namespace rigport::fbx::out

// FBX materials and their textures (docs/fbx.md §2.8): Material colours, Texture file names by
// the material property they are linked to, and the images a file embeds (Video Content).
#include "formats/fbx/fbx_material.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "support/base64.hpp"
#include "formats/common/embedded_images.hpp"

namespace rigport::fbx {

namespace {

// Images the file holds: a Video's Content (binary: raw bytes; ASCII: base64 in one or more
// strings), each kept once in Scene::images however many textures use it.
struct Media {
    const Objects& objects;
    Scene& scene;
    std::map<uint32_t, int32_t> by_video;
    size_t held = 0, unreadable = 0;

    int32_t image_of(uint32_t video) {
        if (auto it = by_video.find(video); it != by_video.end()) return it->second;
        int32_t& slot = by_video[video] = -1;
        const Node* content = objects[video].node->child("Content");
        if (!content) return -1;
        EmbeddedImage image;
        std::string text;  // ASCII: base64 split over strings at any length, decoded as one
        for (const Property& p : content->properties) {
            if (p.type == 'R') image.bytes.insert(image.bytes.end(), p.text.begin(), p.text.end());
            else if (p.type == 'S') text += p.text;
        }
        if (!text.empty() && detail::decode_base64(text, image.bytes)) {
            ++unreadable;
            return -1;
        }
        if (image.bytes.empty()) return -1;
        // Its name: the file it was (RelativeFilename, else Filename), without folders.
        for (const char* key : {"RelativeFilename", "Filename"})
            if (const Node* f = objects[video].node->child(key); f && !f->properties.empty() && !f->properties[0].text.empty()) {
                std::string name(f->properties[0].text);
                std::replace(name.begin(), name.end(), '\\', '/');
                image.name = name.substr(name.rfind('/') + 1);
                break;
            }
        scene.images.push_back(std::move(image));
        ++held;
        return slot = int32_t(scene.images.size() - 1);
    }
};

}  // namespace

void read_materials(const Objects& objects, Scene& scene, std::unordered_map<uint32_t, int32_t>& material_of) {
    Media media{objects, scene, {}, 0, 0};
    for (uint32_t i = 0; i < objects.list.size(); ++i) {
        if (objects[i].kind != "Material") continue;
        const Object& o = objects[i];
        Material mat;
        mat.name = o.name;
        const auto d = property_vec3(o, "DiffuseColor", property_vec3(o, "Diffuse", {0.8, 0.8, 0.8}));
        const double factor = property_number(o, "DiffuseFactor", 1);
        const double opacity = property_number(o, "Opacity", 1 - property_number(o, "TransparencyFactor", 0));
        mat.diffuse = {float(d[0] * factor), float(d[1] * factor), float(d[2] * factor), float(std::clamp(opacity, 0.0, 1.0))};
        for (const Link& l : objects.children[i]) {
            const Object& t = objects[l.object];
            if (t.kind != "Texture") continue;
            TextureMap map;
            map.type_name = std::string(l.property);
            map.type = l.property == "NormalMap" || l.property == "Bump" ? TextureType::Normal
                     : l.property == "SpecularColor"                    ? TextureType::Specular
                     : l.property == "EmissiveColor"                    ? TextureType::Emissive
                     : l.property == "TransparentColor"                 ? TextureType::Opacity
                     : l.property == "DiffuseColor"                     ? TextureType::Diffuse : TextureType::Other;
            const Node* rel = t.node->child("RelativeFilename");
            const Node* abs = t.node->child("FileName");
            const Node* file = rel && !rel->properties.empty() && !rel->properties[0].text.empty() ? rel : abs;
            if (file && !file->properties.empty()) map.uri = std::string(file->properties[0].text);
            std::replace(map.uri.begin(), map.uri.end(), '\\', '/');
            for (uint32_t v : objects.children_of(l.object, "Video"))
                if (const int32_t image = media.image_of(v); image >= 0) {
                    map.image = image;
                    break;
                }
            if (map.uri.empty() && map.image < 0) continue;
            mat.maps.push_back(std::move(map));
        }
        material_of[i] = int32_t(scene.materials.size());
        scene.materials.push_back(std::move(mat));
    }
    if (media.held) detail::name_embedded_images(scene);
    if (media.unreadable)
        scene.warnings.add(WarningCode::DroppedData, fmt::format("{} embedded textures (Video Content) not base64: left out, their file names kept", media.unreadable));
}

}  // namespace rigport::fbx

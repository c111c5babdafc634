// glTF reader: materials (glTF 2.0 §3.9): name, base colour and emissive factors, and texture maps
// by image URI. Images are not loaded: a file URI is kept percent-decoded, a data: URI as written;
// an image inside a bufferView has no URI and its map is dropped with a warning.
#include <fmt/format.h>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

// The URI of a texture's image, or nothing (with a warning when the image has none).
std::optional<std::string> image_uri(Reader& r, uint32_t texture, const std::string& material) {
    const std::string path = fmt::format("/textures/{}", texture);
    const Json* t = r.item("textures", texture);
    uint32_t source = none;
    if (!t || !r.index(*t, "source", path, source, false, "images", r.count("images"))) return std::nullopt;
    if (source == none)  // KHR_texture_basisu, EXT_texture_webp ... name their image in an extension
        if (const Json* ext = r.object(*t, "extensions", path))
            for (auto it = ext->begin(); it != ext->end() && source == none; ++it)
                if (it->is_object() && !r.index(*it, "source", path + "/extensions/" + it.key(), source, false, "images", r.count("images"))) return std::nullopt;
    if (source == none) return std::nullopt;
    const std::string ipath = fmt::format("/images/{}", source);
    const Json* image = r.item("images", source);
    std::string uri;
    if (!image || !r.string(*image, "uri", ipath, uri)) return std::nullopt;
    if (uri.empty()) {
        r.warn(WarningCode::DroppedData, fmt::format("material '{}': image {} is stored in a bufferView; images are not loaded, so its map was not kept", material, source));
        return std::nullopt;
    }
    return uri.rfind("data:", 0) == 0 ? uri : percent_decode(uri);
}

bool add_map(Reader& r, Material& m, const Json* owner, const char* key, const std::string& path, TextureType type, const char* type_name) {
    const Json* info = owner ? r.object(*owner, key, path) : nullptr;
    uint32_t texture = none;
    if (!r.ok() || (info && !r.index(*info, "index", path + "/" + key, texture, true, "textures", r.count("textures")))) return false;
    if (texture == none) return true;
    auto uri = image_uri(r, texture, m.name);
    if (!r.ok()) return false;
    if (uri) m.maps.push_back(TextureMap{type, *uri, type_name});
    return true;
}

TextureType type_from_name(const std::string& name) {
    for (uint8_t t = 0; t <= uint8_t(TextureType::Other); ++t)
        if (name == to_string(TextureType(t))) return TextureType(t);
    return TextureType::Other;
}

}  // namespace

bool read_materials(Reader& r) {
    for (uint32_t i = 0; i < r.count("materials"); ++i) {
        const std::string path = fmt::format("/materials/{}", i);
        const Json* j = r.item("materials", i);
        Material m;
        if (!j || !r.string(*j, "name", path, m.name)) return false;
        const Json* pbr = r.object(*j, "pbrMetallicRoughness", path);
        if (!r.ok()) return false;
        float emissive[3] = {0, 0, 0};
        if ((pbr && !r.numbers(*pbr, "baseColorFactor", path + "/pbrMetallicRoughness", m.diffuse.data(), 4)) ||
            !r.numbers(*j, "emissiveFactor", path, emissive, 3))
            return false;
        m.emissive = {emissive[0], emissive[1], emissive[2], 1};
        if (!add_map(r, m, pbr, "baseColorTexture", path + "/pbrMetallicRoughness", TextureType::Diffuse, "") ||
            !add_map(r, m, j, "normalTexture", path, TextureType::Normal, "") || !add_map(r, m, j, "emissiveTexture", path, TextureType::Emissive, "") ||
            !add_map(r, m, j, "occlusionTexture", path, TextureType::Other, "occlusionTexture") ||
            !add_map(r, m, pbr, "metallicRoughnessTexture", path + "/pbrMetallicRoughness", TextureType::Other, "metallicRoughnessTexture"))
            return false;
        // rigport's own output keeps maps glTF has no slot for in extras.maps (gltf_document.cpp).
        const Json* extras = r.object(*j, "extras", path);
        const Json* maps = extras ? r.array(*extras, "maps", path + "/extras") : nullptr;
        if (!r.ok()) return false;
        for (size_t k = 0; maps && k < maps->size(); ++k) {
            const std::string at = fmt::format("{}/extras/maps/{}", path, k);
            TextureMap map;
            std::string type;
            if (!(*maps)[k].is_object()) continue;
            if (!r.string((*maps)[k], "type", at, type) || !r.string((*maps)[k], "uri", at, map.uri) || !r.string((*maps)[k], "typeName", at, map.type_name))
                return false;
            map.type = type_from_name(type);
            m.maps.push_back(std::move(map));
        }
        r.scene.materials.push_back(std::move(m));
    }
    return true;
}

}  // namespace rigport::gltf::read_detail

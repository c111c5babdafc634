// glTF reader: materials (glTF 2.0 §3.9): name, base colour and emissive factors, and texture maps
// with their images (§3.8.4): a file URI is kept percent-decoded; an image the file holds (a
// bufferView with mimeType, or a data: URI) is loaded into Scene::images and named for output.
// KHR_texture_transform and the KHR_materials_* extensions that map to a Material: docs/gltf.md §7.1.
#include <algorithm>

#include <fmt/format.h>

#include "formats/common/embedded_images.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

// The image a map gets: a file URI, or an image the file holds (image >= 0).
struct ImageRef {
    std::string uri;
    int32_t image = -1;
};

// The bytes of image `source`, copied once into Scene::images (with the image's name and type).
std::optional<int32_t> hold_image(Reader& r, uint32_t source, const Json& image, const std::string& path, const std::string& uri, uint32_t view) {
    if (r.image_of_image.empty()) r.image_of_image.assign(r.count("images"), -1);
    if (r.image_of_view.empty()) r.image_of_view.assign(r.count("bufferViews"), -1);
    int32_t& slot = view != none ? r.image_of_view[view] : r.image_of_image[source];
    if (slot >= 0) return slot;
    EmbeddedImage held;
    if (!r.string(image, "name", path, held.name) || !r.string(image, "mimeType", path, held.mime_type)) return std::nullopt;
    std::span<const uint8_t> bytes;
    std::vector<uint8_t> decoded;
    if (view != none) {
        uint32_t stride = 0;
        auto data = r.buffer_view(view, stride);
        if (!data) return std::nullopt;
        bytes = *data;
    } else {
        std::string media_type;
        if (auto bad = decode_data_uri(uri, decoded, media_type)) return r.malformed(path + "/uri", *bad), std::nullopt;
        if (!media_type.empty()) held.mime_type = media_type;
        bytes = decoded;
    }
    if (bytes.size() > r.bytes_read - std::min(r.bytes_read, r.image_bytes))
        return r.fail(ErrorCode::LimitExceeded, path,
                      fmt::format("{} more image bytes after {}: more than the {} bytes the file holds", bytes.size(), r.image_bytes, r.bytes_read)),
               std::nullopt;
    r.image_bytes += bytes.size();
    held.bytes.assign(bytes.begin(), bytes.end());
    r.scene.images.push_back(std::move(held));
    return slot = int32_t(r.scene.images.size() - 1);
}

// The image of a texture, or nothing (with a warning when the image has no data).
std::optional<ImageRef> image_of(Reader& r, uint32_t texture, const std::string& material) {
    const std::string path = fmt::format("/textures/{}", texture);
    const Json* t = r.item("textures", texture);
    uint32_t source = none;
    if (!t || !r.index(*t, "source", path, source, false, "images", r.count("images"))) return std::nullopt;
    if (source == none)  // KHR_texture_basisu, EXT_texture_webp ... name their image in an extension
        if (const Json* ext = r.object(*t, "extensions", path))
            for (auto it = ext->begin(); it != ext->end() && source == none; ++it)
                if (it->is_object() && !r.index(*it, "source", path + "/extensions/" + std::string(it->key()), source, false, "images", r.count("images"))) return std::nullopt;
    if (source == none) return std::nullopt;
    const std::string ipath = fmt::format("/images/{}", source);
    const Json* image = r.item("images", source);
    std::string uri;
    uint32_t view = none;
    if (!image || !r.string(*image, "uri", ipath, uri) ||
        !r.index(*image, "bufferView", ipath, view, false, "bufferViews", r.count("bufferViews")))
        return std::nullopt;
    if (!uri.empty() && uri.rfind("data:", 0) != 0) return ImageRef{percent_decode(uri), -1};
    if (uri.empty() && view == none) {
        r.warn(WarningCode::DroppedData, fmt::format("material '{}': image {} has neither uri nor bufferView; its map was not kept", detail::excerpt(material), source));
        return std::nullopt;
    }
    auto held = hold_image(r, source, *image, ipath, uri, uri.empty() ? view : none);
    if (!held) return std::nullopt;
    return ImageRef{{}, *held};
}

// A textureInfo's KHR_texture_transform (docs/gltf.md §7.1), kept per material for its primitives.
bool read_transform(Reader& r, const Json& info, const std::string& at, std::vector<TextureTransform>& out) {
    uint64_t set = 0;
    if (!r.uint(info, "texCoord", at, set, false)) return false;
    const Json* extensions = r.object(info, "extensions", at);
    const Json* ext = extensions ? r.object(*extensions, "KHR_texture_transform", at + "/extensions") : nullptr;
    if (!r.ok()) return false;
    if (!ext) return true;
    const std::string ep = at + "/extensions/KHR_texture_transform";
    TextureTransform t;
    if (!r.numbers(*ext, "offset", ep, t.offset.data(), 2) || !r.number(*ext, "rotation", ep, t.rotation) || !r.numbers(*ext, "scale", ep, t.scale.data(), 2) ||
        !r.uint(*ext, "texCoord", ep, set, false))
        return false;
    if (set > 255) return r.malformed(ep + "/texCoord", fmt::format("{} is beyond any TEXCOORD_n set", set));
    t.set = uint32_t(set);
    t.slot = at;
    out.push_back(t);
    return true;
}

bool add_map(Reader& r, Material& m, const Json* owner, const char* key, const std::string& path, TextureType type, const char* type_name) {
    const Json* info = owner ? r.object(*owner, key, path) : nullptr;
    uint32_t texture = none;
    if (!r.ok() || (info && !r.index(*info, "index", path + "/" + key, texture, true, "textures", r.count("textures")))) return false;
    if (texture == none) return true;
    if (!read_transform(r, *info, path + "/" + key, r.texture_transforms.back())) return false;
    auto image = image_of(r, texture, m.name);
    if (!r.ok()) return false;
    if (image) m.maps.push_back(TextureMap{type, image->uri, type_name, image->image});
    return true;
}

TextureType type_from_name(const std::string& name) {
    for (uint8_t t = 0; t <= uint8_t(TextureType::Other); ++t)
        if (name == to_string(TextureType(t))) return TextureType(t);
    return TextureType::Other;
}

// The KHR_materials_* extensions whose values have a place in rigport's Material (docs/gltf.md
// §7.1); KHR_materials_unlit has nothing to keep (the base colour is what it shows).
bool read_material_extensions(Reader& r, const Json& j, const std::string& path, bool has_pbr, Material& m) {
    const Json* extensions = r.object(j, "extensions", path);
    if (!r.ok()) return false;
    if (!extensions) return true;
    const std::string ep = path + "/extensions";
    const Json* strength = r.object(*extensions, "KHR_materials_emissive_strength", ep);
    const Json* specular = r.object(*extensions, "KHR_materials_specular", ep);
    const Json* glossiness = r.object(*extensions, "KHR_materials_pbrSpecularGlossiness", ep);
    if (!r.ok()) return false;
    if (strength) {
        float factor = 1.0f;
        if (!r.number(*strength, "emissiveStrength", ep + "/KHR_materials_emissive_strength", factor)) return false;
        if (!(factor >= 0)) return r.malformed(ep + "/KHR_materials_emissive_strength/emissiveStrength", fmt::format("{} is negative", factor));
        for (int c = 0; c < 3; ++c) m.emissive[c] *= factor;
    }
    if (specular) {
        // The specular colour a renderer mixes in: specularColorFactor scaled by specularFactor.
        const std::string sp = ep + "/KHR_materials_specular";
        float factor = 1.0f, color[3] = {1, 1, 1};
        if (!r.number(*specular, "specularFactor", sp, factor) || !r.numbers(*specular, "specularColorFactor", sp, color, 3) ||
            !add_map(r, m, specular, "specularColorTexture", sp, TextureType::Specular, "specularColorTexture") ||
            !add_map(r, m, specular, "specularTexture", sp, TextureType::Other, "specularTexture"))
            return false;
        m.specular = {color[0] * factor, color[1] * factor, color[2] * factor, 1};
    }
    if (glossiness) {
        // The archived specular-glossiness model: its diffuse is the base colour when the material
        // has no metallic-roughness block of its own (the extension's fallback rule).
        const std::string gp = ep + "/KHR_materials_pbrSpecularGlossiness";
        float color[3] = {1, 1, 1};
        Vec4 diffuse{1, 1, 1, 1};
        if (!r.numbers(*glossiness, "diffuseFactor", gp, diffuse.data(), 4) || !r.numbers(*glossiness, "specularFactor", gp, color, 3)) return false;
        m.specular = {color[0], color[1], color[2], 1};
        if (!has_pbr) m.diffuse = diffuse;
        const bool has_diffuse_map = std::any_of(m.maps.begin(), m.maps.end(), [](const TextureMap& t) { return t.type == TextureType::Diffuse; });
        if (!add_map(r, m, glossiness, "diffuseTexture", gp, has_diffuse_map ? TextureType::Other : TextureType::Diffuse, has_diffuse_map ? "diffuseTexture" : "") ||
            !add_map(r, m, glossiness, "specularGlossinessTexture", gp, TextureType::Specular, "specularGlossinessTexture"))
            return false;
    }
    return true;
}

}  // namespace

bool read_materials(Reader& r) {
    for (uint32_t i = 0; i < r.count("materials"); ++i) {
        const std::string path = fmt::format("/materials/{}", i);
        const Json* j = r.item("materials", i);
        r.texture_transforms.emplace_back();
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
            !add_map(r, m, pbr, "metallicRoughnessTexture", path + "/pbrMetallicRoughness", TextureType::Other, "metallicRoughnessTexture") ||
            !read_material_extensions(r, *j, path, pbr != nullptr, m))
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
    detail::name_embedded_images(r.scene);
    return true;
}

}  // namespace rigport::gltf::read_detail

// load_render_textures(): each material's diffuse texture, found as the glTF export finds it, decoded.
#include <unordered_map>

#include <fmt/format.h>
#include <stb_image.h>

#include "rigport/render.hpp"

namespace rigport {

namespace {

// RGBA pixels of an encoded image; empty when stb cannot decode it or it is too large.
RenderImage decode(const std::vector<uint8_t>& bytes, uint32_t max_dimension) {
    RenderImage out;
    int w = 0, h = 0, channels = 0;
    if (bytes.empty() || bytes.size() > size_t(INT32_MAX) || !stbi_info_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels) ||
        w <= 0 || h <= 0 || uint32_t(w) > max_dimension || uint32_t(h) > max_dimension)
        return out;
    stbi_uc* pixels = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 4);
    if (!pixels) return out;
    out.width = uint32_t(w);
    out.height = uint32_t(h);
    out.rgba.assign(pixels, pixels + size_t(w) * size_t(h) * 4);
    stbi_image_free(pixels);
    return out;
}

}  // namespace

Expected<std::vector<RenderImage>> load_render_textures(const Scene& scene, const ImageOptions& options, Warnings& warnings) {
    ImageOptions embed = options;
    embed.mode = ImageOptions::Mode::Embed;  // the bytes, not a reference
    embed.convert = true;                    // TGA and friends arrive as PNG
    // resolve_images words its warnings for an export ("written without it"); a picture draws.
    Warnings found_warnings;
    auto found = resolve_images(scene, options.model_path.empty() ? "render.glb" : options.model_path + ".glb", embed, found_warnings);
    if (!found) return found.error();
    for (Warning w : found_warnings.items) {
        if (auto at = w.message.find("is written without it"); at != std::string::npos) w.message.replace(at, 21, "is drawn without it");
        warnings.add_warning(w);
    }
    std::unordered_map<std::string, const GltfImage*> by_uri;
    for (auto& image : *found) by_uri.emplace(image.source_uri, &image);

    std::vector<RenderImage> out(scene.materials.size());
    std::unordered_map<std::string, RenderImage> decoded;  // a texture shared by materials is decoded once
    for (size_t m = 0; m < scene.materials.size(); ++m)
        for (auto& map : scene.materials[m].maps) {
            if (map.type != TextureType::Diffuse) continue;
            const std::vector<uint8_t>* bytes = nullptr;
            if (map.image >= 0 && size_t(map.image) < scene.images.size()) bytes = &scene.images[size_t(map.image)].bytes;
            else if (auto it = by_uri.find(map.uri); it != by_uri.end()) bytes = &it->second->bytes;
            if (!bytes || bytes->empty()) break;  // not found: resolve_images warned
            const std::string key = map.image >= 0 ? fmt::format("#{}", map.image) : map.uri;
            auto it = decoded.find(key);
            if (it == decoded.end()) it = decoded.emplace(key, decode(*bytes, options.max_dimension)).first;
            if (it->second.rgba.empty())
                warnings.add(WarningCode::TextureNotFound,
                             fmt::format("texture '{}' of material '{}' cannot be decoded; drawn without it", map.uri, scene.materials[m].name),
                             std::nullopt, options.model_path);
            out[m] = it->second;
            break;  // the first diffuse map
        }
    return out;
}

}  // namespace rigport

// load_render_textures(): each material's diffuse texture, found as the glTF export finds it,
// decoded once per file within a budget (render.hpp, docs/render.md "Textures").
#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>
#include <stb_image.h>

#include "io/confine.hpp"
#include "io/texture_search.hpp"
#include "rigport/io.hpp"
#include "rigport/render.hpp"

namespace rigport {

namespace fs = std::filesystem;

namespace {

// What one texture (a file, however spelt, or an embedded image) is, and who names it.
struct Texture {
    std::string key;                    // "#index", or the resolved file
    std::string uri;                    // the spelling resolve_images is given (the first, or a normal one)
    std::string material;               // the first material naming it (for warnings)
    std::vector<size_t> materials;      // every material whose first diffuse map it is
    int32_t image = -1;                 // Scene::images index, or -1
};

// The file a texture URI names, found as the resolver finds it and resolved as its confinement
// resolves it (made absolute, '..' and symbolic links of its existing part followed): `b.png`,
// `./b.png`, `.//b.png`, `sub/../b.png` and `b` (found as b.png) are one key. A texture not found
// is keyed by its first place, so its spellings share one warning; a URI that cannot be resolved
// is its own key.
std::string file_key(const std::string& uri, detail::TextureFinder& finder) {
    if (uri.rfind("data:", 0) == 0) return "uri:" + uri;
    std::string file = finder.find(uri).file;
    if (file.empty()) {
        auto places = finder.places(uri);
        if (places.empty()) return "uri:" + uri;
        file = places.front();
    }
    auto resolved = detail::confine(file, ".", /*allow_outside=*/true);  // resolution only; the resolver confines
    return resolved ? "file:" + *resolved : "uri:" + uri;
}

bool is_normal_spelling(const std::string& uri) {
    return !uri.empty() && fs::path(uri).lexically_normal().generic_string() == uri;
}

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", double(bytes) / double(1u << 20)); }

}  // namespace

Expected<std::vector<std::shared_ptr<const RenderImage>>> load_render_textures(const Scene& scene, const ImageOptions& options,
                                                                              uint64_t max_texture_bytes, Warnings& warnings,
                                                                              TextureStats* stats) {
    // Each material's first diffuse map, grouped by the file or embedded image it names.
    std::vector<Texture> textures;
    std::unordered_map<std::string, size_t> by_key;
    detail::TextureFinder finder(detail::texture_search(options));
    for (size_t m = 0; m < scene.materials.size(); ++m) {
        auto map = std::find_if(scene.materials[m].maps.begin(), scene.materials[m].maps.end(),
                                [](const TextureMap& t) { return t.type == TextureType::Diffuse; });
        if (map == scene.materials[m].maps.end()) continue;
        const bool held = map->image >= 0 && size_t(map->image) < scene.images.size();
        if (!held && map->uri.empty()) continue;
        const std::string key = held ? fmt::format("#{}", map->image) : file_key(map->uri, finder);
        auto [it, fresh] = by_key.emplace(key, textures.size());
        if (fresh) textures.push_back(Texture{key, map->uri, scene.materials[m].name, {}, held ? map->image : -1});
        Texture& t = textures[it->second];
        t.materials.push_back(m);
        // A spelling through a folder that does not exist ("none/../b.png") is not opened by the
        // resolver: give it the plain one when a material has it.
        if (!held && !is_normal_spelling(t.uri) && is_normal_spelling(map->uri)) t.uri = map->uri;
    }

    // The files, found and read as the glTF export finds them: one material per file, so each is
    // read once. Embed mode without conversion: PNG and JPEG come back as bytes; another image
    // comes back as a path (relative to the output's folder, here the model's), read below and
    // decoded here directly instead of through a PNG.
    Scene files;
    for (auto& t : textures) {
        if (t.image >= 0) continue;
        Material material;
        material.name = t.material;
        material.maps.push_back(TextureMap{TextureType::Diffuse, t.uri, {}, -1});
        files.materials.push_back(std::move(material));
    }
    ImageOptions embed = options;
    embed.mode = ImageOptions::Mode::Embed;
    embed.convert = false;
    // Found as the export finds them (docs/render.md), for an output beside the model: in Embed
    // mode only the output's folder matters to the resolver, so the model's own path serves.
    const std::string output = options.model_path.empty() ? "render" : options.model_path;
    Warnings found_warnings;
    auto found = resolve_images(files, output, embed, found_warnings);
    if (!found) return found.error();
    for (Warning w : found_warnings.items) {
        if (w.code == WarningCode::ImageFormatNotGltf) continue;  // a glTF viewer's concern: a picture decodes it
        if (auto at = w.message.find("is written without it"); at != std::string::npos) w.message.replace(at, 21, "is drawn without it");
        warnings.add_warning(w);
    }
    std::unordered_map<std::string, const GltfImage*> by_uri;
    for (auto& image : *found) by_uri.emplace(image.source_uri, &image);
    std::error_code ec;
    const fs::path output_folder = fs::absolute(fs::path(output), ec).parent_path().lexically_normal();

    TextureStats counted;
    std::vector<std::shared_ptr<const RenderImage>> out(scene.materials.size());
    for (auto& t : textures) {
        auto warn = [&](const std::string& why) {
            warnings.add(WarningCode::TextureNotFound,
                         fmt::format("texture '{}' of material '{}' {}; drawn without it", t.uri, t.material, why), std::nullopt,
                         options.model_path);
        };
        std::vector<uint8_t> read;  // another format's file, read here
        const std::vector<uint8_t>* bytes = nullptr;
        if (t.image >= 0) {
            bytes = &scene.images[size_t(t.image)].bytes;
        } else if (auto it = by_uri.find(t.uri); it != by_uri.end()) {
            if (!it->second->bytes.empty()) {
                bytes = &it->second->bytes;
            } else if (!it->second->uri.empty()) {  // an image neither PNG nor JPEG, found and confined by the resolver
                auto file = read_file((output_folder / it->second->uri).string(), options.max_file_bytes);
                if (!file) return file.error();
                read = std::move(*file);
                bytes = &read;
            }
        }
        if (!bytes || bytes->empty()) continue;  // not found, or no image: resolve_images warned

        // The size the header declares, checked before anything is decoded.
        int w = 0, h = 0, channels = 0;
        if (bytes->size() > size_t(INT32_MAX) || !stbi_info_from_memory(bytes->data(), int(bytes->size()), &w, &h, &channels) || w <= 0 ||
            h <= 0) {
            warn("is not an image stb can read");
            continue;
        }
        if (uint32_t(w) > options.max_dimension || uint32_t(h) > options.max_dimension) {
            warn(fmt::format("is {}x{} pixels, beyond {} a side", w, h, options.max_dimension));
            continue;
        }
        const uint64_t need = uint64_t(w) * uint64_t(h) * 4;
        if (need > max_texture_bytes - std::min(max_texture_bytes, counted.decoded_bytes)) {
            ++counted.over_budget;
            warnings.add(WarningCode::DroppedData,
                         fmt::format("texture '{}' of material '{}' is {}x{} pixels: {} decoded, beyond the texture budget of {} "
                                     "({} already decoded); drawn without it (--texture-budget raises it)",
                                     t.uri, t.material, w, h, mib(need), mib(max_texture_bytes), mib(counted.decoded_bytes)),
                         std::nullopt, options.model_path);
            continue;
        }
        std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(bytes->data(), int(bytes->size()), &w, &h, &channels, 4),
                                                         stbi_image_free);
        if (!pixels) {
            warn(fmt::format("cannot be decoded ({})", stbi_failure_reason()));
            continue;
        }
        auto image = std::make_shared<RenderImage>();
        image->width = uint32_t(w);
        image->height = uint32_t(h);
        image->rgba.assign(pixels.get(), pixels.get() + size_t(w) * size_t(h) * 4);
        ++counted.decoded;
        counted.decoded_bytes += image->rgba.size();
        for (size_t m : t.materials) out[m] = image;
    }
    if (stats) *stats = counted;
    return out;
}

}  // namespace rigport

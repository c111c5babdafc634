// Texture files for glTF output: found beside the source, referenced, embedded or converted to
// PNG with stb (docs/gltf.md §5.2: only PNG and JPEG are core glTF images).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include "model/guarded.hpp"
#include "io/texture_search.hpp"
#include "rigport/formats.hpp"
#include "rigport/images.hpp"

namespace rigport {

namespace fs = std::filesystem;

namespace {

const char* sniff_mime(const std::vector<uint8_t>& b) {
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (b.size() >= 8 && std::memcmp(b.data(), png, 8) == 0) return "image/png";
    if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "image/jpeg";
    return nullptr;
}

// A URI with a scheme other than file: (http:, https:, ftp: ...): an address on the web, which
// rigport never fetches (docs/cli.md, "Textures"). One letter before ':' is a Windows drive.
bool is_web_uri(std::string_view uri) {
    const size_t colon = uri.find(':');
    if (colon == std::string_view::npos || colon < 2) return false;
    for (size_t i = 0; i < colon; ++i) {
        const unsigned char c = static_cast<unsigned char>(uri[i]);
        if (!(std::isalpha(c) || (i > 0 && (std::isdigit(c) || c == '+' || c == '-' || c == '.')))) return false;
    }
    const std::string scheme = [&] {
        std::string s(uri.substr(0, colon));
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }();
    return scheme != "file" && scheme != "data";
}

// True when stb recognises the bytes as an image it can decode (TGA, BMP, PSD, GIF, HDR, PNM ...).
bool is_image(const std::vector<uint8_t>& bytes) {
    if (bytes.empty() || bytes.size() > uint64_t(INT32_MAX)) return false;
    int w = 0, h = 0, channels = 0;
    return stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w, &h, &channels) && w > 0 && h > 0;
}

// The image decoded by stb and encoded as PNG; empty with a message on failure.
std::vector<uint8_t> convert_to_png(const std::vector<uint8_t>& bytes, uint32_t max_dimension, std::string& why) {
    if (bytes.size() > uint64_t(INT32_MAX)) return why = "too large to decode", std::vector<uint8_t>{};
    int w = 0, h = 0, channels = 0;
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    if (!stbi_info_from_memory(data, int(bytes.size()), &w, &h, &channels))
        return why = fmt::format("not an image stb can read ({})", stbi_failure_reason()), std::vector<uint8_t>{};
    if (w <= 0 || h <= 0 || uint32_t(w) > max_dimension || uint32_t(h) > max_dimension)
        return why = fmt::format("{}x{} pixels, the limit is {} per side", w, h, max_dimension), std::vector<uint8_t>{};
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, int(bytes.size()), &w, &h, &channels, 0),
                                                     stbi_image_free);
    if (!pixels) return why = fmt::format("cannot decode it ({})", stbi_failure_reason()), std::vector<uint8_t>{};
    std::vector<uint8_t> png;
    auto append = [](void* context, void* chunk, int size) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        out->insert(out->end(), static_cast<uint8_t*>(chunk), static_cast<uint8_t*>(chunk) + size);
    };
    if (!stbi_write_png_to_func(append, &png, w, h, channels, pixels.get(), w * channels) || png.empty())
        return why = "PNG encoding failed", std::vector<uint8_t>{};
    return png;
}

// The path of file relative to the output's folder, with '/' separators (a glTF URI before
// percent-encoding).
std::string relative_uri(const fs::path& file, const std::string& output_path) {
    std::error_code ec;
    const fs::path from = fs::absolute(fs::path(output_path), ec).parent_path().lexically_normal();
    const fs::path to = fs::absolute(file, ec).lexically_normal();
    fs::path rel = to.lexically_relative(from);
    return (rel.empty() ? to : rel).generic_string();
}

// True when the output's format writes one file holding its images at this extension (a .glb:
// FormatInfo::single_file_extension), so Auto embeds them.
bool writes_one_file(const std::string& path) {
    const FormatInfo* f = find_format_by_extension(path);
    return f && !f->single_file_extension.empty() && has_extension(path, {f->single_file_extension});
}

}  // namespace

static Expected<std::vector<GltfImage>> resolve_images_unguarded(const Scene& scene, const std::string& output_path,
                                                const ImageOptions& options, Warnings& warnings) {
    std::vector<std::string> uris;  // distinct, in material order (deterministic)
    std::unordered_set<std::string> seen;  // linear time for many materials
    for (auto& material : scene.materials)
        for (auto& map : material.maps)
            if (map.image < 0 && !map.uri.empty() && seen.insert(map.uri).second) uris.push_back(map.uri);  // held: the writer's

    const bool embed = options.mode == ImageOptions::Mode::Embed ||
                       (options.mode == ImageOptions::Mode::Auto && writes_one_file(output_path));
    detail::TextureFinder finder(detail::texture_search(options));
    // What the output does without the image: glTF leaves the map out (a reference to a missing
    // file is invalid glTF); the formats that read images for themselves (any_type: FBX, MD2,
    // MDL) keep naming the file.
    const char* without = options.any_type ? "the output names it without its image" : "its material is written without it";
    std::vector<GltfImage> out;
    for (const std::string& uri : uris) {
        GltfImage image{uri, {}, {}, {}};
        if (options.mode == ImageOptions::Mode::None || uri.rfind("data:", 0) == 0) {
            if (options.mode == ImageOptions::Mode::None) out.push_back(image);  // data: URIs pass through
            continue;
        }
        if (is_web_uri(uri)) {
            warnings.add(WarningCode::TextureNotFound,
                         fmt::format("texture '{}' is a web address, which rigport does not fetch; {}", uri, without),
                         std::nullopt, options.model_path);
            out.push_back(image);
            continue;
        }
        // One rule for every format (docs/cli.md "Textures"): as written beside the model, with a
        // game's extensions, by base name, then under each texture path. A place outside the
        // model's folder and the texture paths is not looked at, whether or not a file is there:
        // a texture only adds a picture to a material, so the model converts without it, with one
        // warning naming where it looked (docs/cli.md "Confinement").
        const detail::TextureLookup found = finder.find(uri);
        if (found.file.empty()) {
            warnings.add(WarningCode::TextureNotFound,
                         fmt::format("texture '{}' not found (looked for {}{}); {}", uri, found.looked,
                                     found.refused.empty() ? "" : "; not looked at: " + found.refused, without),
                         std::nullopt, options.model_path);
            out.push_back(image);
            continue;
        }
        const fs::path file = found.file;
        auto bytes = read_file(found.file, options.max_file_bytes);
        if (!bytes) return bytes.error();
        if (options.on_read) options.on_read(found.file);
        if (const char* mime = sniff_mime(*bytes)) {
            image.mime_type = mime;
            if (embed) image.bytes = std::move(*bytes);
            else image.uri = relative_uri(file, output_path);
        } else if (options.convert && is_image(*bytes)) {
            std::string why;
            image.bytes = convert_to_png(*bytes, options.max_dimension, why);
            if (image.bytes.empty()) {
                Error e = make_error(ErrorCode::Malformed, fmt::format("texture '{}': {}", uri, why));
                e.path = found.file;
                return e;
            }
            image.mime_type = "image/png";
        } else if (options.any_type && embed && (is_image(*bytes) || detail::is_image_extension(file.extension().string()))) {
            image.bytes = std::move(*bytes);  // as it is (PCX, DDS, TGA ...): mime_type empty
        } else if (!is_image(*bytes)) {
            // Not an image stb knows (converted or not): its path is not written into the output.
            warnings.add(WarningCode::TextureNotFound,
                         fmt::format("texture '{}': {} is not an image; {}", uri, file.generic_string(), without),
                         std::nullopt, options.model_path);
        } else {
            image.uri = relative_uri(file, output_path);
            warnings.add(WarningCode::ImageFormatNotGltf,
                         fmt::format("texture '{}' is neither PNG nor JPEG, which glTF viewers cannot load; referenced as "
                                     "it is (--convert-images converts it to PNG)", uri));
        }
        out.push_back(std::move(image));
    }
    return out;
}

Expected<std::vector<GltfImage>> resolve_images(const Scene& scene, const std::string& output_path,
                                                const ImageOptions& options, Warnings& warnings) {
    return detail::guarded(output_path, "resolving images", [&] { return resolve_images_unguarded(scene, output_path, options, warnings); });
}

std::vector<std::string> texture_files(const Scene& scene, const std::string& search_dir, const std::vector<std::string>& texture_paths) {
    std::vector<std::string> files;
    std::unordered_set<std::string> seen;
    detail::TextureSearch search;
    search.model_dir = search_dir;
    search.texture_paths = texture_paths;
    const detail::TextureFinder finder(std::move(search));
    for (auto& material : scene.materials)
        for (auto& map : material.maps) {
            if (map.image >= 0 || map.uri.empty() || map.uri.rfind("data:", 0) == 0 || is_web_uri(map.uri) || !seen.insert(map.uri).second) continue;
            for (auto& p : finder.places(map.uri)) {
                std::error_code ec;
                if (fs::is_regular_file(p, ec)) files.push_back(p);
            }
        }
    return files;
}

}  // namespace rigport

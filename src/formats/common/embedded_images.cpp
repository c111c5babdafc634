// Images a scene holds: type by magic bytes, safe unique file names, the files beside an output
// (glTF 2.0 §3.8.4 image data; core/embedded_images.hpp).
#include "formats/common/embedded_images.hpp"

#include <fmt/format.h>

#include <new>
#include <cstring>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "rigport/images.hpp"

namespace rigport {

namespace detail {

namespace {

struct ImageType {
    const char* mime;
    const char* extension;
    std::string_view magic;
    size_t magic_at;
};

// WebP is "RIFF" size "WEBP": its magic is checked at byte 8. GIF and BMP are not glTF images
// either, but a file of the right type is still the best thing to write.
const ImageType image_types[] = {
    {"image/png", ".png", std::string_view("\x89PNG\r\n\x1a\n", 8), 0},
    {"image/jpeg", ".jpg", std::string_view("\xff\xd8\xff", 3), 0},
    {"image/webp", ".webp", "WEBP", 8},
    {"image/ktx2", ".ktx2", std::string_view("\xabKTX 20\xbb\r\n\x1a\n", 12), 0},
    {"image/gif", ".gif", "GIF8", 0},
    {"image/bmp", ".bmp", "BM", 0},
};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

const char* extension_of(const std::string& mime) {
    for (auto& t : image_types)
        if (mime == t.mime) return t.extension;
    return ".bin";  // an unknown type: never given an image extension it does not have
}

// Letters, digits, '-', '_' and single dots; other bytes (separators, control bytes, NUL,
// non-ASCII) become '_'; no leading or trailing dot; at most 64 bytes; a known image extension
// dropped (the type's own is added). Empty when no letter or digit is left.
std::string safe_stem(std::string_view name) {
    std::string out;
    for (unsigned char c : name) {
        const char k = std::isalnum(c) || c == '-' ? char(c) : c == '.' ? '.' : '_';
        if ((k == '.' || k == '_') && !out.empty() && out.back() == k) continue;  // never ".."
        out += k;
        if (out.size() >= 64) break;
    }
    static const std::string_view known[] = {".png", ".jpg", ".jpeg", ".webp", ".ktx2", ".gif", ".bmp"};
    if (const size_t dot = out.rfind('.'); dot != std::string::npos &&
        std::find(std::begin(known), std::end(known), lower(out.substr(dot))) != std::end(known))
        out.resize(dot);
    while (!out.empty() && out.front() == '.') out.erase(out.begin());
    while (!out.empty() && out.back() == '.') out.pop_back();
    return std::any_of(out.begin(), out.end(), [](unsigned char c) { return std::isalnum(c); }) ? out : std::string();
}

}  // namespace

std::string image_mime(const EmbeddedImage& image) {
    const auto& b = image.bytes;
    for (auto& t : image_types)
        if (b.size() >= t.magic_at + t.magic.size() && std::memcmp(b.data() + t.magic_at, t.magic.data(), t.magic.size()) == 0) return t.mime;
    return lower(image.mime_type);
}

bool is_core_image(const std::string& mime) { return mime == "image/png" || mime == "image/jpeg"; }

void name_embedded_images(Scene& scene) {
    std::unordered_set<std::string> taken;  // lower-cased: one file on a case-insensitive disk
    for (auto& m : scene.materials)
        for (auto& map : m.maps)
            if (map.image < 0) taken.insert(lower(map.uri));
    std::vector<std::string> names(scene.images.size());
    for (auto& m : scene.materials)
        for (auto& map : m.maps) {
            if (map.image < 0) continue;
            std::string& name = names[size_t(map.image)];
            if (name.empty()) {
                const EmbeddedImage& image = scene.images[size_t(map.image)];
                std::string stem = safe_stem(image.name);
                if (stem.empty()) stem = safe_stem(m.name);
                if (stem.empty()) stem = "image";
                const char* ext = extension_of(image_mime(image));
                name = stem + ext;
                for (uint64_t n = 2; !taken.insert(lower(name)).second; ++n) name = fmt::format("{}_{}{}", stem, n, ext);
            }
            map.uri = name;
        }
}

const TextureMap* held_diffuse_map(const Material& material) {
    for (auto& map : material.maps)
        if (map.type == TextureType::Diffuse) return map.image >= 0 ? &map : nullptr;
    return nullptr;
}

const std::string& material_text(const Material& material) {
    const TextureMap* map = held_diffuse_map(material);
    return map ? map->uri : material.name;
}

const std::vector<uint8_t>* texture_image(const Scene& scene, const SaveOptions& options, const TextureMap& map) {
    if (map.image >= 0) return size_t(map.image) < scene.images.size() ? &scene.images[size_t(map.image)].bytes : nullptr;
    for (const GltfImage& image : options.images)
        if (image.source_uri == map.uri && !image.bytes.empty()) return &image.bytes;
    return nullptr;
}

const TextureMap* diffuse_map_with_image(const Scene& scene, const SaveOptions& options, const Material& material) {
    for (const TextureMap& map : material.maps)
        if (map.type == TextureType::Diffuse) return texture_image(scene, options, map) ? &map : nullptr;
    return nullptr;
}

std::vector<OutputFile> embedded_image_files(const Scene& scene, const std::vector<bool>& written, bool diffuse_only) {
    std::vector<OutputFile> files;
    std::vector<bool> done(scene.images.size(), false);
    auto add = [&](const TextureMap& map) {
        if (map.image < 0 || done[size_t(map.image)]) return;
        done[size_t(map.image)] = true;
        files.push_back(OutputFile{map.uri, scene.images[size_t(map.image)].bytes});
    };
    for (size_t i = 0; i < scene.materials.size() && i < written.size(); ++i) {
        if (!written[i]) continue;
        if (!diffuse_only)
            for (auto& map : scene.materials[i].maps) add(map);
        else if (const TextureMap* map = held_diffuse_map(scene.materials[i]))
            add(*map);
    }
    return files;
}

}  // namespace detail

void drop_embedded_images(Scene& scene, const std::string& why, Warnings& warnings) {
    for (auto& m : scene.materials) {
        auto held = [](const TextureMap& map) { return map.image >= 0; };
        for (auto& map : m.maps)
            if (held(map))
                warnings.add(WarningCode::DroppedData, fmt::format("material '{}': image '{}' not written ({}); the material is written without it",
                                                                   m.name, map.uri, why));
        m.maps.erase(std::remove_if(m.maps.begin(), m.maps.end(), held), m.maps.end());
    }
    scene.images.clear();
}

namespace detail {

std::vector<uint8_t> encode_png(const uint8_t* rgba, uint32_t width, uint32_t height) {
    // stb calls back from C with a buffer it frees afterwards: an exception thrown through it
    // (a failed allocation while copying) would skip that free and unwind through C frames. The
    // callback only notes the failure; it is thrown here, after stb has cleaned up.
    struct Sink {
        std::vector<uint8_t> png;
        bool failed = false;
    } sink;
    auto append = [](void* context, void* chunk, int size) {
        auto* out = static_cast<Sink*>(context);
        if (out->failed) return;
        try {
            out->png.insert(out->png.end(), static_cast<uint8_t*>(chunk), static_cast<uint8_t*>(chunk) + size);
        } catch (...) {
            out->failed = true;
        }
    };
    const int ok = stbi_write_png_to_func(append, &sink, int(width), int(height), 4, rgba, int(width * 4));
    if (sink.failed) throw std::bad_alloc();
    if (!ok) sink.png.clear();
    return std::move(sink.png);
}

std::array<uint32_t, 2> image_dimensions(const std::vector<uint8_t>& b) {
    auto u16 = [&](size_t at) { return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8; };
    auto u32 = [&](size_t at) { return u16(at) | u16(at + 2) << 16; };
    // PCX: manufacturer 10, encoding 1 (RLE); the window xmin, ymin, xmax, ymax from byte 4.
    if (b.size() >= 128 && b[0] == 10 && b[2] == 1 && u16(8) >= u16(4) && u16(10) >= u16(6)) return {u16(8) - u16(4) + 1, u16(10) - u16(6) + 1};
    // DDS: "DDS " and a 124-byte header whose height and width follow its size and flags.
    if (b.size() >= 128 && std::memcmp(b.data(), "DDS ", 4) == 0 && u32(4) == 124) return {u32(16), u32(12)};
    if (b.empty() || b.size() > uint64_t(INT32_MAX)) return {0, 0};
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(b.data()), int(b.size()), &w, &h, &channels) || w <= 0 || h <= 0) return {0, 0};
    return {uint32_t(w), uint32_t(h)};
}

Expected<RgbaImage> decode_rgba(const std::vector<uint8_t>& bytes, uint32_t max_side) {
    if (bytes.size() > uint64_t(INT32_MAX)) return make_error(ErrorCode::LimitExceeded, "the image is too large to decode");
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(data, int(bytes.size()), &w, &h, &channels))
        return make_error(ErrorCode::Unsupported, fmt::format("not an image stb can read ({})", stbi_failure_reason()));
    if (w <= 0 || h <= 0 || uint32_t(w) > max_side || uint32_t(h) > max_side)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} x {} pixels, the limit is {} a side", w, h, max_side));
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, int(bytes.size()), &w, &h, &channels, 4), stbi_image_free);
    if (!pixels) return make_error(ErrorCode::Unsupported, fmt::format("cannot decode it ({})", stbi_failure_reason()));
    RgbaImage image;
    image.width = uint32_t(w), image.height = uint32_t(h);
    image.rgba.assign(pixels.get(), pixels.get() + size_t(w) * size_t(h) * 4);
    return image;
}

}  // namespace detail

}  // namespace rigport

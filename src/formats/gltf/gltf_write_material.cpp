// glTF 2.0 materials (pbrMetallicRoughness, metallic 0, roughness 1), images and textures, and
// RFC 3986 URIs (docs/gltf.md §5.1-§5.2; glTF 2.0 §3.8-§3.9, §2.8 URIs).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "formats/common/embedded_images.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"

namespace rigport::gltf {

namespace {

bool core_extension(const std::string& uri) {
    std::string u = uri;
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::tolower(c); });
    auto ends = [&](std::string_view e) { return u.size() >= e.size() && u.compare(u.size() - e.size(), e.size(), e) == 0; };
    return ends(".png") || ends(".jpg") || ends(".jpeg");
}

std::string sniff_mime(const std::vector<uint8_t>& b) {
    if (b.size() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') return "image/png";
    if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "image/jpeg";
    return {};
}

class ImageTable {
public:
    explicit ImageTable(WriteContext& ctx) : ctx_(ctx) {}

    // The image (= texture) index for a map, or none (§5.2 rules in io.hpp GltfImage).
    std::optional<uint32_t> find(const TextureMap& map, const std::string& material) {
        const auto& images = ctx_.options.gltf.images;
        if (by_source_.empty() && !images.empty())  // the first entry of a source_uri counts, as a find would
            for (size_t i = images.size(); i-- > 0;) by_source_[images[i].source_uri] = i;
        if (map.image >= 0) return held(map, material);
        auto found = by_source_.find(map.uri);
        const GltfImage* entry = found == by_source_.end() ? nullptr : &images[found->second];
        if (entry && !entry->bytes.empty()) {
            const std::string mime = entry->mime_type.empty() ? sniff_mime(entry->bytes) : entry->mime_type;
            if (mime != "image/png" && mime != "image/jpeg") not_core(material, entry->source_uri);
            return embedded(entry->bytes, mime, {});
        }
        if (entry && entry->uri.empty()) return std::nullopt;  // resolved to "no image"
        return referenced(entry ? entry->uri : map.uri, material, true);
    }

    // A map whose image the scene holds written beside the output (a file named by its uri), for
    // a map glTF has no slot for: its extras name that file.
    void write_beside(const TextureMap& map) {
        if (map.image >= 0 && beside_.insert(map.uri).second)
            ctx_.side_files.push_back(OutputFile{map.uri, ctx_.scene.images[size_t(map.image)].bytes});
    }

private:
    // An image the scene holds: inside the output when it is PNG or JPEG and the mode says so
    // (GltfOptions::embedded_images), else beside it. Never embedded as another type.
    std::optional<uint32_t> held(const TextureMap& map, const std::string& material) {
        const EmbeddedImage& image = ctx_.scene.images[size_t(map.image)];
        const std::string mime = detail::image_mime(image);
        using Mode = GltfOptions::EmbeddedImages;
        const Mode mode = ctx_.options.gltf.embedded_images;
        const bool embed = mode == Mode::Embed || (mode == Mode::Auto && (ctx_.glb || ctx_.options.gltf.embed_buffer));
        if (detail::is_core_image(mime) && embed) return embedded(image.bytes, mime, image.name);
        if (!detail::is_core_image(mime))
            ctx_.warn(WarningCode::ImageFormatNotGltf,
                      fmt::format("material '{}': image '{}' is {}, which glTF core does not allow; written beside the output as a file, not embedded",
                                  material, map.uri, mime.empty() ? "of an unknown type" : mime));
        write_beside(map);
        return referenced(map.uri, material, false);
    }

    std::optional<uint32_t> embedded(const std::vector<uint8_t>& bytes, const std::string& mime, const std::string& name) {
        // Equal bytes and type are one image; found by a hash of the bytes, so many images cost linear time.
        const uint64_t key = std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        for (auto [it, end] = embedded_.equal_range(key); it != end; ++it)
            if (it->second.first == &bytes || (*it->second.first == bytes && ctx_.doc.images[it->second.second].mime_type == mime))
                return it->second.second;
        Image image;
        image.name = name;
        image.buffer_view = ctx_.buffer.view(bytes);
        image.mime_type = mime.empty() ? "application/octet-stream" : mime;
        return add(std::move(image), &bytes);
    }

    std::optional<uint32_t> referenced(const std::string& uri, const std::string& material, bool check_type) {
        if (uri.empty()) return std::nullopt;
        const bool data = uri.rfind("data:", 0) == 0;
        if (check_type && !data && !core_extension(uri)) not_core(material, uri);
        Image image;
        image.uri = data ? uri : encode_uri(uri);
        if (auto it = by_uri_.find(image.uri); it != by_uri_.end()) return it->second;
        const std::string uri_written = image.uri;
        const uint32_t index = add(std::move(image), nullptr);
        by_uri_.emplace(uri_written, index);
        return index;
    }

    uint32_t add(Image image, const std::vector<uint8_t>* bytes) {
        ctx_.doc.images.push_back(std::move(image));
        const uint32_t index = uint32_t(ctx_.doc.images.size() - 1);
        if (bytes)
            embedded_.emplace(std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size())),
                              std::make_pair(bytes, index));
        return index;
    }

    void not_core(const std::string& material, const std::string& uri) {
        ctx_.warn(WarningCode::ImageFormatNotGltf,
                  fmt::format("material '{}': image '{}' is not PNG or JPEG; glTF core allows only PNG and JPEG", material, uri));
    }

    WriteContext& ctx_;
    std::unordered_multimap<uint64_t, std::pair<const std::vector<uint8_t>*, uint32_t>> embedded_;  // by hash of the bytes
    std::unordered_map<std::string, uint32_t> by_uri_;       // referenced images by the uri written
    std::unordered_map<std::string, size_t> by_source_;      // options.gltf.images by source_uri
    std::unordered_set<std::string> beside_;                 // held images written beside, by uri
};

// Colour factors are [0, 1] in glTF; a value outside is clamped with a warning.
template <size_t N>
std::array<float, N> clamp01(WriteContext& ctx, const std::array<float, N>& c, const std::string& material) {
    std::array<float, N> out;
    for (size_t i = 0; i < N; ++i) out[i] = std::clamp(c[i], 0.0f, 1.0f);
    if (out != c) ctx.warn(WarningCode::DroppedData, fmt::format("material '{}': colour factors clamped to [0, 1]", material));
    return out;
}

}  // namespace

std::string encode_uri(const std::string& path) {
    std::string out;
    for (unsigned char c : path) {
        if (c == '\\') c = '/';
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') out += char(c);
        else out += fmt::format("%{:02X}", c);
    }
    return out;
}

void write_materials(WriteContext& ctx) {
    ImageTable images(ctx);
    for (const Material& mat : ctx.scene.materials) {
        MaterialDoc md;
        md.name = mat.name;
        const Vec4 diffuse = clamp01(ctx, mat.diffuse, mat.name);
        if (diffuse != Vec4{1, 1, 1, 1}) md.base_color_factor = diffuse;
        const Vec3 emissive = clamp01(ctx, Vec3{mat.emissive[0], mat.emissive[1], mat.emissive[2]}, mat.name);
        if (emissive != Vec3{0, 0, 0}) md.emissive_factor = emissive;
        for (const TextureMap& map : mat.maps) {
            std::optional<uint32_t>* slot = map.type == TextureType::Diffuse  ? &md.base_color_texture
                                            : map.type == TextureType::Normal  ? &md.normal_texture
                                            : map.type == TextureType::Emissive ? &md.emissive_texture
                                                                                : nullptr;
            if (slot && !*slot && (*slot = images.find(map, mat.name))) continue;
            images.write_beside(map);
            // Other map types, a second map of a type, and maps resolved to no image: extras only.
            md.extra_maps.push_back(ExtraMap{to_string(map.type), map.uri, map.type_name});
        }
        // An emissive texture is multiplied by emissiveFactor, whose default is black.
        if (md.emissive_texture && !md.emissive_factor) md.emissive_factor = Vec3{1, 1, 1};
        ctx.doc.materials.push_back(std::move(md));
    }
}

}  // namespace rigport::gltf

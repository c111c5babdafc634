// Textures against an engine profile (docs/targets.md "Textures"): each material's diffuse texture
// measured against the engine's image types, palette, power-of-two and size rules, and converted
// to fit by convert --target. Image types are named by src/formats/images, never here.
#include "pipeline/target_textures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include "formats/common/embedded_images.hpp"
#include "formats/images/image_files.hpp"
#include "rigport/images.hpp"

namespace rigport::detail {

namespace {

// One texture as the engine would load it.
struct Texture {
    std::string name;      // the map's uri
    std::string material;  // the first material that uses it
    const std::vector<uint8_t>* bytes = nullptr;
};

// The diffuse texture of each material a mesh uses, once per uri, with its bytes (the image the
// scene holds, else the file found); textures without bytes are left out.
std::vector<Texture> measured_textures(const Scene& scene, const std::vector<GltfImage>& found) {
    std::vector<bool> used(scene.materials.size(), false);
    for (const Mesh& mesh : scene.meshes)
        if (mesh.material >= 0 && size_t(mesh.material) < used.size()) used[size_t(mesh.material)] = true;
    std::vector<Texture> out;
    std::set<std::string> seen;
    for (size_t m = 0; m < scene.materials.size(); ++m) {
        if (!used[m]) continue;
        for (const TextureMap& map : scene.materials[m].maps) {
            if (map.type != TextureType::Diffuse || map.uri.empty()) continue;
            if (!seen.insert(map.uri).second) break;
            Texture t{map.uri, scene.materials[m].name, nullptr};
            if (map.image >= 0 && size_t(map.image) < scene.images.size()) t.bytes = &scene.images[size_t(map.image)].bytes;
            else
                for (const GltfImage& g : found)
                    if (g.source_uri == map.uri && !g.bytes.empty()) t.bytes = &g.bytes;
            if (t.bytes && !t.bytes->empty()) out.push_back(std::move(t));
            break;  // the first diffuse map: the one the engines' formats name
        }
    }
    return out;
}

bool power_of_two(uint32_t n) { return n > 0 && (n & (n - 1)) == 0; }
uint64_t stored_texels(uint32_t width, uint32_t height) { return uint64_t((width + 3) / 4 * 4) * height; }

// What one texture breaks, in the order of the findings.
struct Broken {
    bool type = false, palette = false, power = false, size = false;
    bool any() const { return type || palette || power || size; }
};

Broken breaks(const TargetTextures& rules, std::span<const uint8_t> bytes, uint32_t width, uint32_t height) {
    Broken b;
    const std::string_view type = images::type_of(bytes);
    b.type = !rules.types.empty() && std::find(rules.types.begin(), rules.types.end(), type) == rules.types.end();
    b.palette = rules.palette && !images::holds_palette(bytes);
    b.power = rules.power_of_two && (!power_of_two(width) || !power_of_two(height));
    b.size = (rules.most_width && width > rules.most_width) || (rules.most_height && height > rules.most_height) ||
             (rules.most_texels && stored_texels(width, height) > rules.most_texels);
    return b;
}

std::string type_words(std::span<const uint8_t> bytes) {
    const std::string_view type = images::type_of(bytes);
    return type.empty() ? std::string("an image of a type rigport does not know") : fmt::format("a {} image", type);
}

std::string list(const std::vector<std::string_view>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += fmt::format("{}{}", i == 0 ? "" : i + 1 == items.size() ? " or " : ", ", items[i]);
    return out;
}

// The sides the rules allow: scaled down (keeping the aspect) to the largest side and texel count,
// then each side up to the next power of two where required, unless that passes the largest side
// (then the largest power of two within it).
std::pair<uint32_t, uint32_t> fitted_size(const TargetTextures& rules, uint32_t width, uint32_t height) {
    double scale = 1;
    if (rules.most_width && width > rules.most_width) scale = std::min(scale, double(rules.most_width) / width);
    if (rules.most_height && height > rules.most_height) scale = std::min(scale, double(rules.most_height) / height);
    uint32_t w = std::max<uint32_t>(1, uint32_t(std::floor(width * scale)));
    uint32_t h = std::max<uint32_t>(1, uint32_t(std::floor(height * scale)));
    if (rules.most_texels && stored_texels(w, h) > rules.most_texels) {
        const double s = std::sqrt(double(rules.most_texels) / double(stored_texels(w, h)));
        w = std::max<uint32_t>(1, uint32_t(std::floor(w * s)));
        h = std::max<uint32_t>(1, uint32_t(std::floor(h * s)));
        while (stored_texels(w, h) > rules.most_texels && (w > 1 || h > 1)) (w * uint64_t(height) >= h * uint64_t(width) && w > 1 ? w : h) -= 1;
    }
    if (rules.power_of_two) {
        auto up = [](uint32_t n, uint32_t most) {
            uint32_t p = 1;
            while (p < n && p < (1u << 30)) p <<= 1;
            if (most)
                while (p > most && p > 1) p >>= 1;
            return p;
        };
        w = up(w, rules.most_width), h = up(h, rules.most_height);
    }
    return {w, h};
}

// The mean absolute difference per channel (RGB) between two images of one size.
double mean_error(const RgbaImage& a, const RgbaImage& b) {
    if (a.rgba.size() != b.rgba.size() || a.rgba.empty()) return 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < a.rgba.size(); ++i)
        if (i % 4 != 3) sum += uint64_t(std::abs(int(a.rgba[i]) - int(b.rgba[i])));
    return double(sum) / (double(a.rgba.size()) / 4 * 3);
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

void check_target_textures(const Scene& scene, const TargetProfile& profile, const std::vector<GltfImage>& found, ValidationReport& report) {
    const TargetTextures& rules = profile.textures;
    if (!rules.any()) return;
    struct Rule {
        const char* code;
        std::string first;
        uint64_t count = 0;
    };
    Rule rule[4] = {{"target.texture_type", {}}, {"target.texture_palette", {}}, {"target.texture_power_of_two", {}}, {"target.texture_size", {}}};
    for (const Texture& t : measured_textures(scene, found)) {
        const auto [width, height] = image_dimensions(*t.bytes);
        const Broken b = breaks(rules, *t.bytes, width, height);
        const std::string what = fmt::format("texture '{}' of material '{}'", t.name, t.material);
        auto note = [](Rule& r, bool broken, const std::string& message) {
            if (!broken) return;
            if (r.count++ == 0) r.first = message;
        };
        note(rule[0], b.type, fmt::format("{}: {}, {} loads {} ({})", what, type_words(*t.bytes), profile.name, list(rules.types), rules.types_source));
        note(rule[1], b.palette, fmt::format("{}: {} without 8-bit palette indices, {} takes only those ({})", what, type_words(*t.bytes), profile.name,
                                             rules.palette_source));
        note(rule[2], b.power, fmt::format("{}: {} x {}, {} takes sides that are powers of two ({})", what, width, height, profile.name,
                                           rules.power_of_two_source));
        std::string size;
        if ((rules.most_width && width > rules.most_width) || (rules.most_height && height > rules.most_height))
            size = fmt::format("{}: {} x {}, {} takes at most {} x {} ({})", what, width, height, profile.name,
                               rules.most_width ? fmt::format("{}", rules.most_width) : std::string("any"),
                               rules.most_height ? fmt::format("{}", rules.most_height) : std::string("any"), rules.size_source);
        else if (b.size)
            size = fmt::format("{}: {} x {} is {} stored texels, {} takes at most {} ({})", what, width, height, stored_texels(width, height),
                               profile.name, rules.most_texels, rules.texels_source);
        note(rule[3], b.size, size);
    }
    for (const Rule& r : rule)
        if (r.count)
            report.add(Severity::Error, r.code, r.count > 1 ? fmt::format("{} ({} textures break it)", r.first, r.count) : r.first, {}, r.count);
}

Expected<std::vector<OutputFile>> fit_textures_to_target(Scene& scene, const TargetProfile& profile, const std::vector<GltfImage>& found,
                                                         const std::function<bool(const std::string& name)>& taken,
                                                         std::vector<std::string>& fixes) {
    const TargetTextures& rules = profile.textures;
    std::vector<OutputFile> files;
    if (!rules.any()) return files;
    std::set<std::string> names;  // every texture name of the scene, lower case: new names stay unique
    for (const Material& m : scene.materials)
        for (const TextureMap& map : m.maps) names.insert(lower(map.uri));
    // The textures are measured before any is changed: the list points into the scene's images.
    struct Work {
        std::string name, material;
        std::vector<uint8_t> bytes;
    };
    std::vector<Work> work;
    for (const Texture& t : measured_textures(scene, found)) {
        const auto [width, height] = image_dimensions(*t.bytes);
        if (breaks(rules, *t.bytes, width, height).any()) work.push_back({t.name, t.material, *t.bytes});
    }
    for (const Work& t : work) {
        const std::string_view was = images::type_of(t.bytes);
        // Its own type when the engine loads it and rigport writes it; else the first the engine
        // loads that rigport writes; PNG when the engine names no type (the skin goes inside the model).
        std::string_view type;
        if (rules.types.empty()) type = images::can_write(was) ? was : images::lossless_type();
        else if (std::find(rules.types.begin(), rules.types.end(), was) != rules.types.end() && images::can_write(was)) type = was;
        else
            for (std::string_view candidate : rules.types)
                if (images::can_write(candidate)) {
                    type = candidate;
                    break;
                }
        if (type.empty())
            return make_error(ErrorCode::Unsupported, fmt::format("--target {}: texture '{}': {} loads {}, none of which rigport writes", profile.name,
                                                                  t.name, profile.name, list(rules.types)));
        auto decoded = decode_rgba(t.bytes, 65535);
        if (!decoded)
            return make_error(ErrorCode::Unsupported, fmt::format("--target {}: texture '{}' cannot be converted: {}", profile.name, t.name,
                                                                  decoded.error().message));
        const auto [width, height] = fitted_size(rules, decoded->width, decoded->height);
        const RgbaImage sized = images::resize(*decoded, width, height);
        if (sized.rgba.empty()) return make_error(ErrorCode::LimitExceeded, fmt::format("texture '{}': no memory to resize it", t.name));
        auto encoded = images::encode(type, sized, rules.palette);
        if (!encoded) return encoded.error();
        // Measured again as the engine will see it: a rule still broken is a bug here, not a fix.
        const Broken left = breaks(rules, encoded->bytes, width, height);
        if (left.any())
            return make_error(ErrorCode::Unsupported, fmt::format("--target {}: texture '{}' still breaks the profile's rules after converting it",
                                                                  profile.name, t.name));
        // Its file name: the base name with the type's extension, unique in the scene and beside the output.
        std::string stem = std::filesystem::path(std::string(t.name)).filename().replace_extension().string();
        for (auto& c : stem)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
        if (stem.empty() || stem.front() == '.') stem = "texture" + stem;
        std::string name = stem + std::string(images::extension_of(type));
        for (int k = 2; names.count(lower(name)) || (taken && taken(name)); ++k) name = fmt::format("{}_{}{}", stem, k, images::extension_of(type));
        names.insert(lower(name));
        // What the colours became: each texel of the written file against the resized image.
        std::string colours;
        if (rules.palette) {
            auto back = decode_rgba(encoded->bytes, 65535);
            colours = fmt::format(", {} colours in its own palette (mean error {:.2f} of 255 per channel{})", encoded->colours,
                                  back ? mean_error(*back, sized) : 0.0, encoded->dropped_alpha ? "; its transparency dropped" : "");
        }
        std::vector<std::string> why;
        const Broken b = breaks(rules, t.bytes, decoded->width, decoded->height);
        if (b.type) why.push_back(fmt::format("{} loads {} ({})", profile.name, list(rules.types), rules.types_source));
        if (b.palette) why.push_back(fmt::format("{} takes 8-bit palette images ({})", profile.name, rules.palette_source));
        if (b.power) why.push_back(fmt::format("sides rounded up to powers of two ({})", rules.power_of_two_source));
        if (b.size) why.push_back(fmt::format("made to fit ({})", rules.most_texels ? rules.texels_source : rules.size_source));
        std::string reasons;
        for (size_t i = 0; i < why.size(); ++i) reasons += (i ? "; " : "") + why[i];
        fixes.push_back(fmt::format("textures: '{}' (material '{}', {} of {} x {}) written as '{}': a {} image of {} x {}{}; {}", t.name, t.material,
                                    type_words(t.bytes), decoded->width, decoded->height, name, type, width, height, colours, reasons));
        // The scene holds the new image; every map that named the old texture names the new file.
        EmbeddedImage image;
        image.name = name;
        image.mime_type = std::string(images::mime_of(type));
        image.bytes = encoded->bytes;
        scene.images.push_back(std::move(image));
        for (Material& m : scene.materials)
            for (TextureMap& map : m.maps)
                if (map.uri == t.name) map.uri = name, map.image = int32_t(scene.images.size() - 1);
        if (!rules.types.empty()) files.push_back({name, std::move(encoded->bytes)});
    }
    return files;
}

Expected<std::vector<GltfImage>> find_textures(const Scene& scene, const std::string& model_path, const std::vector<std::string>& texture_paths,
                                               bool allow_outside, Warnings& warnings) {
    ImageOptions options;
    options.mode = ImageOptions::Mode::Embed;
    options.any_type = true;
    options.search_dir = std::filesystem::path(model_path).parent_path().string();
    options.model_path = model_path;
    options.texture_paths = texture_paths;
    options.allow_outside = allow_outside;
    return resolve_images(scene, model_path, options, warnings);
}

}  // namespace rigport::detail

namespace rigport {

Expected<std::vector<GltfImage>> find_target_textures(const Scene& scene, const std::string& model_path,
                                                      const std::vector<std::string>& texture_paths, bool allow_outside, Warnings& warnings) {
    return detail::find_textures(scene, model_path, texture_paths, allow_outside, warnings);
}

}  // namespace rigport

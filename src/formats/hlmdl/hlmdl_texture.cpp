// Half-Life studio model textures and skins (docs/hlmdl.md "Textures"): 8-bit indexed pixels with
// a 256-colour palette after them, decoded to RGBA and kept as PNG in Scene::images; from the model
// or, when it holds none, from NAMEt.mdl beside it.
#include <fmt/format.h>

#include <algorithm>

#include "formats/common/embedded_images.hpp"
#include "formats/hlmdl/hlmdl_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::hlmdl::detail {

namespace {

constexpr int32_t max_texture_side = 8192;

// The textures and skin table of one IDST file (the model, or its texture file).
Expected<TextureSet> parse(Reader& r, std::span<const uint8_t> b) {
    TextureSet set;
    const int32_t count = i32_at(b, at_numtextures), index = i32_at(b, at_numtextures + 4);
    if (auto st = check_table(b, r.options, "textures", at_numtextures, count, index, texture_size); !st) return st.error();
    std::vector<uint8_t> rgba;
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t at = uint64_t(index) + uint64_t(i) * texture_size;
        const std::string name = name_at(b, at, 64);
        const uint32_t flags = u32_at(b, at + 64);
        const int32_t width = i32_at(b, at + 68), height = i32_at(b, at + 72), pixels = i32_at(b, at + 76);
        if (width <= 0 || height <= 0 || width > max_texture_side || height > max_texture_side)
            return malformed(at + 68, fmt::format("texture '{}': {} x {} pixels (1 to {} per side)", name, width, height, max_texture_side));
        const uint64_t area = uint64_t(width) * uint64_t(height);
        if (pixels < 0 || !io::range_fits(uint64_t(pixels), 1, area + palette_size, b.size()))
            return malformed(at + 76, fmt::format("texture '{}': {} x {} pixels and a palette at {} run past the end of the file ({} bytes)", name,
                                                  width, height, pixels, b.size()));
        const uint8_t* index_bytes = b.data() + pixels;
        const uint8_t* palette = index_bytes + area;
        const bool masked = (flags & nf_masked) != 0;
        rgba.resize(area * 4);
        for (uint64_t p = 0; p < area; ++p) {
            const uint8_t k = index_bytes[p];
            std::copy_n(palette + 3 * k, 3, rgba.data() + 4 * p);
            rgba[4 * p + 3] = masked && k == 255 ? 0 : 255;
        }
        std::vector<uint8_t> png = rigport::detail::encode_png(rgba.data(), uint32_t(width), uint32_t(height));
        if (png.empty()) return make_error(ErrorCode::Malformed, fmt::format("texture '{}': PNG encoding failed", name), at);
        if (flags & nf_chrome)
            r.warn(WarningCode::Interpreted, fmt::format("texture '{}' is chrome: the game maps it from the normals as the model turns; the stored "
                                                         "texture coordinates are kept", name));
        if (masked) r.warn(WarningCode::Interpreted, fmt::format("texture '{}' is masked: palette index 255 made transparent", name));
        if (flags & nf_additive) r.warn(WarningCode::Ignored, fmt::format("texture '{}': additive drawing (the game adds it to what is behind)", name));

        r.scene.images.push_back(EmbeddedImage{name, "image/png", std::move(png)});
        Material m;
        m.name = name.empty() ? fmt::format("texture{}", i) : name;
        m.maps.push_back(TextureMap{TextureType::Diffuse, {}, {}, int32_t(r.scene.images.size() - 1)});
        r.scene.materials.push_back(std::move(m));
        set.sizes.push_back({uint32_t(width), uint32_t(height)});
        set.flags.push_back(flags);
    }
    const int32_t numskinref = i32_at(b, at_numskinref), families = i32_at(b, at_numskinfamilies), skinindex = i32_at(b, at_skinindex);
    if (numskinref < 0) return malformed(at_numskinref, fmt::format("{} skin references", numskinref));
    if (families < 0) return malformed(at_numskinfamilies, fmt::format("{} skin families", families));
    if (families > 0 && numskinref > 0) {
        if (auto st = check_table(b, r.options, "skin references", at_numskinref, numskinref, skinindex, 2); !st) return st.error();
        if (skinindex < 0 || !io::range_fits(uint64_t(skinindex), uint64_t(families) * uint64_t(numskinref), 2, b.size()))
            return malformed(at_skinindex, fmt::format("{} skin families of {} references at {} run past the end of the file ({} bytes)", families,
                                                       numskinref, skinindex, b.size()));
        for (int32_t k = 0; k < numskinref; ++k) set.skin.push_back(i16_at(b, uint64_t(skinindex) + 2 * uint64_t(k)));
        if (families > 1) r.warn(WarningCode::Ignored, fmt::format("skin families after the first ({} in all): the first is read", families));
    }
    return set;
}

}  // namespace

Expected<TextureSet> read_textures(Reader& r) {
    const int32_t count = i32_at(r.bytes, at_numtextures);
    if (count != 0) {
        auto set = parse(r, r.bytes);
        if (set) ::rigport::detail::name_embedded_images(r.scene);
        return set;
    }
    // No textures in the model: NAMEt.mdl beside it (docs/hlmdl.md "Texture files").
    std::vector<std::string> names;
    for (auto& stem : r.stems) names.push_back(stem + "T.mdl"), names.push_back(stem + "t.mdl");
    std::string why;
    auto file = r.side_file(names, why);
    if (!file) {
        if (i32_at(r.bytes, at_numbodyparts) > 0)
            r.warn(WarningCode::TextureNotFound, fmt::format("the model holds no textures and its texture file was not read ({}): meshes without "
                                                             "materials or texture coordinates", why));
        return TextureSet{};
    }
    const std::span<const uint8_t> t = file->second;
    if (t.size() < header_size || u32_at(t, 0) != magic_idst || u32_at(t, 4) != studio_version) {
        r.warn(WarningCode::TextureNotFound, fmt::format("texture file '{}' is not an IDST version 10 file: meshes without materials", file->first));
        return TextureSet{};
    }
    const size_t images = r.scene.images.size(), materials = r.scene.materials.size();
    auto set = parse(r, t);
    if (!set) {
        r.scene.images.resize(images);
        r.scene.materials.resize(materials);
        r.warn(WarningCode::TextureNotFound, fmt::format("texture file '{}' not read (offset {}: {}): meshes without materials", file->first,
                                                         set.error().offset.value_or(0), set.error().message));
        return TextureSet{};
    }
    ::rigport::detail::name_embedded_images(r.scene);
    return set;
}

}  // namespace rigport::hlmdl::detail

// Image files as engines load them for a model's textures (docs/targets.md "Textures"): the type
// of a file by its first bytes, whether it holds 8-bit palette indices, and TGA, BMP and PNG files
// written from RGBA pixels. The type names here are the ones engine profiles list.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/common/embedded_images.hpp"
#include "rigport/error.hpp"

namespace rigport::images {

// The type of an image file by its first bytes: "png", "jpeg", "bmp", "gif", "pcx", "dds", "webp",
// "ktx2", "psd", or "tga" (which has no magic: a header whose image type and depth are a TGA's and
// that stb reads); empty when none tells.
std::string_view type_of(std::span<const uint8_t> bytes);

// The extension of a type's files with its dot (".tga", ".jpg"); empty for an unknown type.
std::string_view extension_of(std::string_view type);

// True when the file holds 8-bit palette indices with its own palette (a BMP of 8 bits per pixel,
// uncompressed; a PCX of one 8-bit plane; a PNG of colour type 3 and depth 8; a colour-mapped TGA
// of 8 bits per pixel).
bool holds_palette(std::span<const uint8_t> bytes);

// The MIME type of a type's files ("image/png"); empty when it has no registered one (TGA).
std::string_view mime_of(std::string_view type);

// The type rigport keeps an image in when the engine names none (a skin the model holds inside
// it, decoded again by its writer): PNG, lossless.
std::string_view lossless_type();

// True when encode() writes that type: TGA, BMP and PNG.
bool can_write(std::string_view type);

struct Encoded {
    std::vector<uint8_t> bytes;
    uint32_t colours = 0;        // palette entries used (palette images), else 0
    bool dropped_alpha = false;  // a translucent pixel was written opaque (an 8-bit BMP has no alpha)
};

// The image as a file of that type. TGA: uncompressed, rows bottom first, 24 bits per pixel, or 32
// when a pixel is translucent. BMP: 8 bits per pixel with its own palette of the image's colours
// quantised to 256 (quantize_colours) when palette, else 24 bits. PNG: RGBA. Unsupported for any
// other type.
Expected<Encoded> encode(std::string_view type, const detail::RgbaImage& image, bool palette);

// The image resampled to width x height (stb_image_resize, sRGB-aware, alpha as its own channel);
// rgba empty when stb cannot allocate its buffers.
detail::RgbaImage resize(const detail::RgbaImage& image, uint32_t width, uint32_t height);

// A palette of at most 256 colours for the pixels (median cut over the distinct colours, each
// weighted by its count; the image's own colours when it has 256 or fewer) and each pixel's index
// into it, the nearest entry. Deterministic.
struct Paletted {
    std::vector<std::array<uint8_t, 3>> palette;
    std::vector<uint8_t> indices;  // one per pixel, rows top first
};
Paletted quantize_colours(const detail::RgbaImage& image);

}  // namespace rigport::images

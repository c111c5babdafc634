// Image file types by their magic bytes and the TGA, BMP and PNG writers convert --target uses
// (docs/targets.md "Textures"). TGA as Truevision's TGA 2.0 specification lays out an uncompressed
// true-colour image (type 2); BMP as Windows' BITMAPFILEHEADER + BITMAPINFOHEADER, which is all
// studiomdl's reader takes (8 bits per pixel, BI_RGB, a 256-entry palette).
#include "formats/images/image_files.hpp"

#include <fmt/format.h>
#include <stb_image.h>

#include <algorithm>
#include <cstring>

namespace rigport::images {

namespace {

uint32_t u16(std::span<const uint8_t> b, size_t at) { return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8; }
uint32_t u32(std::span<const uint8_t> b, size_t at) { return u16(b, at) | u16(b, at + 2) << 16; }

bool starts(std::span<const uint8_t> b, std::string_view magic, size_t at = 0) {
    return b.size() >= at + magic.size() && std::memcmp(b.data() + at, magic.data(), magic.size()) == 0;
}

// A TGA header (Truevision TGA 2.0, "Header"): colour map type 0 or 1, image type 1-3 or 9-11,
// a depth of 8, 15, 16, 24 or 32, and stb able to read it.
bool is_tga(std::span<const uint8_t> b) {
    if (b.size() < 18 || b[1] > 1) return false;
    const uint8_t type = b[2];
    if (!((type >= 1 && type <= 3) || (type >= 9 && type <= 11))) return false;
    const uint8_t depth = b[16];
    if (depth != 8 && depth != 15 && depth != 16 && depth != 24 && depth != 32) return false;
    if (b.size() > uint64_t(INT32_MAX)) return false;
    int w = 0, h = 0, channels = 0;
    return stbi_info_from_memory(b.data(), int(b.size()), &w, &h, &channels) != 0;
}

void put16(std::vector<uint8_t>& out, uint32_t v) {
    out.push_back(uint8_t(v));
    out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
    put16(out, v & 0xFFFF);
    put16(out, v >> 16);
}

Encoded write_tga(const detail::RgbaImage& image) {
    bool alpha = false;
    for (size_t p = 3; p < image.rgba.size() && !alpha; p += 4) alpha = image.rgba[p] != 255;
    Encoded out;
    auto& b = out.bytes;
    b.reserve(18 + size_t(image.width) * image.height * (alpha ? 4 : 3));
    b.push_back(0);  // no image ID
    b.push_back(0);  // no colour map
    b.push_back(2);  // uncompressed true colour
    b.insert(b.end(), 5, 0);  // colour map specification
    put16(b, 0), put16(b, 0);  // origin
    put16(b, image.width), put16(b, image.height);
    b.push_back(alpha ? 32 : 24);
    b.push_back(alpha ? 8 : 0);  // alpha bits; origin bottom left (bit 5 clear), which every loader reads
    for (uint32_t y = image.height; y-- > 0;)
        for (uint32_t x = 0; x < image.width; ++x) {
            const uint8_t* p = image.rgba.data() + (size_t(y) * image.width + x) * 4;
            b.push_back(p[2]), b.push_back(p[1]), b.push_back(p[0]);
            if (alpha) b.push_back(p[3]);
        }
    return out;
}

Encoded write_bmp8(const detail::RgbaImage& image) {
    const Paletted q = quantize_colours(image);
    Encoded out;
    out.colours = uint32_t(q.palette.size());
    for (size_t p = 3; p < image.rgba.size() && !out.dropped_alpha; p += 4) out.dropped_alpha = image.rgba[p] != 255;
    const uint32_t row = (image.width + 3) / 4 * 4;
    const uint32_t offset = 14 + 40 + 256 * 4;
    const uint32_t size = offset + row * image.height;
    auto& b = out.bytes;
    b.reserve(size);
    b.push_back('B'), b.push_back('M');
    put32(b, size);  // studiomdl reads the pixels as bfSize less the headers and palette
    put32(b, 0);
    put32(b, offset);
    put32(b, 40);  // BITMAPINFOHEADER
    put32(b, image.width);
    put32(b, image.height);  // positive: rows bottom first
    put16(b, 1);             // planes
    put16(b, 8);             // bits per pixel
    put32(b, 0);             // BI_RGB
    put32(b, row * image.height);
    put32(b, 2835), put32(b, 2835);  // 72 dpi
    put32(b, 256), put32(b, 0);      // every entry of the table written
    for (size_t i = 0; i < 256; ++i) {
        const std::array<uint8_t, 3> c = i < q.palette.size() ? q.palette[i] : std::array<uint8_t, 3>{0, 0, 0};
        b.push_back(c[2]), b.push_back(c[1]), b.push_back(c[0]), b.push_back(0);
    }
    for (uint32_t y = image.height; y-- > 0;) {
        const uint8_t* src = q.indices.data() + size_t(y) * image.width;
        b.insert(b.end(), src, src + image.width);
        b.insert(b.end(), row - image.width, 0);
    }
    return out;
}

Encoded write_bmp24(const detail::RgbaImage& image) {
    Encoded out;
    for (size_t p = 3; p < image.rgba.size() && !out.dropped_alpha; p += 4) out.dropped_alpha = image.rgba[p] != 255;
    const uint32_t row = (image.width * 3 + 3) / 4 * 4;
    const uint32_t size = 54 + row * image.height;
    auto& b = out.bytes;
    b.push_back('B'), b.push_back('M');
    put32(b, size), put32(b, 0), put32(b, 54);
    put32(b, 40), put32(b, image.width), put32(b, image.height);
    put16(b, 1), put16(b, 24);
    put32(b, 0), put32(b, row * image.height), put32(b, 2835), put32(b, 2835), put32(b, 0), put32(b, 0);
    for (uint32_t y = image.height; y-- > 0;) {
        for (uint32_t x = 0; x < image.width; ++x) {
            const uint8_t* p = image.rgba.data() + (size_t(y) * image.width + x) * 4;
            b.push_back(p[2]), b.push_back(p[1]), b.push_back(p[0]);
        }
        b.insert(b.end(), row - image.width * 3, 0);
    }
    return out;
}

}  // namespace

std::string_view type_of(std::span<const uint8_t> b) {
    if (starts(b, std::string_view("\x89PNG\r\n\x1a\n", 8))) return "png";
    if (starts(b, "\xff\xd8\xff")) return "jpeg";
    if (starts(b, "BM") && b.size() >= 26) return "bmp";
    if (starts(b, "GIF8")) return "gif";
    if (starts(b, "DDS ")) return "dds";
    if (starts(b, "RIFF") && starts(b, "WEBP", 8)) return "webp";
    if (starts(b, std::string_view("\xabKTX 20\xbb\r\n\x1a\n", 12))) return "ktx2";
    if (starts(b, "8BPS")) return "psd";
    // PCX: manufacturer 10, a known version, encoding 1 (RLE) (ZSoft's PCX technical reference).
    if (b.size() >= 128 && b[0] == 10 && b[1] <= 5 && b[2] == 1) return "pcx";
    if (is_tga(b)) return "tga";
    return {};
}

std::string_view extension_of(std::string_view type) {
    static constexpr std::pair<std::string_view, std::string_view> known[] = {
        {"png", ".png"}, {"jpeg", ".jpg"}, {"bmp", ".bmp"}, {"gif", ".gif"}, {"pcx", ".pcx"}, {"dds", ".dds"},
        {"webp", ".webp"}, {"ktx2", ".ktx2"}, {"psd", ".psd"}, {"tga", ".tga"}, {"wal", ".wal"}};
    for (auto& [t, e] : known)
        if (t == type) return e;
    return {};
}

bool holds_palette(std::span<const uint8_t> b) {
    const std::string_view type = type_of(b);
    if (type == "bmp") return b.size() >= 34 && u16(b, 28) == 8 && u32(b, 30) == 0;  // biBitCount, biCompression
    if (type == "pcx") return b[3] == 8 && b[65] == 1;                                // bits per pixel, planes
    if (type == "png") return b.size() >= 26 && b[24] == 8 && b[25] == 3;            // IHDR depth, colour type
    if (type == "tga") return b[1] == 1 && (b[2] == 1 || b[2] == 9) && b[16] == 8;
    return false;
}

std::string_view mime_of(std::string_view type) {
    if (type == "png") return "image/png";
    if (type == "jpeg") return "image/jpeg";
    if (type == "bmp") return "image/bmp";
    if (type == "gif") return "image/gif";
    if (type == "webp") return "image/webp";
    if (type == "ktx2") return "image/ktx2";
    return {};
}

std::string_view lossless_type() { return "png"; }

bool can_write(std::string_view type) { return type == "tga" || type == "bmp" || type == "png"; }

Expected<Encoded> encode(std::string_view type, const detail::RgbaImage& image, bool palette) {
    if (image.width == 0 || image.height == 0 || image.rgba.size() != size_t(image.width) * image.height * 4)
        return make_error(ErrorCode::InvalidArgument, "an empty image");
    if (image.width > 65535 || image.height > 65535)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} x {} pixels: TGA and rigport's BMP hold at most 65535 a side", image.width, image.height));
    if (type == "tga" && !palette) return write_tga(image);
    if (type == "bmp") return palette ? write_bmp8(image) : write_bmp24(image);
    if (type == "png" && !palette) {
        Encoded out;
        out.bytes = detail::encode_png(image.rgba.data(), image.width, image.height);
        if (out.bytes.empty()) return make_error(ErrorCode::WriteFailed, "PNG encoding failed");
        return out;
    }
    return make_error(ErrorCode::Unsupported, fmt::format("rigport does not write {}{} images", palette ? "palette " : "", type));
}

}  // namespace rigport::images

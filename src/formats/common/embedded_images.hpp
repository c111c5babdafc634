// Images a scene holds (Scene::images): their type, the file names they get beside an output, and
// those files. glTF 2.0 §3.8.4 allows only PNG and JPEG in core; the rest name files.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::detail {

// The image's MIME type: from its magic bytes (PNG, JPEG, WebP, KTX2, GIF, BMP) when they tell,
// since a declared type can lie; else as declared, lower-cased; empty when neither tells.
std::string image_mime(const EmbeddedImage& image);
// PNG or JPEG: the only images a glTF may hold as they are.
bool is_core_image(const std::string& mime);

// Gives every map that holds an image (TextureMap::image) its file name in uri: the image's name,
// else the first such map's material name, else "image", made safe (letters, digits, '-', '_'
// and single dots only: no separators, no "..", no control bytes, no leading dot) with the
// extension of its type, and unique in the scene (case-insensitively, with every other map's
// uri) by a "_2", "_3" ... suffix. Maps of one image share its name. Deterministic.
void name_embedded_images(Scene& scene);

// The material's first diffuse map when the scene holds its image, else null.
const TextureMap* held_diffuse_map(const Material& material);
// The bytes of a map's image: the one the scene holds, else the one the caller found on disk
// for its uri (SaveOptions::images, with bytes); null when neither.
const std::vector<uint8_t>* texture_image(const Scene& scene, const SaveOptions& options, const TextureMap& map);
// The material's first diffuse map when texture_image has its bytes, else null.
const TextureMap* diffuse_map_with_image(const Scene& scene, const SaveOptions& options, const Material& material);
// What IQM and IQE write as a material (a name that is also its texture file): the file of
// held_diffuse_map when there is one, else the material's name.
const std::string& material_text(const Material& material);

// One file per image held by the materials marked in `written` (one flag per material), named
// by its maps' uri: the side files of an output that names them. diffuse_only: only the images
// of held_diffuse_map (formats that name one texture per material: IQM, IQE, JOE).
std::vector<OutputFile> embedded_image_files(const Scene& scene, const std::vector<bool>& written, bool diffuse_only);

// RGBA pixels (4 bytes each, rows top first) as a PNG file; empty when stb cannot encode them.
std::vector<uint8_t> encode_png(const uint8_t* rgba, uint32_t width, uint32_t height);

// Width and height of an image file: what stb reads (PNG, JPEG, TGA, BMP ...), and PCX (Quake
// 2's skins) and DDS by their headers; {0, 0} when none tells.
std::array<uint32_t, 2> image_dimensions(const std::vector<uint8_t>& bytes);

// An image's pixels as RGBA, decoded by stb (PNG, JPEG, TGA, BMP ...).
struct RgbaImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
};
// The image decoded, or the reason it cannot be (stb's words, or a side beyond max_side).
Expected<RgbaImage> decode_rgba(const std::vector<uint8_t>& bytes, uint32_t max_side);

}  // namespace rigport::detail

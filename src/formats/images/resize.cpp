// Resampling an image to another size with stb_image_resize (its default filters: Catmull-Rom
// up, Mitchell down), in sRGB with alpha as its own channel (docs/targets.md "Textures").
#include <stb_image_resize.h>

#include "formats/images/image_files.hpp"

namespace rigport::images {

detail::RgbaImage resize(const detail::RgbaImage& image, uint32_t width, uint32_t height) {
    detail::RgbaImage out;
    out.width = width, out.height = height;
    out.rgba.resize(size_t(width) * height * 4);
    if (width == image.width && height == image.height) {
        out.rgba = image.rgba;
        return out;
    }
    if (!stbir_resize_uint8_srgb(image.rgba.data(), int(image.width), int(image.height), 0, out.rgba.data(), int(width), int(height), 0, 4, 3, 0))
        out.rgba.clear();  // stb could not allocate its buffers: the caller sees an empty image
    return out;
}

}  // namespace rigport::images

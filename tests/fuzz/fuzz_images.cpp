// libFuzzer target for texture conversion (src/io/images.cpp; docs/fuzzing.md): the input is
// written as the texture file of a one-material scene and resolve_images decodes it with stb and
// converts it to PNG (--convert-images). A converted image must decode again with the source's
// width and height; the images are then embedded in a GLB, which must read back.
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include <stb_image.h>

#include "fuzz_common.hpp"
#include "rigport/images.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fuzz::Scratch scratch("images");
    scratch.clear();
    scratch.write(scratch.dir() / "tex.tga", std::span<const uint8_t>(data, size));

    rigport::Scene scene;
    rigport::Material material;
    material.name = "m";
    material.maps.push_back(rigport::TextureMap{rigport::TextureType::Diffuse, "tex.tga", {}});
    scene.materials.push_back(material);

    rigport::ImageOptions options;
    options.mode = rigport::ImageOptions::Mode::Embed;
    options.convert = true;
    options.search_dir = scratch.dir().string();
    options.max_dimension = 512;  // keeps each run fast; the limit logic itself is tested elsewhere
    rigport::Warnings warnings;
    const std::string output = (scratch.dir() / "out.glb").string();
    auto images = rigport::resolve_images(scene, output, options, warnings);
    if (!images) {
        fuzz::check_error(images.error(), "resolve_images");
        return 0;
    }
    if (images->size() != 1) fuzz::fail("resolve_images: not one image for one texture");
    const rigport::GltfImage& image = images->front();
    if (image.bytes.empty()) {
        // Bytes stb does not take for an image are left out with a warning (docs/cli.md "Inputs").
        if (!warnings.has(rigport::WarningCode::TextureNotFound)) fuzz::fail("resolve_images: an embedded image without bytes or warning");
        return 0;
    }
    if (image.mime_type != "image/png" && image.mime_type != "image/jpeg") fuzz::fail("resolve_images: mime type " + image.mime_type);
    const bool passed_through = image.bytes.size() == size && std::memcmp(image.bytes.data(), data, size) == 0;
    if (!passed_through) {
        if (image.mime_type != "image/png") fuzz::fail("a converted image is not PNG");
        int w = 0, h = 0, c = 0, w2 = 0, h2 = 0, c2 = 0;
        if (!stbi_info_from_memory(data, int(size), &w, &h, &c)) fuzz::fail("converted an image stb cannot read");
        std::unique_ptr<stbi_uc, void (*)(void*)> png(
            stbi_load_from_memory(image.bytes.data(), int(image.bytes.size()), &w2, &h2, &c2, 0), stbi_image_free);
        if (!png) fuzz::fail("the converted PNG does not decode");
        if (w2 != w || h2 != h) fuzz::fail("the converted PNG has another size");
    }
    rigport::SaveOptions save;
    save.gltf.images = *images;
    fuzz::write_and_read_back(scene, "glb", output, save);
    return 0;
}

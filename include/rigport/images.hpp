// Finding the texture files a scene's materials name and preparing them for a glTF output
// (formats/gltf.md §5.2): referenced, embedded, or converted to PNG. Touches the filesystem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport {

struct ImageOptions {
    // Auto: embedded in a .glb, referenced from a .gltf. None: materials without images.
    enum class Mode : uint8_t { Auto, Reference, Embed, None };
    Mode mode = Mode::Auto;
    // Decode images glTF cannot hold (TGA, BMP, PSD, GIF, HDR, PNM) and embed them as PNG.
    // Without it such an image is referenced as it is, with a warning.
    bool convert = false;
    // The folder relative texture paths are resolved against: the source model's folder.
    std::string search_dir;
    uint64_t max_file_bytes = 256ull << 20;  // refuse larger image files
    uint32_t max_dimension = 16384;          // refuse to decode larger images
};

// One GltfImage per distinct texture URI of the scene's materials, to put in
// SaveOptions::gltf.images for a glTF written to output_path. A texture that is not found gets
// an entry without image (a reference to a missing file is invalid glTF) and a TextureNotFound
// warning; a texture that cannot be converted is an error naming the file.
Expected<std::vector<GltfImage>> resolve_images(const Scene& scene, const std::string& output_path,
                                                const ImageOptions& options, Warnings& warnings);

}  // namespace rigport

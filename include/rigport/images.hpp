// Finding the texture files a scene's materials name and preparing them for a glTF output
// (docs/gltf.md §5.2): referenced, embedded, or converted to PNG. Touches the filesystem.
#pragma once

#include <cstdint>
#include <functional>
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
    // Embed any image stb can read as it is, not only PNG and JPEG (an FBX Video holds any file).
    bool any_type = false;
    // The folder relative texture paths are resolved against: the source model's folder.
    std::string search_dir;
    // Game root folders (the CLI's --texture-path, in order): a texture not found beside the model
    // is looked for under each, by the name as written (a path from the game's root, such as
    // "models/x/skin") and then by its base name, each with and without the extensions a game
    // tries. They join the folders textures may be read from (see root). The whole order is in
    // docs/cli.md "Textures".
    std::vector<std::string> texture_paths;
    // The model whose materials name the textures: the file its warnings name (Warning::path).
    std::string model_path;
    // Confinement, as LoadOptions: a texture is read only from root and below (empty = search_dir),
    // or from a texture path and below, after resolving '..' and symlinks. A texture leading outside is left out with a warning
    // naming it (the material's URI and where it resolves to) unless allow_outside (the CLI's
    // --allow-outside).
    std::string root;
    bool allow_outside = false;
    // Told the path of every texture file read.
    std::function<void(const std::string& path)> on_read = nullptr;
    uint64_t max_file_bytes = 256ull << 20;  // refuse larger image files
    uint32_t max_dimension = 16384;          // refuse to decode larger images
};

// One GltfImage per distinct texture URI of the scene's materials, to put in
// SaveOptions::gltf.images for a glTF written to output_path. A texture is looked for in the order
// of docs/cli.md "Textures": as written beside the model (search_dir), with the extensions a game
// tries (.png .tga .jpg .jpeg .dds .webp .bmp .pcx), by base name, then under each texture path.
// A texture that is not found gets an entry without image (a reference to a missing file is
// invalid glTF) and one TextureNotFound warning naming where it looked, as do a file that is no image at all (its path is never written into the output), a
// texture that lies outside the root (never read, whether or not it exists) and a web address;
// a texture too large to convert, or that cannot be read, is an error naming it.
// Maps whose image the scene holds (Scene::images) are not looked for on disk: the writers write
// those images themselves (GltfOptions::embedded_images; beside other formats' outputs).
Expected<std::vector<GltfImage>> resolve_images(const Scene& scene, const std::string& output_path,
                                                const ImageOptions& options, Warnings& warnings);

// The files on disk the scene's texture maps name, looked for from search_dir and texture_paths
// as resolve_images looks for them (every place of its order where a file is; web addresses and
// data: URIs name none). They are inputs of a conversion whether or not the output reads them: no
// output may replace one.
std::vector<std::string> texture_files(const Scene& scene, const std::string& search_dir,
                                       const std::vector<std::string>& texture_paths = {});

// Removes every map whose image the scene holds, and the images, with a DroppedData warning per
// map saying why (the CLI's --images none, or an output that carries one file only).
void drop_embedded_images(Scene& scene, const std::string& why, Warnings& warnings);

}  // namespace rigport

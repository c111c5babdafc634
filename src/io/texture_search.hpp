// Where a material's texture is looked for: the one rule of docs/cli.md "Textures", as game engines
// and model viewers find a texture (engine paths without extension, another machine's absolute
// paths, a game's root folder), under the confinement of io/confine.hpp.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "rigport/images.hpp"

namespace rigport::detail {

// The extensions tried for a name without one, or in place of its own when that file is absent, in
// the order they are tried (docs/cli.md "Textures").
inline constexpr const char* texture_extensions[] = {".png", ".tga", ".jpg", ".jpeg", ".dds", ".webp", ".bmp", ".pcx"};

// An extension that says "an image" (texture_extensions and the other formats stb or engines
// read), in any letter case.
bool is_image_extension(const std::string& extension);

struct TextureSearch {
    std::string model_dir;                   // the folder of the model that names the texture ("" = ".")
    std::vector<std::string> texture_paths;  // game root folders, in the order given (ImageOptions::texture_paths)
    std::string root;                        // the model's confinement root; empty = model_dir
    bool allow_outside = false;
};

// The search ImageOptions describe (its model folder, texture paths, root and allow_outside), as
// convert's images and render's textures both use it.
TextureSearch texture_search(const ImageOptions& options);

struct TextureLookup {
    std::string file;     // the file found, as joined (not resolved); empty when none was
    std::string looked;   // where it looked, for a warning: "skin.png in m and game, each as written and as .tga ..."
    std::string refused;  // the first place that was not looked at because it lies outside, and why; empty when none
};

// Finds textures for one model: the folders it resolves (for confinement) are kept for the next
// texture, so many textures in one folder resolve it once.
class TextureFinder {
public:
    explicit TextureFinder(TextureSearch search);

    // The file a texture name names (as a material holds it: a relative or absolute path with '/'
    // or '\', a file: URI, an engine path without extension), tried in order:
    //   1. the name relative to model_dir (an absolute path as it is; another machine's "D:/..." not);
    //   2. the same with texture_extensions, appended to a name without an image extension, in place
    //      of the extension of one that has it;
    //   3. its base name, and with those extensions, in model_dir;
    //   4. in each texture path: the name (a path from the game's root), then its base name, each
    //      also with those extensions.
    // A place outside the root and the texture paths (after resolving '..' and symbolic links, as
    // confine() does) is not looked at, whether or not a file is there, unless allow_outside.
    TextureLookup find(const std::string& name);

    // Every place of that order, confined or not: the files no output may replace.
    std::vector<std::string> places(const std::string& name) const;

private:
    TextureSearch search_;
    std::vector<std::string> roots_;                       // the root, then each texture path
    std::unordered_map<std::string, bool> folder_inside_;  // folder as joined -> inside a root
};

}  // namespace rigport::detail

// Pictures of a model, drawn on the CPU (docs/render.md): a shaded, textured image of a pose,
// framed from what it shows, with optional wireframe and skeleton overlays. Deterministic: the
// same scene and options give the same pixels (no GPU, no threads, no clock).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/images.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// An RGBA image, 8 bits per channel, rows top to bottom.
struct RenderImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
};

struct RenderOptions {
    uint32_t width = 512, height = 512;
    // The camera looks at the model from yaw degrees about the up axis (0: from its front, the +Z
    // side of a Y-up model; 90: from its +X side) and pitch degrees above the horizon (90: from
    // the top). view_angles() has the named views. The projection is orthographic.
    float yaw = 35.0f, pitch = 20.0f;
    std::array<uint8_t, 4> background{44, 48, 56, 255};
    bool wireframe = false;  // triangle edges over the shading
    bool skeleton = false;   // bones and joints drawn over everything
    // The pose: -1 = the bind pose; else scene.animations[animation] at `time` seconds (clamped
    // to the animation's keys), morph weights included.
    int32_t animation = -1;
    float time = 0.0f;
    // Samples per pixel along each axis, averaged (2: 4 samples a pixel, smooth edges).
    uint32_t supersample = 2;
    // Per material (the scene's order): its diffuse texture, decoded; a null or empty entry or a
    // short list means none (load_render_textures gives these). Shared: materials naming one file
    // and the cells of a sheet hold one copy.
    std::vector<std::shared_ptr<const RenderImage>> textures;
    // Framed as if this box (min x, min y, max x, max y in the camera's right/up axes) were what
    // is drawn, instead of view_bounds(): pictures of several poses framed alike (a sheet).
    std::optional<std::array<double, 4>> frame;
    // Work bound: the samples all triangles' bounding boxes cover, summed. A file of a million
    // triangles each as large as the picture is a LimitExceeded error, not an hour of drawing.
    // A real model covers its picture a few times over: 1e7 samples at 1024 x 1024.
    uint64_t max_sample_tests = 1ull << 32;
    // Texture budget: the decoded RGBA bytes (width x height x 4 per image) load_render_textures
    // may hold in all, 256 MiB (an 8192 x 8192 texture, or sixteen of 2048 x 2048). An image's
    // size is read from its header before it is decoded; one that would go past the budget is
    // not decoded, and its materials are drawn in their colours with a warning.
    uint64_t max_texture_bytes = 256ull << 20;
};

// Limits render() checks: each side 1..16384 pixels, at most 2^26 pixels (8192 x 8192) in all,
// supersample 1..4; a large image takes fewer samples a pixel so that it holds at most 2^26.
constexpr uint32_t max_render_side = 16384;
constexpr uint64_t max_render_samples = 1ull << 26;

// The scene drawn as options say: Y-up (a Z- or X-up scene turned as convert_to_y_up does),
// meshes lit by a light over the camera's left shoulder and shaded on both sides (a preview, so
// an inward normal never shows a black hole), colour = material diffuse x texture x vertex colour.
// InvalidArgument for sizes beyond the limits or an animation index that does not exist.
// A model without triangles draws its skeleton (as options.skeleton would); one with neither
// triangles nor joints is Unsupported: there is nothing to draw, and a blank picture would say
// otherwise (draws_skeleton_only tells the caller beforehand).
Expected<RenderImage> render(const Scene& scene, const RenderOptions& options);
// Whether render() draws only the skeleton because the model has no triangle to draw.
bool draws_skeleton_only(const Scene& scene);

// The box render() frames for these options: what it draws (posed vertices; joints too with
// skeleton) in the camera's right/up axes, as min x, min y, max x, max y.
Expected<std::array<double, 4>> view_bounds(const Scene& scene, const RenderOptions& options);

// A contact sheet: for each animation (or only `only`), a row of `frames` pictures at evenly
// spaced times from its start to its end (frames 1: its start), every cell `cell` big and framed
// alike (the union of all cells' view_bounds, so motion shows), a title strip above each row with
// the animation's name, length and frame rate, and each cell's time at its foot. A scene without
// animations gives one cell of the bind pose. InvalidArgument when the sheet would exceed the
// render limits.
//
// Each cell is posed once: its posed meshes are kept from framing to drawing. The work, and that
// memory, are bounded by max_work, summed over the cells: a cell costs the scene's joints, its
// vertices (each once more per morph target of its mesh) and its triangles (docs/render.md).
// Rows are drawn in order while they fit; the animations of the rows that do not are named in
// one DroppedData warning. When not even the first row fits: LimitExceeded.
struct SheetOptions {
    RenderOptions cell;       // size, view, background, overlays, textures of each cell
    uint32_t frames = 6;      // 1..64 per row
    int32_t only = -1;        // one animation's row (its index), -1 = every animation
    // 2^22: the poses kept take 48 bytes a vertex, so 200 MB at most; 100 rows of 6 cells of a
    // model of 2,300 vertices and 4,600 triangles, 5 rows of one of 46,000 and 92,000.
    uint64_t max_work = 1ull << 22;
};
// What a sheet took: the rows and cells drawn (each cell posed once) and their work.
struct SheetStats {
    uint32_t rows = 0, cells = 0;
    uint64_t work = 0;
};
Expected<RenderImage> render_sheet(const Scene& scene, const SheetOptions& options, Warnings* warnings = nullptr,
                                   SheetStats* stats = nullptr);

// The diffuse texture of each material, found as the glTF export finds them (images.hpp:
// resolve_images with options.search_dir, root and confinement) or taken from the scene's own
// images, decoded to RGBA (any image stb reads: PNG, JPEG, TGA, BMP, PSD, GIF, HDR, PNM). Each
// file is read and decoded once however many materials name it and however they spell it
// (`b.png`, `./b.png`, `sub/../b.png`: the path resolved as confinement resolves it), each
// embedded image once. A texture that is missing, no image or cannot be decoded is a warning and
// left out; so is one whose decoded RGBA would take the total past max_texture_bytes (the size
// its header declares is checked first, so such an image is never decoded), and so is a texture
// leading outside the model's folder (confinement: never read). Errors: a file that cannot be read.
struct TextureStats {
    uint32_t decoded = 0;         // images decoded
    uint64_t decoded_bytes = 0;   // their RGBA bytes, at most max_texture_bytes
    uint32_t over_budget = 0;     // images not decoded because of the budget
};
Expected<std::vector<std::shared_ptr<const RenderImage>>> load_render_textures(const Scene& scene, const ImageOptions& options,
                                                                              uint64_t max_texture_bytes, Warnings& warnings,
                                                                              TextureStats* stats = nullptr);

// PNG bytes of the image (stb_image_write).
std::vector<uint8_t> encode_png(const RenderImage& image);

// yaw and pitch of a named view: "front" (0, 0), "side" (90, 0), "top" (0, 90), "iso" (45,
// 35.26: the isometric angle), "three-quarter" (the default 35, 20). False for another name.
bool view_angles(std::string_view name, float& yaw, float& pitch);

}  // namespace rigport

// Pictures of a model, drawn on the CPU (docs/render.md): a shaded, textured image of a pose,
// framed from what it shows, with optional wireframe and skeleton overlays. Deterministic: the
// same scene and options give the same pixels (no GPU, no threads, no clock).
#pragma once

#include <array>
#include <cstdint>
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
    // Per material (the scene's order): its diffuse texture, decoded; an empty entry or a short
    // list means none (load_render_textures gives these).
    std::vector<RenderImage> textures;
};

// Limits render() checks: each side 1..16384 pixels, supersample 1..4.
constexpr uint32_t max_render_side = 16384;

// The scene drawn as options say: Y-up (a Z- or X-up scene turned as convert_to_y_up does),
// meshes lit by a light over the camera's left shoulder and shaded on both sides (a preview, so
// an inward normal never shows a black hole), colour = material diffuse x texture x vertex colour.
// InvalidArgument for sizes beyond the limits or an animation index that does not exist.
Expected<RenderImage> render(const Scene& scene, const RenderOptions& options);

// The diffuse texture of each material, found as the glTF export finds them (images.hpp:
// resolve_images with options.search_dir, root and confinement) or taken from the scene's own
// images, decoded to RGBA. A texture that is missing or no image is a warning and left out.
Expected<std::vector<RenderImage>> load_render_textures(const Scene& scene, const ImageOptions& options, Warnings& warnings);

// PNG bytes of the image (stb_image_write).
std::vector<uint8_t> encode_png(const RenderImage& image);

// yaw and pitch of a named view: "front" (0, 0), "side" (90, 0), "top" (0, 90), "iso" (45,
// 35.26: the isometric angle), "three-quarter" (the default 35, 20). False for another name.
bool view_angles(std::string_view name, float& yaw, float& pitch);

}  // namespace rigport

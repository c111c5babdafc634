// The two halves of render() (render.hpp), apart so that a sheet poses each cell once: prepare()
// poses the scene and measures what it draws; draw() frames and rasterizes a prepared pose.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "rigport/anim.hpp"
#include "rigport/render.hpp"

namespace rigport::render_detail {

// A mesh in the pose: positions and normals after morphs and skinning.
struct PosedMesh {
    std::vector<std::array<double, 3>> positions, normals;
};

// Everything a picture needs before drawing: the scene turned Y-up, posed, and the bounds of
// what is drawn in the camera's plane.
struct Prepared {
    std::unique_ptr<Scene> turned;  // a Z- or X-up scene, turned on a copy
    const Scene* scene = nullptr;
    std::vector<Mat4> world;        // joints in the pose
    std::vector<PosedMesh> posed;
    std::array<double, 4> bounds{};  // min x, min y, max x, max y in the camera's right/up axes
};

// InvalidArgument for sizes beyond the limits, an animation that does not exist, a yaw, pitch or
// time that is not finite.
Status check_options(const Scene& input, const RenderOptions& options);
// Unsupported when the model has neither a triangle nor a joint: a picture would be blank.
Status check_drawable(const Scene& scene);

// The scene in options' pose (options.animation at options.time), seen from options' camera.
// Options must have passed check_options.
Prepared prepare(const Scene& input, const RenderOptions& options);

// The picture of a prepared pose, framed by options.frame or else its bounds. LimitExceeded past
// options.max_sample_tests.
Expected<RenderImage> draw(const Prepared& prepared, const RenderOptions& options);

}  // namespace rigport::render_detail

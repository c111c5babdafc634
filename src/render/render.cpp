// render(): the scene posed, skinned, seen from the camera, framed and drawn (render.hpp).
#include "rigport/render.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

#include <fmt/format.h>
#include <stb_image_write.h>

#include "render/picture.hpp"
#include "render/raster.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport {

using raster::Rgba;
using raster::SampleGrid;
using raster::ScreenPoint;
using render_detail::PosedMesh;
using render_detail::Prepared;

namespace {

using D3 = std::array<double, 3>;

D3 sub(const D3& a, const D3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 cross(const D3& a, const D3& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
D3 normalized(const D3& v) {
    const double l = std::sqrt(dot(v, v));
    return l > 0 && std::isfinite(l) ? D3{v[0] / l, v[1] / l, v[2] / l} : D3{0, 0, 0};
}

// The camera: an orthonormal basis from yaw and pitch; `toward` points from the model to the eye.
struct Camera {
    D3 right, up, toward, light;
    explicit Camera(float yaw_degrees, float pitch_degrees) {
        const double yaw = yaw_degrees * std::numbers::pi / 180, pitch = pitch_degrees * std::numbers::pi / 180;
        toward = {std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch)};
        right = {std::cos(yaw), 0, -std::sin(yaw)};  // level whatever the pitch, so a top view has one too
        up = cross(toward, right);
        // Over the viewer's left shoulder: lit fronts, shaded sides.
        light = normalized({-0.45 * right[0] + 0.6 * up[0] + 0.65 * toward[0], -0.45 * right[1] + 0.6 * up[1] + 0.65 * toward[1],
                            -0.45 * right[2] + 0.6 * up[2] + 0.65 * toward[2]});
    }
    D3 view(const D3& p) const { return {dot(p, right), dot(p, up), dot(p, toward)}; }
};

PosedMesh pose_mesh(const Mesh& mesh, uint32_t mesh_index, const Scene& scene, const RenderOptions& options,
                    const std::vector<Mat4>& skinning) {
    PosedMesh out;
    if (options.animation >= 0 && !mesh.morph_targets.empty()) {
        const auto weights = sample_morph_weights(mesh, mesh_index, scene.animations[size_t(options.animation)], options.time);
        out.positions = morph_positions(mesh, weights);
    } else {
        out.positions.reserve(mesh.positions.size());
        for (auto& p : mesh.positions) out.positions.push_back({p[0], p[1], p[2]});
    }
    out.normals.resize(mesh.normals.size());
    for (size_t v = 0; v < mesh.normals.size(); ++v) out.normals[v] = {mesh.normals[v][0], mesh.normals[v][1], mesh.normals[v][2]};
    if (mesh.skin.empty() || skinning.empty()) return out;
    // The blended matrix per vertex (weights normalized), applied to the position and, without
    // its translation, to the normal (renormalized when shaded).
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
        double total = 0;
        for (const Influence* i = mesh.skin.begin(v); i != mesh.skin.begin(v) + mesh.skin.count(v); ++i)
            if (i->joint < skinning.size()) total += i->weight;
        if (!(total > 0)) continue;
        Mat4 m{};
        for (const Influence* i = mesh.skin.begin(v); i != mesh.skin.begin(v) + mesh.skin.count(v); ++i) {
            if (i->joint >= skinning.size()) continue;
            const double w = i->weight / total;
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 4; ++r) m[c][r] += skinning[i->joint][c][r] * w;
        }
        out.positions[v] = transform_point(m, out.positions[v]);
        if (v < out.normals.size()) {
            const D3 n = out.normals[v];
            out.normals[v] = {m[0][0] * n[0] + m[1][0] * n[1] + m[2][0] * n[2], m[0][1] * n[0] + m[1][1] * n[1] + m[2][1] * n[2],
                              m[0][2] * n[0] + m[1][2] * n[1] + m[2][2] * n[2]};
        }
    }
    return out;
}

Rgba to_rgba(const std::array<double, 4>& c) {
    Rgba out;
    for (int k = 0; k < 4; ++k) out[k] = uint8_t(std::lround(std::clamp(c[k], 0.0, 1.0) * 255.0));
    return out;
}

// Bilinear, wrapping (glTF's default sampler); texture coordinates with v down the image.
std::array<double, 4> sample(const RenderImage& t, double u, double v) {
    const double x = (u - std::floor(u)) * t.width - 0.5, y = (v - std::floor(v)) * t.height - 0.5;
    const double fx = std::floor(x), fy = std::floor(y);
    const double ax = x - fx, ay = y - fy;
    auto texel = [&](int64_t tx, int64_t ty, int k) {
        tx = ((tx % t.width) + t.width) % t.width;
        ty = ((ty % t.height) + t.height) % t.height;
        return t.rgba[(size_t(ty) * t.width + size_t(tx)) * 4 + size_t(k)] / 255.0;
    };
    std::array<double, 4> out{};
    const int64_t ix = int64_t(fx), iy = int64_t(fy);
    for (int k = 0; k < 4; ++k)
        out[k] = (texel(ix, iy, k) * (1 - ax) + texel(ix + 1, iy, k) * ax) * (1 - ay) +
                 (texel(ix, iy + 1, k) * (1 - ax) + texel(ix + 1, iy + 1, k) * ax) * ay;
    return out;
}

// Largest supersample factor (up to the one asked for) that keeps the sample grid within bounds.
uint32_t samples_for(const RenderOptions& options) {
    uint32_t ss = options.supersample;
    while (ss > 1 && uint64_t(options.width) * options.height * ss * ss > max_render_samples) --ss;
    return ss;
}

}  // namespace

Status render_detail::check_options(const Scene& input, const RenderOptions& options) {
    if (options.width == 0 || options.height == 0 || options.width > max_render_side || options.height > max_render_side ||
        uint64_t(options.width) * options.height > max_render_samples)
        return make_error(ErrorCode::InvalidArgument, fmt::format("image size {}x{}: each side must be 1 to {} pixels, {} pixels in all at most",
                                                                  options.width, options.height, max_render_side, max_render_samples));
    if (options.supersample == 0 || options.supersample > 4)
        return make_error(ErrorCode::InvalidArgument, fmt::format("supersample {}: must be 1 to 4", options.supersample));
    if (options.animation >= int32_t(input.animations.size()))
        return make_error(ErrorCode::InvalidArgument, fmt::format("animation {} does not exist (the model has {})", options.animation,
                                                                  input.animations.size()));
    if (!std::isfinite(options.yaw) || !std::isfinite(options.pitch) || !std::isfinite(options.time))
        return make_error(ErrorCode::InvalidArgument, "yaw, pitch and time must be finite numbers");
    return Ok{};
}

Status render_detail::check_drawable(const Scene& scene) {
    if (draws_skeleton_only(scene) && scene.skeleton.joints.empty())
        return make_error(ErrorCode::Unsupported, "nothing to draw: the model has no triangles and no skeleton");
    return Ok{};
}

bool draws_skeleton_only(const Scene& scene) {
    return std::none_of(scene.meshes.begin(), scene.meshes.end(), [](const Mesh& m) { return !m.triangles.empty(); });
}

Prepared render_detail::prepare(const Scene& input, const RenderOptions& options) {
    const Camera camera(options.yaw, options.pitch);
    Prepared p;
    // Every format drawn Y-up: a Z- or X-up scene is turned on a copy.
    if (input.meta.up == UpAxis::Z || input.meta.up == UpAxis::X) {
        p.turned = std::make_unique<Scene>(input);
        convert_to_y_up(*p.turned);
    }
    p.scene = p.turned ? p.turned.get() : &input;
    const Scene& scene = *p.scene;

    std::vector<Transform> local = bind_pose(scene.skeleton);
    if (options.animation >= 0) local = sample_pose(scene.skeleton, scene.animations[size_t(options.animation)], options.time);
    const std::vector<Mat4> skinning = scene.skeleton.joints.empty() ? std::vector<Mat4>{} : skinning_matrices(scene.skeleton, local);
    if (!scene.skeleton.joints.empty()) p.world = world_matrices(scene.skeleton, local);
    p.posed.reserve(scene.meshes.size());
    for (size_t m = 0; m < scene.meshes.size(); ++m) p.posed.push_back(pose_mesh(scene.meshes[m], uint32_t(m), scene, options, skinning));

    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    auto extend = [&](const D3& q) {
        const D3 v = camera.view(q);
        if (!std::isfinite(v[0]) || !std::isfinite(v[1])) return;
        for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
    };
    for (auto& pm : p.posed)
        for (auto& q : pm.positions) extend(q);
    if (options.skeleton || draws_skeleton_only(scene) || lo[0] > hi[0])
        for (auto& w : p.world) extend({w[3][0], w[3][1], w[3][2]});
    if (lo[0] > hi[0]) lo[0] = lo[1] = -1, hi[0] = hi[1] = 1;  // nothing to frame: an empty picture
    p.bounds = {lo[0], lo[1], hi[0], hi[1]};
    return p;
}

Expected<std::array<double, 4>> view_bounds(const Scene& scene, const RenderOptions& options) {
    if (auto st = render_detail::check_options(scene, options); !st) return st.error();
    return render_detail::prepare(scene, options).bounds;
}

Expected<RenderImage> render(const Scene& input, const RenderOptions& options) {
    if (auto st = render_detail::check_options(input, options); !st) return st.error();
    if (auto st = render_detail::check_drawable(input); !st) return st.error();
    return render_detail::draw(render_detail::prepare(input, options), options);
}

Expected<RenderImage> render_detail::draw(const Prepared& prepared, const RenderOptions& options) {
    const Camera camera(options.yaw, options.pitch);
    const Scene& scene = *prepared.scene;
    const std::vector<Mat4>& world = prepared.world;
    const std::vector<PosedMesh>& posed = prepared.posed;

    // Framing: the bounds (or options.frame) fill the image less a margin, centred.
    const std::array<double, 4> box = options.frame ? *options.frame : prepared.bounds;
    const double lo[2] = {box[0], box[1]}, hi[2] = {box[2], box[3]};
    const uint32_t ss = samples_for(options);
    const double gw = double(options.width) * ss, gh = double(options.height) * ss;
    const double margin = 0.06;
    const double span_x = std::max(hi[0] - lo[0], 1e-9), span_y = std::max(hi[1] - lo[1], 1e-9);
    const double scale = std::min(gw * (1 - 2 * margin) / span_x, gh * (1 - 2 * margin) / span_y);
    const double cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
    auto project = [&](const D3& p) {
        const D3 v = camera.view(p);
        return ScreenPoint{float(gw / 2 + (v[0] - cx) * scale), float(gh / 2 - (v[1] - cy) * scale), float(v[2])};
    };

    SampleGrid grid(options.width * ss, options.height * ss, options.background);
    uint64_t tested = 0;  // samples tested by every triangle so far: the work, bounded
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const PosedMesh& pm = posed[m];
        std::vector<ScreenPoint> screen(pm.positions.size());
        for (size_t v = 0; v < screen.size(); ++v) screen[v] = project(pm.positions[v]);
        const Material* material = mesh.material >= 0 && size_t(mesh.material) < scene.materials.size() ? &scene.materials[size_t(mesh.material)] : nullptr;
        const RenderImage* texture = mesh.material >= 0 && size_t(mesh.material) < options.textures.size() ? options.textures[size_t(mesh.material)].get() : nullptr;
        if (texture && (texture->width == 0 || texture->height == 0 || texture->rgba.size() != size_t(texture->width) * texture->height * 4))
            texture = nullptr;  // none, or not the pixels its size says
        const std::vector<Vec2>* uv = mesh.texcoords.empty() ? nullptr : &mesh.texcoords[0];
        const std::vector<Vec4>* colours = mesh.colors.empty() ? nullptr : &mesh.colors[0];
        const std::array<double, 4> diffuse = material ? std::array<double, 4>{material->diffuse[0], material->diffuse[1], material->diffuse[2], 1.0}
                                                       : std::array<double, 4>{0.72, 0.72, 0.72, 1.0};
        for (const Triangle& t : mesh.triangles) {
            if (t[0] >= screen.size() || t[1] >= screen.size() || t[2] >= screen.size()) continue;
            const D3 face = normalized(cross(sub(pm.positions[t[1]], pm.positions[t[0]]), sub(pm.positions[t[2]], pm.positions[t[0]])));
            tested += grid.triangle(screen[t[0]], screen[t[1]], screen[t[2]], [&](float l0, float l1, float l2) {
                const float l[3] = {l0, l1, l2};
                D3 n = face;
                if (!pm.normals.empty()) {
                    D3 s{0, 0, 0};
                    for (int k = 0; k < 3; ++k)
                        for (int c = 0; c < 3; ++c) s[c] += pm.normals[t[k]][c] * l[k];
                    if (dot(s, s) > 0) n = normalized(s);
                }
                if (dot(n, camera.toward) < 0) n = {-n[0], -n[1], -n[2]};  // both sides lit alike
                const double light = 0.28 + 0.72 * std::max(0.0, dot(n, camera.light));
                std::array<double, 4> c = diffuse;
                if (texture && uv) {
                    double u = 0, v = 0;
                    for (int k = 0; k < 3; ++k) u += (*uv)[t[k]][0] * double(l[k]), v += (*uv)[t[k]][1] * double(l[k]);
                    const auto tc = sample(*texture, u, v);
                    for (int k = 0; k < 3; ++k) c[k] *= tc[k];
                }
                if (colours)
                    for (int k = 0; k < 3; ++k)
                        c[k] *= (*colours)[t[0]][k] * l[0] + (*colours)[t[1]][k] * l[1] + (*colours)[t[2]][k] * l[2];
                return to_rgba({c[0] * light, c[1] * light, c[2] * light, 1.0});
            });
            if (tested > options.max_sample_tests)
                return make_error(ErrorCode::LimitExceeded,
                                  fmt::format("mesh '{}': drawing its triangles tests more than {} samples (large triangles over one "
                                              "another); a smaller --size",
                                              mesh.name, options.max_sample_tests));
        }
        if (options.wireframe) {
            // Edges on the surface: a bias of a thousandth of the depth span keeps them in front of
            // their own triangles and behind nearer ones.
            const float bias = float(std::max(hi[0] - lo[0], hi[1] - lo[1]) * 2e-3);
            for (const Triangle& t : mesh.triangles) {
                if (t[0] >= screen.size() || t[1] >= screen.size() || t[2] >= screen.size()) continue;
                for (int k = 0; k < 3; ++k) grid.line(screen[t[k]], screen[t[(k + 1) % 3]], Rgba{20, 22, 26, 255}, ss, bias);
            }
        }
    }
    if ((options.skeleton || draws_skeleton_only(scene)) && !world.empty()) {
        // Bones and joints sized to the picture: visible in a thumbnail, not blobs in a poster.
        const uint32_t side = std::min(options.width, options.height);
        const uint32_t bone = std::clamp<uint32_t>(side / 256, 1, 4) * ss, joint = std::clamp<uint32_t>(side / 100, 2, 8) * ss;
        for (size_t j = 0; j < world.size(); ++j) {
            const int32_t parent = scene.skeleton.joints[j].parent;
            if (parent < 0) continue;
            const auto& a = world[size_t(parent)];
            const auto& b = world[j];
            grid.line(project({a[3][0], a[3][1], a[3][2]}), project({b[3][0], b[3][1], b[3][2]}), Rgba{255, 170, 30, 255}, bone, -1);
        }
        for (auto& w : world) grid.dot(project({w[3][0], w[3][1], w[3][2]}), Rgba{255, 235, 120, 255}, joint);
    }
    RenderImage image;
    image.width = options.width;
    image.height = options.height;
    image.rgba = grid.resolve(ss);
    return image;
}

std::vector<uint8_t> encode_png(const RenderImage& image) {
    std::vector<uint8_t> png;
    auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
    };
    stbi_write_png_to_func(append, &png, int(image.width), int(image.height), 4, image.rgba.data(), int(image.width * 4));
    return png;
}

bool view_angles(std::string_view name, float& yaw, float& pitch) {
    if (name == "front") yaw = 0, pitch = 0;
    else if (name == "side") yaw = 90, pitch = 0;
    else if (name == "top") yaw = 0, pitch = 90;
    else if (name == "iso") yaw = 45, pitch = 35.264389f;
    else if (name == "three-quarter") yaw = 35, pitch = 20;
    else return false;
    return true;
}

}  // namespace rigport

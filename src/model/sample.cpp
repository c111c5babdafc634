// The built-in sample scene: a tapered, capped, skinned cylinder with two animations, made by code.
#include "rigport/sample.hpp"

#include <stb_image_write.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "model/quatd.hpp"

namespace rigport {

namespace {

// Shape: a cylinder along +Z whose radius shrinks linearly from bottom to top.
constexpr double height = 4.0;
constexpr double radius_bottom = 0.5, radius_top = 0.3;
constexpr uint32_t rings = 13;     // rows of side vertices from z = 0 to z = height
constexpr uint32_t segments = 16;  // around the axis
constexpr uint32_t joint_count = 4;
constexpr double joint_spacing = height / joint_count;

using D3 = std::array<double, 3>;

D3 cross(const D3& a, const D3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 normalized(const D3& v) {
    double l = std::sqrt(dot(v, v));
    return {v[0] / l, v[1] / l, v[2] / l};
}
Vec3 to_vec3(const D3& v) { return {float(v[0]), float(v[1]), float(v[2])}; }

double radius_at(double z) { return radius_bottom + (radius_top - radius_bottom) * (z / height); }

// Two influences per vertex: the two joints whose segment centres are nearest in a Gaussian
// falloff, normalized so the pair sums to exactly 1.0f (the larger weight is >= 0.5, so
// 1.0f - w0 is exact and (1.0f - w0) + w0 == 1.0f).
void add_influences(Mesh& mesh, double z) {
    std::array<std::pair<double, uint32_t>, joint_count> w{};
    for (uint32_t j = 0; j < joint_count; ++j) {
        double d = (z - (j + 0.5) * joint_spacing) / (0.6 * joint_spacing);
        w[j] = {std::exp(-d * d), j};
    }
    // Descending weight, then ascending joint, so the order is deterministic on ties.
    std::sort(w.begin(), w.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    float w0 = static_cast<float>(w[0].first / (w[0].first + w[1].first));
    mesh.skin.influences.push_back({w[0].second, w0});
    mesh.skin.influences.push_back({w[1].second, 1.0f - w0});
    mesh.skin.offsets.push_back(static_cast<uint32_t>(mesh.skin.influences.size()));
}

// Tangent = the direction of increasing u; the handedness w makes cross(n, t) * w point along
// increasing v (IQM: bitangent = cross(normal, tangent.xyz) * w).
void add_vertex(Mesh& mesh, const D3& p, const D3& n, const D3& dpdu, const D3& dpdv, Vec2 uv) {
    D3 nn = normalized(n);
    D3 t = dpdu;
    double along = dot(t, nn);  // keep t perpendicular to n
    t = normalized(D3{t[0] - nn[0] * along, t[1] - nn[1] * along, t[2] - nn[2] * along});
    float w = dot(cross(nn, t), dpdv) < 0 ? -1.0f : 1.0f;
    mesh.positions.push_back(to_vec3(p));
    mesh.normals.push_back(to_vec3(nn));
    mesh.tangents.push_back({float(t[0]), float(t[1]), float(t[2]), w});
    mesh.texcoords[0].push_back(uv);
    double h = p[2] / height;
    double angle = std::atan2(p[1], p[0]);
    mesh.colors[0].push_back({float(0.2 + 0.8 * h), float(0.5 + 0.5 * std::cos(angle)), float(1.0 - 0.8 * h), 1.0f});
    add_influences(mesh, p[2]);
}

Mesh make_mesh() {
    Mesh mesh;
    mesh.name = "sample";
    mesh.material = 0;
    mesh.texcoords.resize(1);
    mesh.colors.resize(1);
    mesh.skin.offsets.push_back(0);
    const double two_pi = 2.0 * std::numbers::pi;
    const double slope = (radius_top - radius_bottom) / height;  // dr/dz

    // Side: rings x (segments + 1) vertices; the seam column is duplicated for the texcoords.
    for (uint32_t r = 0; r < rings; ++r) {
        double z = height * r / (rings - 1);
        double rad = radius_at(z);
        for (uint32_t s = 0; s <= segments; ++s) {
            // The seam column repeats column 0 exactly (sin(2 pi) is not 0 in floating point), so
            // adjacency and welding see one surface.
            double theta = two_pi * (s % segments) / segments;
            double c = std::cos(theta), sn = std::sin(theta);
            D3 p{rad * c, rad * sn, z};
            D3 n{c, sn, -slope};  // outward normal of a cone with radius r(z)
            // u runs around the axis, v from the top (0) down to the bottom (1): top-left origin.
            D3 dpdu{-sn, c, 0};
            D3 dpdv{-slope * height * c, -slope * height * sn, -height};
            add_vertex(mesh, p, n, dpdu, dpdv, {float(s) / segments, 1.0f - float(r) / (rings - 1)});
        }
    }
    // Clockwise relative to the outward normal (IQM front faces): for the quad a b / c d with
    // a = (r, s), b = (r, s+1), c = (r+1, s), d = (r+1, s+1), (a, b, c) would be counter-clockwise.
    const uint32_t row = segments + 1;
    for (uint32_t r = 0; r + 1 < rings; ++r) {
        for (uint32_t s = 0; s < segments; ++s) {
            uint32_t a = r * row + s, b = a + 1, c = a + row, d = c + 1;
            mesh.triangles.push_back({a, c, b});
            mesh.triangles.push_back({b, c, d});
        }
    }

    // Caps: flat, with their own vertices (hard edge), planar texcoords.
    for (int cap = 0; cap < 2; ++cap) {
        const bool top = cap == 1;
        const double z = top ? height : 0.0;
        const double rad = radius_at(z);
        const D3 n{0, 0, top ? 1.0 : -1.0};
        const uint32_t centre = mesh.vertex_count();
        add_vertex(mesh, {0, 0, z}, n, {1, 0, 0}, {0, -1, 0}, {0.5f, 0.5f});
        for (uint32_t s = 0; s < segments; ++s) {
            double theta = two_pi * s / segments;
            double c = std::cos(theta), sn = std::sin(theta);
            add_vertex(mesh, {rad * c, rad * sn, z}, n, {1, 0, 0}, {0, -1, 0},
                       {float(0.5 + 0.5 * c), float(0.5 - 0.5 * sn)});
        }
        for (uint32_t s = 0; s < segments; ++s) {
            uint32_t a = centre + 1 + s, b = centre + 1 + (s + 1) % segments;
            // Going from a to b turns counter-clockwise about +Z, so (centre, a, b) is clockwise
            // seen from below (bottom cap) and (centre, b, a) clockwise seen from above.
            if (top)
                mesh.triangles.push_back({centre, b, a});
            else
                mesh.triangles.push_back({centre, a, b});
        }
    }
    return mesh;
}

// The sample's rotations, composed in double (core/quatd.hpp) and stored as float.
Quat to_float(const quatd::D4& q) { return {float(q[0]), float(q[1]), float(q[2]), float(q[3])}; }

JointTrack make_track(uint32_t joint, Channel channel) {
    JointTrack t;
    t.joint = joint;
    t.channel = channel;
    return t;
}

// Key times are float(i) / rate computed in float, as a frame-based reader would produce them.
float key_time(uint32_t frame, float rate) { return static_cast<float>(frame) / rate; }

// The chain bends back and forth about X and sways about Y; the root bobs along Z. Frame 24
// repeats frame 0, so the loop is seamless.
Animation make_wave() {
    Animation a;
    a.name = "wave";
    a.frame_rate = 24.0f;
    a.loop = true;
    a.frame_count = 25;
    const double two_pi = 2.0 * std::numbers::pi;
    JointTrack bob = make_track(0, Channel::Translation);
    for (uint32_t f = 0; f < a.frame_count; ++f) {
        bob.times.push_back(key_time(f, a.frame_rate));
        double phase = two_pi * f / 24.0;
        for (float v : {0.0f, 0.0f, float(0.1 * std::sin(phase))}) bob.values.push_back(v);
    }
    a.tracks.push_back(std::move(bob));
    for (uint32_t j = 1; j < joint_count; ++j) {
        JointTrack rot = make_track(j, Channel::Rotation);
        for (uint32_t f = 0; f < a.frame_count; ++f) {
            rot.times.push_back(key_time(f, a.frame_rate));
            double phase = two_pi * f / 24.0 + 0.7 * j;
            Quat q = to_float(quatd::unit(quatd::mul(quatd::axis_angle({0, 1, 0}, 0.15 * std::cos(phase)), quatd::axis_angle({1, 0, 0}, 0.35 * std::sin(phase)))));
            rot.values.insert(rot.values.end(), q.begin(), q.end());
        }
        a.tracks.push_back(std::move(rot));
    }
    return a;
}

// The upper joint swells to 1.5 and back: uniform scale, played once.
Animation make_pulse() {
    Animation a;
    a.name = "pulse";
    a.frame_rate = 10.0f;
    a.loop = false;
    a.frame_count = 11;
    JointTrack scale = make_track(2, Channel::Scale);
    for (uint32_t f = 0; f < a.frame_count; ++f) {
        scale.times.push_back(key_time(f, a.frame_rate));
        float s = float(1.0 + 0.5 * std::sin(std::numbers::pi * f / 10.0));
        for (int k = 0; k < 3; ++k) scale.values.push_back(s);
    }
    a.tracks.push_back(std::move(scale));
    return a;
}

}  // namespace

Scene make_sample_scene() {
    Scene scene;
    scene.meshes.push_back(make_mesh());

    Material material;
    material.name = "sample_texture.png";  // IQM names a material by its texture
    material.maps.push_back(TextureMap{TextureType::Diffuse, "sample_texture.png", ""});
    scene.materials.push_back(std::move(material));

    const char* names[joint_count] = {"root", "lower", "upper", "tip"};
    for (uint32_t j = 0; j < joint_count; ++j) {
        Joint joint;
        joint.name = names[j];
        joint.parent = static_cast<int32_t>(j) - 1;
        joint.bind.translate = {0, 0, j == 0 ? 0.0f : float(joint_spacing)};
        scene.skeleton.joints.push_back(std::move(joint));
    }

    scene.animations.push_back(make_wave());
    scene.animations.push_back(make_pulse());

    Meta& meta = scene.meta;
    meta.source_format = "sample";
    meta.source_version = 1;
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    meta.unit_scale = 1.0f;
    meta.comment = "rigport built-in sample: a tapered cylinder bent by a chain of four joints";
    // What an IQM writer stores by default (docs/iqm.md §1.5 recommended formats).
    meta.attribute_formats = {
        {Attribute::Position, 0, ComponentType::Float32, 3}, {Attribute::Texcoord, 0, ComponentType::Float32, 2},
        {Attribute::Normal, 0, ComponentType::Float32, 3},   {Attribute::Tangent, 0, ComponentType::Float32, 4},
        {Attribute::BlendIndexes, 0, ComponentType::UInt8, 4}, {Attribute::BlendWeights, 0, ComponentType::UInt8, 4},
        {Attribute::Color, 0, ComponentType::UInt8, 4},
    };
    return scene;
}

}  // namespace rigport

namespace rigport {

std::vector<uint8_t> make_sample_texture() {
    constexpr int size = 64, cell = 8;
    std::vector<uint8_t> rgb(size * size * 3);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            const bool light = ((x / cell) + (y / cell)) % 2 == 0;
            uint8_t* p = &rgb[(y * size + x) * 3];
            p[0] = light ? 230 : 40, p[1] = light ? 200 : 90, p[2] = light ? 120 : 160;
        }
    std::vector<uint8_t> png;
    auto append = [](void* context, void* data, int n) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + n);
    };
    stbi_write_png_to_func(append, &png, size, size, 3, rgb.data(), size * 3);
    return png;
}

}  // namespace rigport

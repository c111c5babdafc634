// Exact Z-up / X-up <-> Y-up conversion of a scene (docs/gltf.md §1, choice A; process.hpp) and
// the front-face winding a writer needs (§2.1, §8.1).
#include <cmath>
#include <utility>

#include "model/quatd.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using Quatd = quatd::D4;  // x y z w

// A signed permutation of the axes and the quaternion of the same rotation.
struct AxisMap {
    int source[3];  // output axis k takes input axis source[k] ...
    float sign[3];  // ... times sign[k]
    Quatd q;

    void turn(float* v) const {
        const float in[3] = {v[0], v[1], v[2]};
        for (int k = 0; k < 3; ++k) v[k] = sign[k] * in[source[k]];
    }
    // q' = c (x) q in double, renormalized.
    void turn_quat(float* r) const {
        const Quatd o = quatd::mul(q, {r[0], r[1], r[2], r[3]});
        const double n = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
        if (!(n > 0)) return;
        for (int i = 0; i < 4; ++i) r[i] = float(o[i] / n);
    }
};

const double half_sqrt2 = std::sqrt(0.5);
// Z up: (x,y,z) -> (x,z,-y), -90 degrees about X.
const AxisMap z_up{{0, 2, 1}, {1, 1, -1}, {-half_sqrt2, 0, 0, half_sqrt2}};
// X up: (x,y,z) -> (-y,x,z), +90 degrees about Z.
const AxisMap x_up{{1, 0, 2}, {-1, 1, 1}, {0, 0, half_sqrt2, half_sqrt2}};
// Y up -> Z up, the inverse of z_up: (x,y,z) -> (x,-z,y), +90 degrees about X.
const AxisMap y_to_z_up{{0, 2, 1}, {1, -1, 1}, {half_sqrt2, 0, 0, half_sqrt2}};

void apply(Scene& scene, const AxisMap& map, UpAxis result) {
    for (auto& mesh : scene.meshes) {
        for (auto& p : mesh.positions) map.turn(p.data());
        for (auto& n : mesh.normals) map.turn(n.data());
        for (auto& t : mesh.tangents) map.turn(t.data());  // xyz; w (handedness) is unchanged
        for (auto& mt : mesh.morph_targets)
            for (auto* deltas : {&mt.position_deltas, &mt.normal_deltas, &mt.tangent_deltas})
                for (auto& d : *deltas) map.turn(d.data());
    }
    // Only root joints: children inherit the turn through their parents.
    auto& joints = scene.skeleton.joints;
    for (auto& j : joints)
        if (j.parent < 0) {
            map.turn(j.bind.translate.data());
            map.turn_quat(j.bind.rotate.data());
        }
    for (auto& anim : scene.animations)
        for (auto& t : anim.tracks) {
            if (t.joint >= joints.size() || joints[t.joint].parent >= 0 || t.channel == Channel::Scale) continue;
            const uint32_t c = t.components();
            for (size_t k = 0; k + c <= t.values.size(); k += c) {
                if (t.channel == Channel::Rotation) map.turn_quat(&t.values[k]);
                else map.turn(&t.values[k]);
            }
        }
    scene.meta.stored_bounds.clear();  // measured in the old axes (xy_radius has no Y-up meaning)
    scene.meta.up = result;
}

}  // namespace

Quat y_up_rotation(UpAxis up) {
    const AxisMap* map = up == UpAxis::Z ? &z_up : up == UpAxis::X ? &x_up : nullptr;
    if (!map) return Quat{0, 0, 0, 1};
    return Quat{float(map->q[0]), float(map->q[1]), float(map->q[2]), float(map->q[3])};
}

void convert_to_y_up(Scene& scene) {
    if (scene.meta.up == UpAxis::Z) apply(scene, z_up, UpAxis::Y);
    else if (scene.meta.up == UpAxis::X) apply(scene, x_up, UpAxis::Y);
}

void convert_to_z_up(Scene& scene) {
    if (scene.meta.up == UpAxis::X) apply(scene, x_up, UpAxis::Y);
    if (scene.meta.up == UpAxis::Y) apply(scene, y_to_z_up, UpAxis::Z);
}

void set_front_face(Scene& scene, Winding winding) {
    const Winding from = scene.meta.front_face;
    if (from == Winding::Unknown || winding == Winding::Unknown || from == winding) return;
    for (auto& mesh : scene.meshes)
        for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
    // Adjacency names edges by corner order, which just changed.
    scene.meta.has_stored_adjacency = false;
    scene.meta.stored_adjacency.clear();
    scene.meta.front_face = winding;
}

std::optional<Scene> iqm_conventions_copy(const Scene& scene) {
    const bool turn = scene.meta.up == UpAxis::Y || scene.meta.up == UpAxis::X;
    const bool rewind = scene.meta.front_face == Winding::CounterClockwise;
    if (!turn && !rewind) return std::nullopt;
    std::optional<Scene> copy = scene;
    convert_to_z_up(*copy);
    set_front_face(*copy, Winding::Clockwise);
    // The reference compiler writes rotations with w <= 0 (docs/gltf.md §8.6); q and -q are
    // one rotation, and sampling takes the shorter arc either way.
    auto canonical = [](float* q) {
        if (q[3] > 0)
            for (int i = 0; i < 4; ++i) q[i] = -q[i];
    };
    for (auto& j : copy->skeleton.joints) canonical(j.bind.rotate.data());
    for (auto& a : copy->animations)
        for (auto& t : a.tracks)
            if (t.channel == Channel::Rotation)
                for (size_t k = 0; k + 4 <= t.values.size(); k += 4) canonical(&t.values[k]);
    return copy;
}

std::optional<Scene> z_up_ccw_copy(const Scene& scene) {
    const bool turn = scene.meta.up == UpAxis::Y || scene.meta.up == UpAxis::X;
    const bool rewind = scene.meta.front_face == Winding::Clockwise;
    if (!turn && !rewind) return std::nullopt;
    std::optional<Scene> copy = scene;
    convert_to_z_up(*copy);
    set_front_face(*copy, Winding::CounterClockwise);
    return copy;
}

std::optional<Scene> y_up_ccw_copy(const Scene& scene) {
    const bool turn = scene.meta.up == UpAxis::Z || scene.meta.up == UpAxis::X;
    const bool rewind = scene.meta.front_face == Winding::Clockwise;
    if (!turn && !rewind) return std::nullopt;
    std::optional<Scene> copy = scene;
    convert_to_y_up(*copy);
    set_front_face(*copy, Winding::CounterClockwise);
    return copy;
}

}  // namespace rigport

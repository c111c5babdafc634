// The reference compiler's -s / -r / -t transforms on a scene (docs/iqm.md §3.1, §3.2 step 6).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "model/quatd.hpp"
#include "process/studiomdl_qc.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using Quatd = quatd::D4;  // x y z w

// R = Rz * Ry * Rx from Euler degrees: X is applied first.
Quatd euler_rotation(const Vec3& degrees) {
    Quatd q{0, 0, 0, 1};
    for (int axis = 2; axis >= 0; --axis) {
        double half = double(degrees[axis]) * std::numbers::pi / 360.0;
        Quatd r{0, 0, 0, std::cos(half)};
        r[axis] = std::sin(half);
        q = quatd::mul(q, r);
    }
    return q;
}

struct Rotation {
    Quatd q;
    double m[3][3];  // [row][col]

    explicit Rotation(const Quatd& r) : q(r) { quatd::to_matrix(q, m); }
    void turn(float* v) const {  // v' = R v
        double in[3] = {v[0], v[1], v[2]};
        for (int row = 0; row < 3; ++row) v[row] = float(m[row][0] * in[0] + m[row][1] * in[1] + m[row][2] * in[2]);
    }
    void turn_quat(float* q4) const {  // q' = R q
        Quatd r = quatd::mul(q, {q4[0], q4[1], q4[2], q4[3]});
        for (int i = 0; i < 4; ++i) q4[i] = float(r[i]);
    }
};

void scale_scene(Scene& scene, float s) {
    for (auto& mesh : scene.meshes) {
        for (auto& p : mesh.positions)
            for (auto& c : p) c *= s;
        for (auto& mt : mesh.morph_targets)
            for (auto& d : mt.position_deltas)
                for (auto& c : d) c *= s;
        for (auto& sp : mesh.springs) sp.idle_length *= s;  // a rest length is geometry too
    }
    for (auto& j : scene.skeleton.joints)
        for (auto& c : j.bind.translate) c *= s;
    for (auto& anim : scene.animations)
        for (auto& t : anim.tracks)
            if (t.channel == Channel::Translation)
                for (auto& v : t.values) v *= s;
    detail::scale_studiomdl_qc(scene, s);  // hit boxes and attachments kept for a .qc
}

void rotate_scene(Scene& scene, const Rotation& r) {
    for (auto& mesh : scene.meshes) {
        for (auto& p : mesh.positions) r.turn(p.data());
        for (auto& n : mesh.normals) r.turn(n.data());
        for (auto& t : mesh.tangents) r.turn(t.data());  // xyz; w (handedness) is unchanged
        for (auto& mt : mesh.morph_targets) {
            for (auto* deltas : {&mt.position_deltas, &mt.normal_deltas, &mt.tangent_deltas})
                for (auto& d : *deltas) r.turn(d.data());
        }
    }
    // Only root joints: children inherit the turn through their parents.
    auto& joints = scene.skeleton.joints;
    auto is_root = [&](uint32_t j) { return j < joints.size() && joints[j].parent < 0; };
    for (auto& j : joints)
        if (j.parent < 0) {
            r.turn(j.bind.translate.data());
            r.turn_quat(j.bind.rotate.data());
        }
    for (auto& anim : scene.animations)
        for (auto& t : anim.tracks) {
            if (!is_root(t.joint) || t.channel == Channel::Scale) continue;
            const uint32_t c = t.components();
            for (size_t k = 0; k + c <= t.values.size(); k += c) {
                if (t.channel == Channel::Rotation) r.turn_quat(&t.values[k]);
                else r.turn(&t.values[k]);
            }
        }
}

}  // namespace

void apply_transform(Scene& scene, const TransformOptions& options) {
    float s = options.scale == options.scale ? std::clamp(options.scale, 1e-8f, 1e8f) : 1.0f;  // NaN: none
    if (s != 1.0f) scale_scene(scene, s);
    const auto& deg = options.rotate_degrees;
    if (deg[0] != 0 || deg[1] != 0 || deg[2] != 0) rotate_scene(scene, Rotation(euler_rotation(deg)));
    const auto& mt = options.meshtrans;
    if (mt[0] != 0 || mt[1] != 0 || mt[2] != 0)
        for (auto& mesh : scene.meshes)
            for (auto& p : mesh.positions)
                for (int k = 0; k < 3; ++k) p[k] += mt[k];
}

}  // namespace rigport

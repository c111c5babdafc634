// Animation sampling, world / skinning matrices and CPU skinning (anim.hpp; docs/iqm.md §1.7, §7).
#include "rigport/anim.hpp"

#include <algorithm>
#include <cmath>

namespace rigport {

namespace {

using Vec3d = std::array<double, 3>;
using Quatd = std::array<double, 4>;

// Quaternion slerp on the shorter arc (one end negated when the ends point apart).
Quat slerp(const float* a, const float* b, double alpha) {
    Quatd qa{a[0], a[1], a[2], a[3]}, qb{b[0], b[1], b[2], b[3]};
    double d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    if (d < 0) {
        for (auto& c : qb) c = -c;
        d = -d;
    }
    double wa = 1.0 - alpha, wb = alpha;
    if (d < 0.9995) {  // otherwise the ends are so close that lerp + normalize is exact enough
        double theta = std::acos(std::min(d, 1.0));
        double s = std::sin(theta);
        wa = std::sin((1.0 - alpha) * theta) / s;
        wb = std::sin(alpha * theta) / s;
    }
    Quatd r;
    double norm = 0;
    for (int i = 0; i < 4; ++i) {
        r[i] = wa * qa[i] + wb * qb[i];
        norm += r[i] * r[i];
    }
    norm = std::sqrt(norm);
    if (!(norm > 0)) return Quat{a[0], a[1], a[2], a[3]};
    return Quat{float(r[0] / norm), float(r[1] / norm), float(r[2] / norm), float(r[3] / norm)};
}

// Samples one track into `out` (3 or 4 floats). A time equal to a key time gives that key's
// stored value bit for bit, so frames written from keys reproduce the keys exactly.
void sample_track(const JointTrack& track, float time, float* out) {
    const size_t n = track.times.size();
    const uint32_t c = track.components();
    auto key = [&](size_t k) { return track.values.data() + k * c; };
    auto copy = [&](size_t k) { std::copy_n(key(k), c, out); };
    if (!(time >= track.times[0])) return copy(0);  // before the first key (or NaN): hold it
    // The first key later than `time`; the one before it is the last key at or before `time`.
    size_t hi = size_t(std::upper_bound(track.times.begin(), track.times.end(), time) - track.times.begin());
    size_t lo = hi - 1;
    if (hi == n || track.times[lo] == time || track.interpolation == Interpolation::Step) return copy(lo);
    double alpha = (double(time) - track.times[lo]) / (double(track.times[hi]) - track.times[lo]);
    if (track.channel == Channel::Rotation) {
        Quat q = slerp(key(lo), key(hi), alpha);
        std::copy_n(q.data(), 4, out);
        return;
    }
    for (uint32_t i = 0; i < c; ++i) out[i] = float(key(lo)[i] + (double(key(hi)[i]) - key(lo)[i]) * alpha);
}

}  // namespace

Mat4 identity_matrix() {
    Mat4 m{};
    for (int i = 0; i < 4; ++i) m[i][i] = 1.0;
    return m;
}

Mat4 multiply(const Mat4& a, const Mat4& b) {
    Mat4 r{};
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[k][row] * b[col][k];
            r[col][row] = s;
        }
    return r;
}

// Inverse of [A | t]: [A^-1 | -A^-1 t], with A^-1 from cofactors (A may hold scale and shear).
// A singular A has no inverse; identity is returned so callers never see NaN.
Mat4 inverse_affine(const Mat4& m) {
    auto a = [&](int row, int col) { return m[col][row]; };
    double c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
    double c01 = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
    double c02 = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
    double det = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
    if (det == 0 || !std::isfinite(det)) return identity_matrix();
    double inv[3][3] = {  // [row][col]
        {c00, a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2), a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)},
        {c01, a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0), a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)},
        {c02, a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1), a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)},
    };
    Mat4 r = identity_matrix();
    for (int row = 0; row < 3; ++row) {
        for (int col = 0; col < 3; ++col) r[col][row] = inv[row][col] / det;
    }
    for (int row = 0; row < 3; ++row)
        r[3][row] = -(r[0][row] * m[3][0] + r[1][row] * m[3][1] + r[2][row] * m[3][2]);
    return r;
}

Mat4 transform_matrix(const Transform& t) {
    double x = t.rotate[0], y = t.rotate[1], z = t.rotate[2], w = t.rotate[3];
    double n = std::sqrt(x * x + y * y + z * z + w * w);
    if (n > 0) {
        x /= n, y /= n, z /= n, w /= n;
    } else {
        x = y = z = 0, w = 1;
    }
    const double r[3][3] = {  // [row][col]
        {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
        {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
        {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
    };
    Mat4 m = identity_matrix();
    for (int col = 0; col < 3; ++col) {
        for (int row = 0; row < 3; ++row) m[col][row] = r[row][col] * t.scale[col];
        m[3][col] = t.translate[col];
    }
    return m;
}

std::array<double, 3> transform_point(const Mat4& m, const std::array<double, 3>& p) {
    std::array<double, 3> r;
    for (int row = 0; row < 3; ++row) r[row] = m[0][row] * p[0] + m[1][row] * p[1] + m[2][row] * p[2] + m[3][row];
    return r;
}

std::vector<Transform> bind_pose(const Skeleton& skeleton) {
    std::vector<Transform> pose;
    pose.reserve(skeleton.joints.size());
    for (auto& j : skeleton.joints) pose.push_back(j.bind);
    return pose;
}

// Loop wraps time into [0, duration); Clamp leaves it (the tracks hold their end keys).
float wrap_time(const Animation& animation, float time, EndMode end) {
    if (end != EndMode::Loop) return time;
    const float duration = animation.duration();
    if (!(duration > 0)) return time;
    time = std::fmod(time, duration);  // exact in IEEE arithmetic
    if (time < 0) time += duration;
    if (!(time < duration)) time = 0;  // -tiny + duration can round up to duration
    return time;
}

std::vector<Transform> sample_pose(const Skeleton& skeleton, const Animation& animation, float time, EndMode end) {
    std::vector<Transform> pose = bind_pose(skeleton);
    time = wrap_time(animation, time, end);
    for (auto& track : animation.tracks) {
        if (track.joint >= pose.size() || track.times.empty() ||
            track.values.size() < track.times.size() * track.components())
            continue;
        Transform& t = pose[track.joint];
        float* out = track.channel == Channel::Translation ? t.translate.data()
                     : track.channel == Channel::Rotation  ? t.rotate.data()
                                                           : t.scale.data();
        sample_track(track, time, out);
    }
    return pose;
}

std::vector<Transform> blend_poses(const std::vector<Transform>& a, const std::vector<Transform>& b, float weight) {
    std::vector<Transform> out = a;
    const double w = weight;
    for (size_t j = 0; j < std::min(a.size(), b.size()); ++j) {
        for (int i = 0; i < 3; ++i) {
            out[j].translate[i] = float(a[j].translate[i] + (double(b[j].translate[i]) - a[j].translate[i]) * w);
            out[j].scale[i] = float(a[j].scale[i] + (double(b[j].scale[i]) - a[j].scale[i]) * w);
        }
        out[j].rotate = slerp(a[j].rotate.data(), b[j].rotate.data(), w);
    }
    return out;
}

std::vector<float> sample_morph_weights(const Mesh& mesh, uint32_t mesh_index, const Animation& animation, float time, EndMode end) {
    const size_t n = mesh.morph_targets.size();
    std::vector<float> weights(n);
    for (size_t t = 0; t < n; ++t) weights[t] = mesh.morph_targets[t].default_weight;
    time = wrap_time(animation, time, end);
    for (auto& track : animation.morph_tracks) {
        const size_t keys = track.times.size();
        if (track.mesh != mesh_index || keys == 0 || track.weights.size() != keys * n) continue;
        auto key = [&](size_t k) { return track.weights.data() + k * n; };
        // As sample_track: hold the first key before it, the last after it, a key's own value at it.
        size_t lo = 0, hi = 0;
        if (time >= track.times[0]) {
            hi = size_t(std::upper_bound(track.times.begin(), track.times.end(), time) - track.times.begin());
            lo = hi - 1;
        }
        if (!(time >= track.times[0]) || hi == keys || track.times[lo] == time || track.interpolation == Interpolation::Step) {
            std::copy_n(key(lo), n, weights.begin());
            continue;
        }
        const double alpha = (double(time) - track.times[lo]) / (double(track.times[hi]) - track.times[lo]);
        for (size_t t = 0; t < n; ++t) weights[t] = float(key(lo)[t] + (double(key(hi)[t]) - key(lo)[t]) * alpha);
    }
    return weights;
}

std::vector<std::array<double, 3>> morph_positions(const Mesh& mesh, const std::vector<float>& weights) {
    std::vector<std::array<double, 3>> out(mesh.positions.size());
    for (size_t v = 0; v < out.size(); ++v)
        for (int i = 0; i < 3; ++i) out[v][i] = mesh.positions[v][i];
    for (size_t t = 0; t < std::min(weights.size(), mesh.morph_targets.size()); ++t) {
        const auto& deltas = mesh.morph_targets[t].position_deltas;
        if (weights[t] == 0 || deltas.size() != out.size()) continue;
        for (size_t v = 0; v < out.size(); ++v)
            for (int i = 0; i < 3; ++i) out[v][i] += double(weights[t]) * deltas[v][i];
    }
    return out;
}

float sampling_rate(const Animation& animation) {
    if (animation.frame_rate > 0) return animation.frame_rate;
    if (animation.frame_count > 0) return default_frame_rate;
    auto on_frames = [&](float rate) {
        auto fits = [&](const std::vector<float>& times) {
            for (float t : times) {
                const double f = double(t) * rate;
                if (!(std::fabs(f - std::round(f)) <= 1e-3 + std::fabs(f) * 1e-6)) return false;
            }
            return true;
        };
        for (auto& t : animation.tracks)
            if (!fits(t.times)) return false;
        for (auto& t : animation.morph_tracks)
            if (!fits(t.times)) return false;
        return true;
    };
    if (on_frames(default_frame_rate)) return default_frame_rate;
    for (float rate : {24.0f, 25.0f, 48.0f, 50.0f, 60.0f, 120.0f})
        if (on_frames(rate)) return rate;
    return default_frame_rate;
}

std::vector<Transform> frame_pose(const Skeleton& skeleton, const Animation& animation, uint32_t frame, float rate) {
    // float(frame) / rate in float: readers of frame-based formats make key times the same way.
    return sample_pose(skeleton, animation, float(frame) / rate, EndMode::Clamp);
}

std::vector<Transform> frame_pose(const Skeleton& skeleton, const Animation& animation, uint32_t frame) {
    return frame_pose(skeleton, animation, frame, sampling_rate(animation));
}

std::vector<Mat4> world_matrices(const Skeleton& skeleton, const std::vector<Transform>& local) {
    const auto& joints = skeleton.joints;
    std::vector<Mat4> world(joints.size());
    for (size_t j = 0; j < joints.size(); ++j) {
        Mat4 m = transform_matrix(j < local.size() ? local[j] : joints[j].bind);
        int32_t p = joints[j].parent;
        world[j] = p >= 0 && size_t(p) < j ? multiply(world[p], m) : m;
    }
    return world;
}

std::vector<Mat4> skinning_matrices(const Skeleton& skeleton, const std::vector<Transform>& local) {
    std::vector<Mat4> pose = world_matrices(skeleton, local);
    std::vector<Mat4> bind = world_matrices(skeleton, bind_pose(skeleton));
    for (size_t j = 0; j < pose.size(); ++j) pose[j] = multiply(pose[j], inverse_affine(bind[j]));
    return pose;
}

std::vector<std::array<double, 3>> skin_positions(const Mesh& mesh, const std::vector<Mat4>& skinning) {
    std::vector<std::array<double, 3>> positions(mesh.positions.size());
    for (size_t v = 0; v < positions.size(); ++v) positions[v] = {mesh.positions[v][0], mesh.positions[v][1], mesh.positions[v][2]};
    return skin_positions(mesh, positions, skinning);
}

std::vector<std::array<double, 3>> skin_positions(const Mesh& mesh, const std::vector<std::array<double, 3>>& positions,
                                                  const std::vector<Mat4>& skinning) {
    std::vector<std::array<double, 3>> out(positions.size());
    const auto& skin = mesh.skin;
    const bool skinned = skin.offsets.size() == positions.size() + 1;
    for (uint32_t v = 0; v < positions.size(); ++v) {
        const std::array<double, 3>& src = positions[v];
        out[v] = src;
        if (!skinned || skin.offsets[v + 1] > skin.influences.size() || skin.offsets[v] > skin.offsets[v + 1]) continue;
        double total = 0;
        std::array<double, 3> sum{0, 0, 0};
        for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i) {
            const Influence& inf = skin.influences[i];
            if (!(inf.weight > 0) || inf.joint >= skinning.size()) continue;
            auto q = transform_point(skinning[inf.joint], src);
            for (int k = 0; k < 3; ++k) sum[k] += inf.weight * q[k];
            total += inf.weight;
        }
        if (total > 0)
            for (int k = 0; k < 3; ++k) out[v][k] = sum[k] / total;
    }
    return out;
}

uint64_t sampled_frame_count(const Animation& anim) {
    if (anim.frame_count > 0) return anim.frame_count;
    bool keyed = std::any_of(anim.tracks.begin(), anim.tracks.end(), [](auto& t) { return !t.times.empty(); });
    if (!keyed) return 0;
    double rate = sampling_rate(anim);
    double frames = std::floor(double(anim.duration()) * rate + 0.5) + 1;
    return frames < 4294967296.0 ? uint64_t(frames) : 4294967296ull;  // beyond IQM's uint32 counts
}

}  // namespace rigport

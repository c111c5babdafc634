// End of clip: keys at an animation's stated length when it runs past the last key, held (IMVU) or
// extrapolated (upstream Cal3D) (docs/cal3d.md §4.4, §5 step 5; process.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "model/quatd.hpp"
#include "process/clip_end.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

using Quatd = quatd::D4;  // x y z w

// Past the last key by more than float noise in the stated length.
bool ends_before(float last, float stated) { return double(stated) - last > 1e-6 * std::max(1.0, double(stated)); }

Quatd to_d(const float* q) { return {q[0], q[1], q[2], q[3]}; }

using quatd::mul;
using quatd::unit;

// last (x) (conj(prev) (x) last)^s: the rotation from prev to last continued by s times its angle,
// on the shorter arc (prev is flipped onto last's hemisphere first), which is where Cal3D's
// slerp(prev, last, 1 + s) lands.
Quatd extrapolate_rotation(Quatd prev, Quatd last, double s) {
    prev = unit(prev);
    last = unit(last);
    if (prev[0] * last[0] + prev[1] * last[1] + prev[2] * last[2] + prev[3] * last[3] < 0)
        for (double& c : prev) c = -c;
    const Quatd relative = mul({-prev[0], -prev[1], -prev[2], prev[3]}, last);
    const double sin_half = std::sqrt(relative[0] * relative[0] + relative[1] * relative[1] + relative[2] * relative[2]);
    if (!(sin_half > 1e-12)) return last;
    const double half = std::atan2(sin_half, relative[3]);  // in [0, pi/2] since w >= 0 after the flip
    const double k = std::sin(s * half) / sin_half;
    const Quatd step{relative[0] * k, relative[1] * k, relative[2] * k, std::cos(s * half)};
    return unit(mul(last, step));
}

// Appends a key at `end` to a track of `c` components per key. Linear extrapolation needs two
// keys at distinct times; otherwise (and for STEP) the last key is held.
void extend(std::vector<float>& times, std::vector<float>& values, size_t c, bool rotation, bool step, float end, ClipEnd mode) {
    const size_t n = times.size();
    const float* last = values.data() + (n - 1) * c;
    std::vector<float> key(last, last + c);
    const bool two = n >= 2 && double(times[n - 1]) - times[n - 2] > 0;
    if (mode == ClipEnd::Extrapolate && two && !step) {
        const float* prev = values.data() + (n - 2) * c;
        const double s = (double(end) - times[n - 1]) / (double(times[n - 1]) - times[n - 2]);
        if (rotation) {
            const Quatd q = extrapolate_rotation(to_d(prev), to_d(last), s);
            for (size_t i = 0; i < 4; ++i) key[i] = float(q[i]);
        } else {
            for (size_t i = 0; i < c; ++i) key[i] = float(double(last[i]) + s * (double(last[i]) - prev[i]));
        }
    }
    times.push_back(end);
    values.insert(values.end(), key.begin(), key.end());
}

}  // namespace

const char* to_string(ClipEnd mode) {
    switch (mode) {
        case ClipEnd::Clamp: return "clamp";
        case ClipEnd::Extrapolate: return "extrapolate";
        case ClipEnd::None: return "none";
    }
    return "?";
}

namespace detail {

ClipGap clip_gap(const Animation& a) {
    ClipGap gap;
    if (a.frame_count > 0 || !(a.stated_duration > 0) || !std::isfinite(a.stated_duration)) return gap;
    for (auto& t : a.tracks) {
        if (t.times.empty()) continue;
        ++gap.tracks;
        gap.short_tracks += ends_before(t.times.back(), a.stated_duration);
    }
    for (auto& t : a.morph_tracks) {
        if (t.times.empty() || t.weights.size() % t.times.size() != 0) continue;
        ++gap.tracks;
        gap.short_tracks += ends_before(t.times.back(), a.stated_duration);
    }
    return gap;
}

}  // namespace detail

uint64_t apply_clip_end(Scene& scene, ClipEnd mode) {
    uint64_t added = 0;
    if (mode == ClipEnd::None) return 0;  // keys as they are; validate_scene reports the gap
    for (auto& a : scene.animations) {
        const detail::ClipGap gap = detail::clip_gap(a);
        if (!gap.short_tracks) continue;
        const float end = a.stated_duration;
        const float last = a.duration();
        for (auto& t : a.tracks) {
            if (t.times.empty() || !ends_before(t.times.back(), end)) continue;
            extend(t.times, t.values, t.components(), t.channel == Channel::Rotation, t.interpolation == Interpolation::Step, end, mode);
            ++added;
        }
        for (auto& t : a.morph_tracks) {
            if (t.times.empty() || t.weights.size() % t.times.size() != 0 || !ends_before(t.times.back(), end)) continue;
            extend(t.times, t.weights, t.weights.size() / t.times.size(), false, t.interpolation == Interpolation::Step, end, mode);
            ++added;
        }
        const char* what = mode == ClipEnd::Clamp ? "held to DURATION (clamp, as IMVU plays it)"
                                                  : "extrapolated to DURATION from their last two keys (as upstream Cal3D plays it)";
        scene.warnings.add(WarningCode::KeysAdjusted, fmt::format("animation '{}': {} of {} tracks end before DURATION {} s (last key {} s); {}", a.name,
                                                                  gap.short_tracks, gap.tracks, end, last, what));
    }
    return added;
}

}  // namespace rigport

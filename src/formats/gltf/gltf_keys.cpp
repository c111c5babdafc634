// Key thinning for compressed glTF output: greedy, within a stated bound, against glTF's own
// interpolation (glTF 2.0 §3.11 LINEAR / STEP; docs/gltf.md "Compressed output").
#include "formats/gltf/gltf_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace rigport::gltf {

namespace {

// A run to check is at most this long: a key then costs at most this many tests, so the work per
// track stays linear in its keys; a long straight run keeps one key every this many.
constexpr size_t longest_run = 256;

// The angle between unit quaternions a and b.
double angle(const double* a, const double* b) {
    double d = 0;
    for (int i = 0; i < 4; ++i) d += a[i] * b[i];
    return 2 * std::acos(std::min(1.0, std::fabs(d)));
}

void slerp(const float* a, const float* b, double t, double* out) {
    double d = 0;
    for (int i = 0; i < 4; ++i) d += double(a[i]) * b[i];
    const double sign = d < 0 ? -1 : 1;
    d = std::fabs(d);
    double wa = 1 - t, wb = t;
    if (d < 0.9995) {
        const double theta = std::acos(d), s = std::sin(theta);
        wa = std::sin((1 - t) * theta) / s, wb = std::sin(t * theta) / s;
    }
    double n = 0;
    for (int i = 0; i < 4; ++i) out[i] = wa * a[i] + sign * wb * b[i], n += out[i] * out[i];
    n = std::sqrt(n);
    for (int i = 0; i < 4; ++i) out[i] /= n;
}

// Whether key k of a track lies within its tolerance of the interpolation between keys a and b.
bool reproduced(const std::vector<float>& times, const KeyTrack& track, size_t a, size_t b, size_t k) {
    const uint32_t width = track.width;
    const float* va = &(*track.values)[a * width];
    const float* vb = &(*track.values)[b * width];
    const float* vk = &(*track.values)[k * width];
    const double t = track.step ? 0.0 : (double(times[k]) - times[a]) / (double(times[b]) - times[a]);
    if (track.kind == KeyKind::Rotation && width == 4) {
        double q[4], key[4];
        if (track.step) std::copy(va, va + 4, q);
        else slerp(va, vb, t, q);
        std::copy(vk, vk + 4, key);
        return angle(q, key) <= track.tolerance;
    }
    for (uint32_t c = 0; c < width; ++c) {
        const double v = double(va[c]) + t * (double(vb[c]) - va[c]);
        if (!(std::fabs(v - vk[c]) <= track.tolerance)) return false;
    }
    return true;
}

}  // namespace

uint32_t thin_keys(std::vector<float>& times, std::vector<float>& values, uint32_t width, KeyKind kind, bool step,
                   double tolerance) {
    std::vector<KeyTrack> one{KeyTrack{&values, width, kind, step, tolerance}};
    return thin_shared_keys(times, one);
}

uint32_t thin_shared_keys(std::vector<float>& times, std::vector<KeyTrack>& tracks) {
    const size_t n = times.size();
    if (n <= 2 || tracks.empty()) return 0;
    for (const KeyTrack& t : tracks)
        if (t.width == 0 || t.values->size() != n * t.width) return 0;
    std::vector<size_t> kept{0};
    size_t anchor = 0;
    for (size_t b = 2; b < n; ++b) {
        // Can the segment anchor .. b stand for every key between them, in every track?
        bool fits = b - anchor <= longest_run;
        for (size_t k = anchor + 1; fits && k < b; ++k)
            for (const KeyTrack& t : tracks)
                if (!(fits = reproduced(times, t, anchor, b, k))) break;
        if (!fits) {
            anchor = b - 1;
            kept.push_back(anchor);
        }
    }
    kept.push_back(n - 1);
    if (kept.size() == n) return 0;
    for (KeyTrack& t : tracks) {
        std::vector<float>& values = *t.values;
        for (size_t i = 0; i < kept.size(); ++i)
            std::copy_n(values.begin() + std::ptrdiff_t(kept[i] * t.width), t.width, values.begin() + std::ptrdiff_t(i * t.width));
        values.resize(kept.size() * t.width);
    }
    for (size_t i = 0; i < kept.size(); ++i) times[i] = times[kept[i]];
    times.resize(kept.size());
    return uint32_t(n - kept.size());
}

}  // namespace rigport::gltf

// FBX animation curves and their tangents (docs/fbx.md §2.6).
#include "formats/fbx/fbx_curve.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

namespace rigport::fbx {

namespace {

// One key's KeyAttrDataFloat: RightSlope and NextLeftSlope for user tangents (auto tangents:
// biases; TCB: tension, continuity), then two weights packed as 16-bit ten-thousandths (TCB:
// the bias), then velocities (not used, as in the FBX SDK's own evaluation).
struct KeyData {
    double a = 0, b = 0, c = 0;
    uint32_t packed = 0;
};

// KeyAttrDataFloat's values are floats whose bits matter (the packed weights): binary files
// store floats; ASCII files write each float's bit pattern as an integer.
KeyData key_data(const Node* data, size_t run) {
    KeyData d;
    if (!data || data->properties.empty()) return d;
    const Property& p = data->properties[0];
    const size_t at = run * 4;
    auto bits = [&](size_t i) -> uint32_t {
        if (!p.is_array() || i >= p.count) return uint32_t(0);
        if (p.is_integer_array()) return uint32_t(p.integer_at(i));
        return std::bit_cast<uint32_t>(float(p.number_at(i)));
    };
    auto value = [&](size_t i) {
        const float f = std::bit_cast<float>(bits(i));
        return std::isfinite(f) ? double(f) : 0.0;
    };
    d.a = value(at);
    d.b = value(at + 1);
    d.c = value(at + 2);
    d.packed = bits(at + 2);
    return d;
}

double seconds(int64_t ticks) { return double(ticks) / ticks_per_second; }

// An auto tangent's slope at key k between its neighbours (interior keys), as the FBX SDK
// smooths it: the chord's slope (averaged with the neighbouring spans' when not
// time-independent), pulled toward one side by a bias, then clamped.
double auto_slope(const Curve& c, size_t k, double bias) {
    const double tp = seconds(c.times[k - 1]), t = seconds(c.times[k]), tn = seconds(c.times[k + 1]);
    const double vp = c.values[k - 1], v = c.values[k], vn = c.values[k + 1];
    const int64_t f = c.flags[k];
    if ((f & tangent_clamp) && std::min(std::fabs(vp - v), std::fabs(vn - v)) <= 0) return 0;
    if (!(tn > tp) || !(t > tp) || !(tn > t)) return 0;
    double s = (vn - vp) / (tn - tp);
    const double sl = (v - vp) / (t - tp), sr = (vn - v) / (tn - t);
    if (!(f & tangent_time_independent)) {
        const double d = (t - tp) / (tn - tp);
        s = 0.5 * s + 0.5 * (sl * (1 - d) + sr * d);
        const double bw = std::fabs(bias) / 100;
        if (bw > 1e-4) {
            const double target = bias > 0 ? sr : sl, before = s;
            s = s * (1 - bw) + target * bw;
            if (bw > 5) {
                const double toward = std::fabs(target - before) > 1e-5 ? target - before : bias;
                s += (bw - 5) * (bw - 5) * 40 * (toward < 0 ? -1 : 1);
            }
        }
    }
    if (f & tangent_clamp_progressive) {
        const double sign = s < 0 ? -1 : 1;
        double limit_left = sign * (v - vp) / (c.tangents[k].left_weight * (t - tp));
        double limit_right = sign * (vn - v) / (c.tangents[k].right_weight * (tn - t));
        if (!(limit_left >= 0)) limit_left = 0;
        if (!(limit_right >= 0)) limit_right = 0;
        s = sign * std::min({std::fabs(s), limit_left, limit_right});
    }
    return s;
}

// An auto tangent at the first or last key: toward its one neighbour (flat when clamped).
double end_slope(const Curve& c, size_t k, size_t other, double bias) {
    const int64_t f = c.flags[k];
    const double dt = seconds(c.times[std::max(k, other)]) - seconds(c.times[std::min(k, other)]);
    const double dv = c.values[std::max(k, other)] - c.values[std::min(k, other)];
    if ((f & tangent_clamp_progressive) || !(dt > 0) || ((f & tangent_clamp) && dv == 0)) return 0;
    double s = dv / dt;
    const double over = std::fabs(bias) / 100 - 5;
    if (!(f & tangent_time_independent) && over > 0) s += over * over * 40 * (bias < 0 ? -1 : 1);
    return s;
}

// Every cubic key's slopes and weights from its flags and data.
void solve_tangents(Curve& c, const std::vector<KeyData>& data) {
    const size_t n = c.times.size();
    c.tangents.assign(n, Tangent{});
    for (size_t k = 0; k < n; ++k) {
        if (c.flags[k] & weighted_right) c.tangents[k].right_weight = std::clamp((data[k].packed & 0xffff) * 1e-4, 0.0, 1.0);
        if (k + 1 < n && (c.flags[k] & weighted_next_left)) c.tangents[k + 1].left_weight = std::clamp((data[k].packed >> 16) * 1e-4, 0.0, 1.0);
    }
    for (size_t k = 0; k < n; ++k) {
        const int64_t f = c.flags[k];
        // A cubic key's NextLeftSlope is the next key's left slope, unless that key works its
        // tangents out itself (auto, TCB: below).
        if (k > 0 && (c.flags[k - 1] & interpolation_cubic) && !(c.flags[k - 1] & tangent_tcb)) c.tangents[k].left_slope = data[k - 1].b;
        if (!(f & interpolation_cubic)) continue;
        if (f & tangent_tcb) {
            const double tension = data[k].a, continuity = data[k].b, bias = data[k].c;
            const bool first = k == 0, last = k + 1 == n;
            const double sl = first ? 0 : (c.values[k] - c.values[k - 1]) / (seconds(c.times[k]) - seconds(c.times[k - 1]));
            const double sr = last ? 0 : (c.values[k + 1] - c.values[k]) / (seconds(c.times[k + 1]) - seconds(c.times[k]));
            const double h = (first || last ? 1.0 : 0.5) * (1 - tension);
            const double left = h * (1 + bias) * (1 - continuity) * sl + h * (1 - bias) * (1 + continuity) * sr;
            const double right = h * (1 + bias) * (1 + continuity) * sl + h * (1 - bias) * (1 - continuity) * sr;
            c.tangents[k].left_slope = std::isfinite(left) ? left : 0;
            c.tangents[k].right_slope = std::isfinite(right) ? right : 0;
        } else if (f & tangent_user) {
            c.tangents[k].right_slope = data[k].a;
        } else {  // auto (or no mode told): worked out from the neighbours
            const double bias_left = k > 0 ? -data[k - 1].b : 0, bias_right = data[k].a;
            if (n == 1) continue;
            if (k == 0) {
                c.tangents[k].right_slope = end_slope(c, k, k + 1, bias_right);
            } else if (k + 1 == n) {
                c.tangents[k].left_slope = end_slope(c, k, k - 1, bias_left);
            } else if (std::fabs(bias_left - bias_right) <= 1e-4) {
                c.tangents[k].left_slope = c.tangents[k].right_slope = auto_slope(c, k, bias_right);
            } else {
                c.tangents[k].left_slope = auto_slope(c, k, bias_left);
                c.tangents[k].right_slope = auto_slope(c, k, bias_right);
            }
        }
    }
}

// The Bezier parameter s where x(s) = u for control abscissae 0, x1, x2, 1 (x monotonic for
// x1, x2 in [0, 1]): Newton's method from s = u, bisection where a step leaves the bracket.
double bezier_parameter(double x1, double x2, double u) {
    double lo = 0, hi = 1, s = u;
    for (int i = 0; i < 32; ++i) {
        const double r = 1 - s;
        const double x = 3 * r * r * s * x1 + 3 * r * s * s * x2 + s * s * s - u;
        if (std::fabs(x) < 1e-14) break;
        (x < 0 ? lo : hi) = s;
        const double dx = 3 * r * r * x1 + 6 * r * s * (x2 - x1) + 3 * s * s * (1 - x2);
        const double next = dx > 0 ? s - x / dx : -1;
        s = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    return s;
}

// 6.x keys: time, value, interpolation letter, then what the interpolation carries.
// A key's letters are bare words in ASCII and one-byte 'C' values in binary 6.1 (docs/fbx.md §2.6).
bool is_letter(const Property& p) { return p.type == 'W' || (p.type == 'C' && p.text.size() == 1); }

bool is_key_start(std::span<const Property> p, size_t i) {
    return i + 2 < p.size() && p[i].type == 'L' && p[i + 1].is_number() && p[i + 1].type != 'C' && is_letter(p[i + 2]) &&
           (p[i + 2].text == "L" || p[i + 2].text == "C" || p[i + 2].text == "U");
}

bool check_keys(const Node& at, const Curve& c, Error& error) {
    for (size_t k = 1; k < c.times.size(); ++k)
        if (c.times[k] < c.times[k - 1]) {
            error = error_at(at, fmt::format("animation curve: key {} at {} comes before key {} at {}", k, c.times[k], k - 1, c.times[k - 1]));
            return false;
        }
    for (double v : c.values)
        if (!std::isfinite(v)) {
            error = error_at(at, "animation curve: a key value that is not a finite number");
            return false;
        }
    return true;
}

}  // namespace

Error error_at(const Node& node, std::string message) {
    Error e = make_error(ErrorCode::Malformed, std::move(message));
    if (node.line) e.line = node.line, e.column = 1;
    else e.offset = node.offset;
    return e;
}

bool read_curve(const Node& n, Curve& c, Error& error) {
    const Node* times = n.child("KeyTime");
    const Node* values = n.child("KeyValueFloat");
    if (!times || !values) return true;  // a curve without keys: the default holds
    if (!times->integers_of(c.times) || !values->numbers_of(c.values)) {
        error = error_at(n, "animation curve: KeyTime must be integers and KeyValueFloat numbers");
        return false;
    }
    if (c.times.size() != c.values.size()) {
        error = error_at(n, fmt::format("animation curve: {} KeyTime and {} KeyValueFloat", c.times.size(), c.values.size()));
        return false;
    }
    if (!check_keys(*times, c, error)) return false;
    // Flags and data come run-length coded: run i applies to KeyAttrRefCount[i] keys in a row.
    // Both are integer arrays in practice, read in place; anything else is copied out.
    const Node* f = n.child("KeyAttrFlags");
    const Node* r = n.child("KeyAttrRefCount");
    const Node* d = n.child("KeyAttrDataFloat");
    auto array_of = [](const Node* node) -> const Property* {
        return node && node->properties.size() == 1 && node->properties[0].is_integer_array() ? &node->properties[0] : nullptr;
    };
    const Property* flag_array = array_of(f);
    const Property* count_array = array_of(r);
    const bool direct = flag_array && count_array;
    std::vector<int64_t> flag_list, count_list;
    size_t runs = 0;
    if (direct && flag_array->count == count_array->count) runs = flag_array->count;
    else if (!direct && f && r && f->integers_of(flag_list) && r->integers_of(count_list) && flag_list.size() == count_list.size()) runs = flag_list.size();
    auto flag_of = [&](size_t i) { return direct ? flag_array->integer_at(i) : flag_list[i]; };
    auto count_of = [&](size_t i) { return direct ? count_array->integer_at(i) : count_list[i]; };
    const size_t n_keys = c.times.size();
    c.flags.reserve(n_keys);
    bool cubic = false;
    for (size_t i = 0; i < runs && c.flags.size() < n_keys; ++i) {
        const size_t keys = size_t(std::clamp<int64_t>(count_of(i), 0, int64_t(n_keys - c.flags.size())));
        c.flags.insert(c.flags.end(), keys, flag_of(i));
        cubic = cubic || (keys > 0 && (flag_of(i) & interpolation_cubic));
    }
    c.flags.resize(n_keys, interpolation_linear);  // linear where the file says nothing
    // Slopes and weights are read only across cubic spans (evaluate): a curve without a cubic
    // key (most baked curves) needs none.
    if (!cubic) return true;
    std::vector<KeyData> data;
    data.reserve(n_keys);
    for (size_t i = 0; i < runs && data.size() < n_keys; ++i) {
        const size_t keys = size_t(std::clamp<int64_t>(count_of(i), 0, int64_t(n_keys - data.size())));
        data.insert(data.end(), keys, key_data(d, i));
    }
    data.resize(n_keys);
    solve_tangents(c, data);
    return true;
}

bool read_channel_keys(const Node& channel, Curve& c, Error& error) {
    const Node* key = channel.child("Key");
    if (!key) return true;
    const auto& p = key->properties;
    std::vector<KeyData> data;
    for (size_t i = 0; i < p.size();) {
        if (!is_key_start(p, i)) {
            error = error_at(*key, fmt::format("animation channel: value {} does not start a key (time, value, L / C / U)", i));
            return false;
        }
        c.times.push_back(p[i].integer);
        c.values.push_back(p[i + 1].number);
        const std::string_view kind = p[i + 2].text;
        KeyData& kd = data.emplace_back();
        size_t end = i + 3;
        while (end < p.size() && !is_key_start(p, end)) ++end;
        // U,a (auto) as the same exporters' 7.x files flag it; U,s / U,b (user, broken): the
        // two slopes follow; the weights of 6.x weighted keys are not read (1/3).
        int64_t flags = kind == "C" ? interpolation_constant : kind == "L" ? interpolation_linear : interpolation_cubic;
        if (kind == "U") {
            const std::string_view mode = i + 3 < end && is_letter(p[i + 3]) ? p[i + 3].text : "a";
            if ((mode == "s" || mode == "b") && i + 5 < end && p[i + 4].is_number() && p[i + 5].is_number()) {
                flags |= tangent_user;
                kd.a = p[i + 4].number;
                kd.b = p[i + 5].number;
            } else {
                flags |= tangent_auto | tangent_time_independent | tangent_clamp_progressive;
            }
        }
        c.flags.push_back(flags);
        i = end;
    }
    if (!check_keys(*key, c, error)) return false;
    if (const Node* count = channel.child("KeyCount"); count && !count->properties.empty() && count->properties[0].integer != int64_t(c.times.size())) {
        error = error_at(*key, fmt::format("animation channel: KeyCount {} but {} keys", count->properties[0].integer, c.times.size()));
        return false;
    }
    solve_tangents(c, data);
    return true;
}

double evaluate(const Curve& c, int64_t t) {
    if (t <= c.times.front()) return c.values.front();
    if (t >= c.times.back()) return c.values.back();
    const size_t k = size_t(std::upper_bound(c.times.begin(), c.times.end(), t) - c.times.begin()) - 1;
    const double v0 = c.values[k], v1 = c.values[k + 1];
    const int64_t f = c.flags[k];
    if (f & interpolation_constant) return f & constant_next ? v1 : v0;
    const double span = double(c.times[k + 1] - c.times[k]);
    if (!(span > 0)) return v0;
    const double u = double(t - c.times[k]) / span;
    if (!(f & interpolation_cubic)) return v0 + (v1 - v0) * u;
    const double dt = span / ticks_per_second;
    const double x1 = c.tangents[k].right_weight, x2 = 1 - c.tangents[k + 1].left_weight;
    const double y1 = v0 + c.tangents[k].right_weight * dt * c.tangents[k].right_slope, y2 = v1 - c.tangents[k + 1].left_weight * dt * c.tangents[k + 1].left_slope;
    const double s = bezier_parameter(x1, x2, u), r = 1 - s;
    return r * r * r * v0 + 3 * r * r * s * y1 + 3 * r * s * s * y2 + s * s * s * v1;
}

}  // namespace rigport::fbx

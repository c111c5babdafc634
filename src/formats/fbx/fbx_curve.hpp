// FBX animation curves (docs/fbx.md §2.6): keys at ticks (1/46186158000 s), each key's
// interpolation to the next (constant, linear, cubic) and, for cubic keys, the tangents the FBX
// SDK gives them: user slopes as stored, auto tangents worked out from the neighbouring keys,
// TCB from tension, continuity and bias (the reading ufbx gives, which matches Maya's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/fbx/fbx_document.hpp"

namespace rigport::fbx {

inline constexpr double ticks_per_second = 46186158000.0;

// KeyAttrFlags bits (FbxAnimCurveDef): interpolation, tangent mode, weights.
inline constexpr int64_t interpolation_constant = 0x2, interpolation_linear = 0x4, interpolation_cubic = 0x8;
inline constexpr int64_t constant_next = 0x100;  // with interpolation_constant: hold the next key
inline constexpr int64_t tangent_auto = 0x100, tangent_tcb = 0x200, tangent_user = 0x400;
inline constexpr int64_t tangent_clamp = 0x1000, tangent_time_independent = 0x2000, tangent_clamp_progressive = 0x4000;
inline constexpr int64_t weighted_right = 0x1000000, weighted_next_left = 0x2000000;

// A cubic span's tangents at a key: the slope (value per second) leaving it to the right and
// arriving from the left, and the share of the span each tangent reaches (1/3 unless weighted).
struct Tangent {
    double right_slope = 0, left_slope = 0, right_weight = 1.0 / 3.0, left_weight = 1.0 / 3.0;
};

struct Curve {
    std::vector<int64_t> times;   // ticks, ascending
    std::vector<double> values;
    std::vector<int64_t> flags;   // per key: how the span to the next key is read
    std::vector<Tangent> tangents;  // per key, read across cubic spans only; empty when no key is cubic
};

// An error at a node's place (ASCII: line; binary: byte offset).
Error error_at(const Node& node, std::string message);

// 7.x AnimationCurve: KeyTime, KeyValueFloat, KeyAttrFlags / KeyAttrDataFloat run-length coded
// by KeyAttrRefCount. A curve without keys reads as empty.
bool read_curve(const Node& curve, Curve& c, Error& error);
// 6.x Channel: Key: time, value, L | C | U[,mode letters and numbers], ... (KeyCount checked).
bool read_channel_keys(const Node& channel, Curve& c, Error& error);

// The value at tick t: the first / last key's value before / after the keys, else the span's
// interpolation (constant, linear, cubic Bezier through the tangents).
double evaluate(const Curve& c, int64_t t);

}  // namespace rigport::fbx

// IQM channel quantization: the compiler's float formula, clamping and constant channels
// (docs/iqm.md §1.7).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "process/quantize.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

TEST(Quantize, RoundTripWithinHalfAStep) {
    const float lo = -1.5f, hi = 2.7f;
    QuantizedChannel q = quantize_range(lo, hi);
    ASSERT_TRUE(q.animated);
    EXPECT_EQ(q.offset, lo);
    EXPECT_EQ(q.scale, (hi - lo) / 65535.0f);
    EXPECT_EQ(quantize_value(lo, q), 0);
    EXPECT_EQ(quantize_value(hi, q), 65535);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> dist(lo, hi);
    const double step = (double(hi) - lo) / 65535;
    for (int i = 0; i < 10000; ++i) {
        float v = dist(rng);
        float back = dequantize_value(quantize_value(v, q), q);
        ASSERT_LE(std::fabs(double(back) - v), step / 2 + 4e-7) << v;  // plus float rounding
    }
}

TEST(Quantize, RoundsHalfUpLikeTheCompiler) {
    // scale 1: the sample is floor(0.5 + v - min).
    QuantizedChannel q = quantize_range(0.0f, 65535.0f);
    ASSERT_EQ(q.scale, 1.0f);
    EXPECT_EQ(quantize_value(2.5f, q), 3);  // half up, not to even
    EXPECT_EQ(quantize_value(3.5f, q), 4);
    EXPECT_EQ(quantize_value(2.49f, q), 2);
    EXPECT_EQ(quantize_value(0.4f, q), 0);
    // On [0, 1] the midpoint lands on 32767.5 and goes up.
    QuantizedChannel unit = quantize_range(0.0f, 1.0f);
    EXPECT_EQ(quantize_value(0.5f, unit), 32768);
    EXPECT_EQ(dequantize_value(32768, unit), 32768.0f * (1.0f / 65535.0f));
}

TEST(Quantize, FloatArithmeticAsTheCompiler) {
    // The sample uses float division by a float scale: for these numbers double arithmetic
    // gives a different sample than float arithmetic does, and the compiler's is the float one.
    int checked = 0, differing = 0;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    for (int i = 0; i < 20000; ++i) {
        float a = dist(rng), b = dist(rng), v = dist(rng);
        float lo = std::min(a, b), hi = std::max(a, b);
        if (v < lo || v > hi) continue;
        QuantizedChannel q = quantize_range(lo, hi);
        float scale = (hi - lo) / 65535.0f;
        volatile float diff = v - lo;  // keep each step in float
        volatile float ratio = diff / scale;
        uint16_t expect = static_cast<uint16_t>(0.5f + ratio);
        uint16_t in_double = static_cast<uint16_t>(0.5 + (double(v) - lo) / ((double(hi) - lo) / 65535.0));
        ASSERT_EQ(quantize_value(v, q), expect) << v << " in [" << lo << ", " << hi << "]";
        ++checked;
        differing += expect != in_double;
    }
    EXPECT_GT(checked, 5000);
    EXPECT_GT(differing, 0);  // the test would notice double arithmetic
}

TEST(Quantize, ConstantChannels) {
    QuantizedChannel q = quantize_range(0.25f, 0.25f);
    EXPECT_FALSE(q.animated);
    EXPECT_EQ(q.scale, 0.0f);
    EXPECT_EQ(q.offset, 0.25f);
    EXPECT_EQ(quantize_value(0.25f, q), 0);
    EXPECT_EQ(dequantize_value(0, q), 0.25f);
    EXPECT_EQ(dequantize_value(1234, q), 0.25f);
    // Below the compiler's 1e-10 threshold: constant; at it: animated.
    EXPECT_FALSE(quantize_range(0.0f, 9e-11f).animated);
    EXPECT_TRUE(quantize_range(0.0f, 1e-10f).animated);
    EXPECT_TRUE(quantize_range(0.0f, 1e-9f).animated);
}

TEST(Quantize, ClampsInsteadOfWrapping) {
    QuantizedChannel q = quantize_range(0.0f, 1.0f);
    EXPECT_EQ(quantize_value(1.5f, q), 65535);
    EXPECT_EQ(quantize_value(1e30f, q), 65535);
    EXPECT_EQ(quantize_value(-0.5f, q), 0);
    EXPECT_EQ(quantize_value(-1e30f, q), 0);
    EXPECT_EQ(quantize_value(std::numeric_limits<float>::quiet_NaN(), q), 0);
    EXPECT_EQ(quantize_value(std::numeric_limits<float>::infinity(), q), 65535);
}

}  // namespace
}  // namespace rigport

// Shared by the corpus round-trip tests: two scenes' animations agree within one IQM
// quantization step per channel.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "formats/iqm/iqm.hpp"
#include "rigport/anim.hpp"

namespace rigport::test {

// Names, rates, loop flags and frame counts equal; every channel of every frame within one step
// of `source`'s pose channel scales (a channel without a pose record must match exactly), plus
// float rounding of 1e-6 relative.
inline void expect_animation_within_one_step(const iqm::IqmFile& source, const Scene& a, const Scene& b) {
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
        const Animation& x = a.animations[i];
        const Animation& y = b.animations[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.frame_rate, y.frame_rate);
        EXPECT_EQ(x.loop, y.loop);
        ASSERT_EQ(x.frame_count, y.frame_count);
        for (uint32_t f = 0; f < x.frame_count; ++f) {
            auto px = frame_pose(a.skeleton, x, f);
            auto py = frame_pose(b.skeleton, y, f);
            ASSERT_EQ(px.size(), py.size());
            for (size_t j = 0; j < px.size(); ++j) {
                float vx[10], vy[10];
                for (int k = 0; k < 3; ++k) vx[k] = px[j].translate[k], vy[k] = py[j].translate[k];
                for (int k = 0; k < 4; ++k) vx[3 + k] = px[j].rotate[k], vy[3 + k] = py[j].rotate[k];
                for (int k = 0; k < 3; ++k) vx[7 + k] = px[j].scale[k], vy[7 + k] = py[j].scale[k];
                for (int k = 0; k < 10; ++k) {
                    const float step = j < source.poses.size() ? source.poses[j].channelscale[k] : 0.0f;
                    const float tolerance = step * 1.0001f + std::fabs(vx[k]) * 1e-6f + 1e-7f;
                    ASSERT_LE(std::fabs(vx[k] - vy[k]), tolerance)
                        << "animation " << x.name << " frame " << f << " joint " << j << " channel " << k;
                }
            }
        }
    }
}

}  // namespace rigport::test

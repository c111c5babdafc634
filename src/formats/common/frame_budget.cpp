#include "formats/common/frame_budget.hpp"

#include <fmt/format.h>

#include "rigport/anim.hpp"

namespace rigport::detail {

Status check_frame_budget(const Scene& scene, const SaveOptions& options, const char* format) {
    const uint64_t joints = scene.skeleton.joints.size();
    if (joints == 0) return Ok{};
    const uint64_t max_frames = LoadOptions{}.max_frames;
    uint64_t frames = 0;
    for (auto& a : scene.animations) {
        frames += sampled_frame_count(a);
        if (frames > max_frames)
            return make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} frames in all (at {} per second) exceed the {} "
                                                                    "an {} reader takes (LoadOptions::max_frames)",
                                                                    a.name, frames, sampling_rate(a), max_frames, format));
        if (frames * joints > options.max_poses)
            return make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} frames of {} joints in all (at {} per second) "
                                                                    "exceed the {} joint poses an {} writer samples (SaveOptions::max_poses)",
                                                                    a.name, frames, joints, sampling_rate(a), options.max_poses, format));
    }
    return Ok{};
}

}  // namespace rigport::detail

// IQM writer, animation: poses, frame-major quantized channels and bounds of the decoded frames
// (docs/iqm.md §1.7, §1.8, §3.2 steps 9-10).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "formats/iqm/iqm_write_parts.hpp"
#include "process/quantize.hpp"
#include "process/threaded.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::iqm::write_detail {

// ---- animation (§1.7, §1.8) ---------------------------------------------------------------------

static std::array<float, 10> channels(const Transform& t) {
    return {t.translate[0], t.translate[1], t.translate[2], t.rotate[0], t.rotate[1],
            t.rotate[2],    t.rotate[3],    t.scale[0],     t.scale[1],  t.scale[2]};
}


// Poses, frames and anim records; channels quantized over all frames of all animations.
// Returns the frames as a reader will decode them.
Expected<Frames> build_animations(const Scene& scene, TextTable& text, IqmFile& file) {
    const auto& joints = scene.skeleton.joints;
    uint64_t total = 0;
    for (auto& anim : scene.animations) total += sampled_frame_count(anim);
    // Every frame holds up to 10 uint16 per joint; keep within what a uint32 file can hold.
    if (total > uint32_limit || total > uint32_limit / (joints.size() * 20))
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} frames of {} joints do not fit an IQM file", total, joints.size()));

    Frames samples;
    samples.reserve(total * joints.size());
    for (auto& anim : scene.animations) {
        AnimRecord rec;
        rec.name = text.add(anim.name);
        rec.first_frame = uint32_t(samples.size() / joints.size());
        rec.num_frames = uint32_t(sampled_frame_count(anim));
        // A keyed animation (Cal3D, glTF) is sampled at sampling_rate(), and that is the rate
        // stored: engines play IQM frames by it. A frame-based source keeps its own (0 included).
        const float rate = sampling_rate(anim);
        rec.framerate = anim.frame_count > 0 ? anim.frame_rate : rate;
        rec.flags = anim.loop ? IQM_LOOP : 0;
        for (uint32_t f = 0; f < rec.num_frames; ++f)
            for (auto& t : frame_pose(scene.skeleton, anim, f, rate)) samples.push_back(channels(t));
        file.anims.push_back(rec);
    }

    std::vector<QuantizedChannel> quant(joints.size() * 10);
    uint32_t framechannels = 0;
    for (size_t j = 0; j < joints.size(); ++j) {
        PoseRecord pose;
        pose.parent = joints[j].parent;
        for (int c = 0; c < 10 && total > 0; ++c) {
            float lo = samples[j][c], hi = lo;
            for (size_t i = j; i < samples.size(); i += joints.size()) lo = std::min(lo, samples[i][c]), hi = std::max(hi, samples[i][c]);
            QuantizedChannel q = quantize_range(lo, hi);
            quant[j * 10 + c] = q;
            pose.channeloffset[c] = q.offset;
            pose.channelscale[c] = q.scale;
            if (q.animated) pose.channelmask |= 1u << c, ++framechannels;
        }
        file.poses.push_back(pose);
    }
    // Frame-major: for each frame, each pose, the masked channels in order.
    file.frames.reserve(total * framechannels);
    for (size_t i = 0; i < samples.size(); ++i)
        for (int c = 0; c < 10; ++c) {
            const QuantizedChannel& q = quant[(i % joints.size()) * 10 + c];
            const uint16_t u = quantize_value(samples[i][c], q);
            if (q.animated) file.frames.push_back(u);
            samples[i][c] = dequantize_value(u, q);  // constant channels decode to their offset
            // The last guard: what a reader decodes must be finite, or the file is unreadable.
            if (!std::isfinite(samples[i][c]) || !std::isfinite(q.offset) || !std::isfinite(q.scale))
                return make_error(ErrorCode::Malformed, fmt::format("joint {} channel {} in frame {} decodes to a non-finite value "
                                                                    "(offset {}, scale {}); not written",
                                                                    i % joints.size(), c, i / joints.size(), q.offset, q.scale));
        }
    file.header.num_frames = uint32_t(total);
    file.header.num_framechannels = framechannels;
    return samples;
}

// Bounds of every written frame, skinned with the poses as a reader decodes them rather than
// the unquantized ones: bounds then describe the file's own frames, and rewriting a file that
// was read gives the same bytes.
std::vector<FrameBounds> decoded_bounds(const Scene& scene, const Frames& decoded, uint32_t threads) {
    std::vector<FrameBounds> out;
    const size_t joints = scene.skeleton.joints.size();
    if (joints == 0 || !has_skinned_vertices(scene)) return out;
    std::vector<std::vector<Transform>> batch;  // a batch of frames per walk over the vertices
    for (size_t i = 0; i + joints <= decoded.size(); i += joints) {
        std::vector<Transform>& pose = batch.emplace_back(joints);
        for (size_t j = 0; j < joints; ++j) {
            const auto& c = decoded[i + j];
            pose[j] = Transform{{c[0], c[1], c[2]}, {c[3], c[4], c[5], c[6]}, {c[7], c[8], c[9]}};
        }
        if (batch.size() == 1024 || i + 2 * joints > decoded.size()) {
            for (auto& b : detail::skinned_bounds(scene, batch, threads)) out.push_back(b);
            batch.clear();
        }
    }
    return out;
}

}  // namespace rigport::iqm::write_detail

// glTF 2.0 animations: one per scene animation, a sampler per joint track and morph-weight track,
// shared key-time inputs, hemisphere-aligned unit rotations (docs/gltf.md §4; glTF 2.0 §3.11).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"
#include "rigport/anim.hpp"

namespace rigport::gltf {

namespace {

// Keys of one sampler: times strictly increasing, `width` output values per key.
struct Keys {
    std::vector<float> times;
    std::vector<float> values;
    uint32_t width = 0;
};

// Of several keys at one time, the last is kept: it is the value from that time on, as
// sample_pose plays it. Returns how many were dropped.
uint32_t drop_repeated_times(Keys& k) {
    uint32_t dropped = 0;
    size_t out = 0;
    for (size_t i = 0; i < k.times.size(); ++i) {
        if (i + 1 < k.times.size() && k.times[i + 1] == k.times[i]) {
            ++dropped;
            continue;
        }
        k.times[out] = k.times[i];
        std::copy_n(k.values.begin() + i * k.width, k.width, k.values.begin() + out * k.width);
        ++out;
    }
    k.times.resize(out);
    k.values.resize(out * k.width);
    return dropped;
}

// Unit length in double, then each key on the same hemisphere as the one before (§4.4).
void align_rotations(std::vector<float>& q) {
    for (size_t k = 0; k + 4 <= q.size(); k += 4) {
        double n = 0;
        for (int i = 0; i < 4; ++i) n += double(q[k + i]) * q[k + i];
        n = std::sqrt(n);
        if (!(n > 0)) q[k] = q[k + 1] = q[k + 2] = 0, q[k + 3] = 1, n = 1;
        for (int i = 0; i < 4; ++i) q[k + i] = float(q[k + i] / n);
        if (k >= 4) {
            double dot = 0;
            for (int i = 0; i < 4; ++i) dot += double(q[k + i]) * q[k - 4 + i];
            if (dot < 0)
                for (int i = 0; i < 4; ++i) q[k + i] = -q[k + i];
        }
    }
}

class AnimationWriter {
public:
    AnimationWriter(WriteContext& ctx, const Animation& anim) : ctx_(ctx), anim_(anim) {}

    Expected<Ok> add(Keys keys, uint32_t node, const char* path, Interpolation interpolation, bool rotation) {
        if (keys.times.empty()) return Ok{};
        if (!claim_target(node, path)) {
            ctx_.warn(WarningCode::DroppedData, fmt::format("animation '{}': a second {} track for node {} was not written", anim_.name, path, node));
            return Ok{};
        }
        if (keys.times.front() < 0)
            return make_error(ErrorCode::Unsupported, fmt::format("animation '{}': key time {} is negative; glTF key times start at 0", anim_.name, keys.times.front()));
        if (uint32_t d = drop_repeated_times(keys))
            ctx_.warn(WarningCode::DroppedData, fmt::format("animation '{}': {} keys at a repeated time were dropped (glTF times strictly increase)", anim_.name, d));
        // Optional loop key: key 0 again at frame_count / frame_rate (§4.5).
        if (ctx_.options.gltf.loop_key && anim_.loop && anim_.frame_count > 0 && keys.times.size() >= 2) {
            const double rate = anim_.frame_rate > 0 ? anim_.frame_rate : default_frame_rate;
            const float end = float(double(anim_.frame_count) / rate);
            if (end > keys.times.back()) {
                keys.times.push_back(end);
                for (uint32_t i = 0; i < keys.width; ++i) keys.values.push_back(keys.values[i]);
            }
        }
        if (rotation) align_rotations(keys.values);
        AnimationSampler sampler;
        sampler.input = input(keys.times);
        const bool weights = std::string_view(path) == "weights";  // keys x targets scalars
        sampler.output = ctx_.buffer.floats(keys.values, weights ? 1 : keys.width, 0, false);
        sampler.interpolation = interpolation == Interpolation::Step ? "STEP" : "LINEAR";
        doc_.samplers.push_back(sampler);
        doc_.channels.push_back(AnimationChannel{uint32_t(doc_.samplers.size() - 1), node, path});
        return Ok{};
    }

    AnimationDoc finish() { return std::move(doc_); }

private:
    // One input accessor per distinct times array within the animation.
    uint32_t input(const std::vector<float>& times) {
        for (auto& [t, accessor] : inputs_)
            if (t == times) return accessor;
        uint32_t accessor = ctx_.buffer.floats(times, 1, 0, true);
        inputs_.emplace_back(times, accessor);
        return accessor;
    }

    // False when the node's path already has a channel. A flag per node and path, not a set of
    // (node, string) pairs: one allocation per animation instead of one per track.
    bool claim_target(uint32_t node, std::string_view path) {
        const size_t at = size_t(node) * 4 + (path == "translation" ? 0 : path == "rotation" ? 1 : path == "scale" ? 2 : 3);
        if (at >= targets_.size()) targets_.resize(std::max(at + 1, targets_.size() * 2), 0);
        if (targets_[at]) return false;
        targets_[at] = 1;
        return true;
    }

    WriteContext& ctx_;
    const Animation& anim_;
    AnimationDoc doc_;
    std::vector<std::pair<std::vector<float>, uint32_t>> inputs_;
    std::vector<uint8_t> targets_;  // per node: translation, rotation, scale, weights
};

bool all_ones(const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float x) { return x == 1.0f; });
}

}  // namespace

Expected<Ok> write_animations(WriteContext& ctx) {
    const Scene& scene = ctx.scene;
    for (const Animation& source : scene.animations) {
        // glTF's clip ends at its last key. A frame-based clip whose channels all hold still (one
        // key each, as the IQM, IQE and MD5 readers store them) would shrink to no length: its
        // tracks get a hold key at the last frame instead, so the clip keeps its frames.
        std::optional<Animation> held;
        if (source.frame_count > 1) {
            const float end = float(source.frame_count - 1) / sampling_rate(source);
            if (std::isfinite(end) && source.duration() < end) {
                held = source;
                for (JointTrack& t : held->tracks)
                    if (!t.times.empty() && t.times.back() < end) {
                        t.times.push_back(end);
                        const size_t c = t.components();
                        t.values.insert(t.values.end(), t.values.end() - ptrdiff_t(c), t.values.end());
                    }
            }
        }
        const Animation& anim = held ? *held : source;
        AnimationWriter writer(ctx, anim);
        for (const JointTrack& t : anim.tracks) {
            // Constantly 1 where the node rests at scale 1 too: the channel changes nothing.
            if (t.channel == Channel::Scale && all_ones(t.values) && !ctx.doc.nodes[t.joint].scale) continue;
            const char* path = t.channel == Channel::Translation ? "translation" : t.channel == Channel::Rotation ? "rotation" : "scale";
            if (auto r = writer.add(Keys{t.times, t.values, t.components()}, t.joint, path, t.interpolation, t.channel == Channel::Rotation); !r)
                return r.error();
        }
        for (const MorphWeightTrack& t : anim.morph_tracks) {
            const uint32_t targets = uint32_t(scene.meshes[t.mesh].morph_targets.size());
            const uint32_t node = ctx.mesh_node[t.mesh];
            if (targets == 0 || node == no_index) continue;
            // A weights output has keys x targets scalars.
            if (auto r = writer.add(Keys{t.times, t.weights, targets}, node, "weights", t.interpolation, false); !r) return r.error();
        }
        AnimationDoc doc = writer.finish();
        if (doc.channels.empty()) {
            ctx.warn(WarningCode::DroppedData, fmt::format("animation '{}' has no channel glTF can hold; not written", anim.name));
            continue;
        }
        doc.name = anim.name;
        doc.loop = anim.loop;
        doc.frame_rate = anim.frame_rate;
        ctx.doc.animations.push_back(std::move(doc));
    }
    return Ok{};
}

}  // namespace rigport::gltf

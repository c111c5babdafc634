// glTF 2.0 animations: one per scene animation, a sampler per joint track and morph-weight track,
// shared key-time inputs, hemisphere-aligned unit rotations (docs/gltf.md §4; glTF 2.0 §3.11).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include <meshoptimizer.h>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_keys.hpp"
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

// Compressed output's bounds (docs/gltf.md "Compressed output").
constexpr double key_error = 1.0 / 8192;
constexpr int rotation_filter_bits = 12;     // the quaternion filter's bits per component
constexpr int exponential_filter_bits = 16;  // the exponential filter's mantissa bits

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
        Pending p{std::move(keys), node, path, interpolation, rotation};
        // Compressed output thins the tracks together, once all are known (flush).
        if (ctx_.grid) pending_.push_back(std::move(p));
        else emit(p);
        return Ok{};
    }

    // Compressed output (docs/gltf.md "Compressed output"): a joint track that holds its node's
    // rest value within the bound at every key changes nothing and is left out, as gltfpack does,
    // unless the clip would lose its length or its last channel; the tracks that share key times
    // are thinned together, so they keep sharing one input accessor.
    void flush() {
        float end = 0;
        for (const Pending& p : pending_) end = std::max(end, p.keys.times.back());
        std::vector<bool> keep(pending_.size(), true);
        bool reaches_end = false, any = false;
        for (size_t i = 0; i < pending_.size(); ++i) {
            keep[i] = !at_rest(pending_[i]);
            if (!keep[i]) ++left_out_;
            any |= keep[i];
            reaches_end |= keep[i] && pending_[i].keys.times.back() == end;
        }
        for (size_t i = 0; i < pending_.size() && (!reaches_end || !any); ++i)
            if (!keep[i] && pending_[i].keys.times.back() == end) keep[i] = reaches_end = any = true, --left_out_;
        std::vector<bool> done(pending_.size(), false);
        for (size_t i = 0; i < pending_.size(); ++i) {
            if (!keep[i] || done[i]) continue;
            std::vector<size_t> group;
            for (size_t j = i; j < pending_.size(); ++j)
                if (keep[j] && !done[j] && pending_[j].keys.times == pending_[i].keys.times) group.push_back(j), done[j] = true;
            std::vector<float> times = pending_[i].keys.times;
            std::vector<KeyTrack> tracks;
            for (size_t j : group) {
                const Pending& p = pending_[j];
                tracks.push_back(KeyTrack{&pending_[j].keys.values, p.keys.width, p.rotation ? KeyKind::Rotation : KeyKind::Vector,
                                          p.interpolation == Interpolation::Step, tolerance(p.path)});
            }
            dropped_ += uint64_t(thin_shared_keys(times, tracks)) * group.size();
            for (size_t j : group) pending_[j].keys.times = times;
        }
        for (size_t i = 0; i < pending_.size(); ++i)
            if (keep[i]) emit(pending_[i]);
        pending_.clear();
    }

    AnimationDoc finish() { return std::move(doc_); }
    uint64_t dropped() const { return dropped_; }
    uint32_t left_out() const { return left_out_; }

private:
    struct Pending {
        Keys keys;
        uint32_t node;
        const char* path;
        Interpolation interpolation;
        bool rotation;
    };

    void emit(const Pending& p) {
        const bool weights = std::string_view(p.path) == "weights";  // keys x targets scalars
        AnimationSampler sampler;
        sampler.input = input(p.keys.times);
        sampler.output = ctx_.grid ? compressed_output(p.keys, p.rotation, weights) : ctx_.buffer.floats(p.keys.values, weights ? 1 : p.keys.width, 0, false);
        sampler.interpolation = p.interpolation == Interpolation::Step ? "STEP" : "LINEAR";
        doc_.samplers.push_back(sampler);
        doc_.channels.push_back(AnimationChannel{uint32_t(doc_.samplers.size() - 1), p.node, p.path});
    }

    // Every key within the bound of the joint node's rest value (morph weights are never left out).
    bool at_rest(const Pending& p) const {
        const std::string_view path = p.path;
        if (path == "weights" || p.node >= ctx_.rest.size()) return false;
        const Transform& rest = ctx_.rest[p.node];
        const double tol = tolerance(p.path);
        const std::vector<float>& v = p.keys.values;
        if (path == "rotation") {
            double n = 0;
            for (float c : rest.rotate) n += double(c) * c;
            n = std::sqrt(n);
            if (!(n > 0)) return false;
            for (size_t k = 0; k + 4 <= v.size(); k += 4) {
                double dot = 0;
                for (int i = 0; i < 4; ++i) dot += double(v[k + i]) * rest.rotate[i] / n;
                if (!(2 * std::acos(std::min(1.0, std::fabs(dot))) <= tol)) return false;
            }
            return true;
        }
        const Vec3& r = path == "translation" ? rest.translate : rest.scale;
        for (size_t k = 0; k + 3 <= v.size(); k += 3)
            for (int i = 0; i < 3; ++i)
                if (!(std::fabs(double(v[k + i]) - r[i]) <= tol)) return false;
        return true;
    }

    // The bound a thinned key keeps to (docs/gltf.md "Compressed output"): translations 1/8192 of
    // the model's longest side, rotations 1/8192 radian (a vertex as far as the longest side from
    // the joint moves as much), scales and morph weights 1/8192.
    double tolerance(std::string_view path) const {
        const double side = ctx_.grid->longest_side > 0 ? ctx_.grid->longest_side : 1.0;
        return path == "translation" ? side * key_error : key_error;
    }

    // Compressed output: rotations as normalized SHORT (through the quaternion filter with
    // --compress-level small), translations and scales through the exponential filter (small) or
    // as FLOAT; morph weights as FLOAT.
    uint32_t compressed_output(const Keys& keys, bool rotation, bool weights) {
        const size_t count = keys.times.size();
        if (rotation && ctx_.filters) {
            std::vector<uint8_t> bytes(count * 8);
            meshopt_encodeFilterQuat(bytes.data(), count, 8, rotation_filter_bits, keys.values.data());
            return ctx_.buffer.encoded(bytes, 8, 4, SHORT, true, 0, "QUATERNION");
        }
        if (rotation) {
            std::vector<int64_t> q;
            q.reserve(keys.values.size());
            for (float c : keys.values) q.push_back(std::clamp<int64_t>(std::llround(double(c) * 32767), -32767, 32767));
            return ctx_.buffer.integers(q, 4, SHORT, 0, true);
        }
        if (ctx_.filters && !weights && keys.width == 3) {
            std::vector<uint8_t> bytes(count * 12);
            meshopt_encodeFilterExp(bytes.data(), count, 12, exponential_filter_bits, keys.values.data());
            return ctx_.buffer.encoded(bytes, 12, 3, FLOAT, false, 0, "EXPONENTIAL");
        }
        return ctx_.buffer.floats(keys.values, weights ? 1 : keys.width, 0, false);
    }

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
    uint64_t dropped_ = 0;
    uint32_t left_out_ = 0;
    std::vector<Pending> pending_;
};

bool all_ones(const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float x) { return x == 1.0f; });
}

}  // namespace

Expected<Ok> write_animations(WriteContext& ctx) {
    const Scene& scene = ctx.scene;
    uint64_t dropped = 0, left_out = 0;
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
        writer.flush();
        dropped += writer.dropped();
        left_out += writer.left_out();
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
    if (ctx.grid && !scene.animations.empty())
        ctx.notes.push_back(fmt::format("animation keys: {} dropped, each within 1/8192 of its kept neighbours' interpolation "
                                        "(translations: of the longest side {:.6g}; rotations: radians); {} tracks holding their rest "
                                        "pose within that left out; rotations {}",
                                        dropped, ctx.grid->longest_side, left_out,
                                        ctx.filters ? "through the 12-bit quaternion filter, translations and scales the 16-bit exponential filter"
                                                    : "as normalized SHORT"));
    return Ok{};
}

}  // namespace rigport::gltf

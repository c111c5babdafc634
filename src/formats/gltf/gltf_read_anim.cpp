// glTF reader: animations (glTF 2.0 §3.11): translation / rotation / scale channels as joint tracks
// (LINEAR and STEP kept, rotations normalized), weights channels as morph-weight tracks, and
// CUBICSPLINE evaluated (Hermite, Appendix C) and resampled at LoadOptions::resample_rate.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

enum class Curve : uint8_t { Linear, Step, Cubic };

// One sampler's keys for a channel `width` values wide (a weights channel: one per target).
struct Keys {
    std::vector<float> times;
    std::vector<float> values;  // times.size() * width (cubic: in-tangent, value, out-tangent per key)
    Curve curve = Curve::Linear;
};

// The Hermite spline of a CUBICSPLINE sampler sampled at its keys and at every multiple of
// 1 / rate between them (times made as float(i) / rate, as frame_pose makes frame times).
bool resample(Reader& r, Keys& k, uint32_t width, const std::string& path) {
    const size_t n = k.times.size();
    const float rate = r.options.resample_rate;
    if (!(rate > 0) || !std::isfinite(rate)) return r.fail(ErrorCode::InvalidArgument, path, fmt::format("resample_rate {} is not a positive rate", rate));
    const double span = (double(k.times.back()) - k.times.front()) * rate;
    if (!(span + n <= double(r.options.max_elements)))
        return r.fail(ErrorCode::LimitExceeded, path, fmt::format("resampling {} s at {} per second exceeds max_elements", k.times.back() - k.times.front(), rate));
    std::vector<float> times;
    for (size_t i = 0; i < n; ++i) {
        times.push_back(k.times[i]);
        if (i + 1 == n) break;
        for (double g = std::floor(double(k.times[i]) * rate) + 1;; ++g) {
            const float t = float(g) / rate;
            if (!(t < k.times[i + 1])) break;
            if (t > times.back()) times.push_back(t);
        }
    }
    if (!r.spend(times.size() * width, path)) return false;
    std::vector<float> values;
    values.reserve(times.size() * width);
    size_t key = 0;
    auto at = [&](size_t i, int part, uint32_t c) { return double(k.values[(i * 3 + part) * width + c]); };
    for (float t : times) {
        while (key + 1 < n && k.times[key + 1] <= t) ++key;
        if (key + 1 == n || t == k.times[key]) {
            for (uint32_t c = 0; c < width; ++c) values.push_back(float(at(key, 1, c)));
            continue;
        }
        const double td = double(k.times[key + 1]) - k.times[key], s = (t - double(k.times[key])) / td;
        const double s2 = s * s, s3 = s2 * s;
        for (uint32_t c = 0; c < width; ++c)
            values.push_back(float((2 * s3 - 3 * s2 + 1) * at(key, 1, c) + td * (s3 - 2 * s2 + s) * at(key, 2, c) +
                                   (-2 * s3 + 3 * s2) * at(key + 1, 1, c) + td * (s3 - s2) * at(key + 1, 0, c)));
    }
    k.times = std::move(times);
    k.values = std::move(values);
    k.curve = Curve::Linear;
    return true;
}

class AnimationReader {
public:
    AnimationReader(Reader& r, const Plan& plan, uint32_t index) : r_(r), plan_(plan), path_(fmt::format("/animations/{}", index)) {}
    bool run(uint32_t index);

private:
    bool read_keys(const Json& sampler, const std::string& path, uint32_t width, bool weights, Keys& out);
    bool channel(const Json& channel, const Json& samplers, const std::string& path);

    Reader& r_;
    const Plan& plan_;
    std::string path_;
    Animation anim_;
    std::set<std::pair<uint32_t, std::string>> targets_;
    uint32_t resampled_ = 0;
};

bool AnimationReader::read_keys(const Json& sampler, const std::string& path, uint32_t width, bool weights, Keys& out) {
    uint32_t input = 0, output = 0;
    std::string interpolation = "LINEAR";
    const size_t accessors = r_.count("accessors");
    if (!r_.index(sampler, "input", path, input, true, "accessors", accessors) || !r_.index(sampler, "output", path, output, true, "accessors", accessors) ||
        !r_.string(sampler, "interpolation", path, interpolation))
        return false;
    if (interpolation == "LINEAR") out.curve = Curve::Linear;
    else if (interpolation == "STEP") out.curve = Curve::Step;
    else if (interpolation == "CUBICSPLINE") out.curve = Curve::Cubic;
    else return r_.malformed(path + "/interpolation", fmt::format("'{}' is not LINEAR, STEP or CUBICSPLINE", detail::excerpt(interpolation)));
    const Accessor* in = r_.accessor(input);
    const Accessor* values = in ? r_.accessor(output) : nullptr;
    if (!values) return false;
    if (in->components != 1) return r_.malformed(path + "/input", fmt::format("accessor {} is {}, not SCALAR", input, in->type));
    if (!r_.spend(in->count * width, path)) return false;
    out.times.resize(in->count);
    for (uint64_t k = 0; k < in->count; ++k) {
        out.times[k] = float(in->value(k, 0));
        if (!std::isfinite(out.times[k]) || (k > 0 && !(out.times[k] > out.times[k - 1])))
            return r_.malformed(in->path, fmt::format("key time {} of {} does not increase (key times must rise strictly)", k, out.times[k]));
    }
    const uint64_t per_key = (out.curve == Curve::Cubic ? 3 : 1) * uint64_t(weights ? width : 1);
    const uint32_t components = weights ? 1 : width;
    if (values->components != components || values->count != in->count * per_key)
        return r_.malformed(path + "/output", fmt::format("accessor {} is {} x {}; {} keys need {} x {}", output, values->type, values->count, in->count,
                                                          components == 1 ? "SCALAR" : components == 3 ? "VEC3" : "VEC4", in->count * per_key));
    out.values.resize(in->count * per_key * components);
    for (uint64_t e = 0; e < values->count; ++e)
        for (uint32_t c = 0; c < components; ++c) {
            const float v = float(values->value(e, c));
            if (!std::isfinite(v)) return r_.malformed(values->path, fmt::format("element {} is not finite", e));
            out.values[e * components + c] = v;
        }
    if (out.curve == Curve::Cubic) {
        ++resampled_;
        return resample(r_, out, width, path);
    }
    return true;
}

bool AnimationReader::channel(const Json& ch, const Json& samplers, const std::string& path) {
    uint32_t sampler = 0, node = none;
    std::string what;
    const Json* target = r_.object(ch, "target", path);
    if (!r_.ok() || !r_.index(ch, "sampler", path, sampler, true, "samplers", samplers.size())) return false;
    if (!target) return r_.malformed(path + "/target", "missing");
    if (!r_.index(*target, "node", path + "/target", node, false, "nodes", plan_.nodes.size()) || !r_.string(*target, "path", path + "/target", what)) return false;
    const bool weights = what == "weights";
    if (!weights && what != "translation" && what != "rotation" && what != "scale" && what != "pointer")
        return r_.malformed(path + "/target/path", fmt::format("'{}' is not translation, rotation, scale or weights", detail::excerpt(what)));
    if (node == none || what == "pointer") {  // KHR_animation_pointer and channels without a node
        r_.warn(WarningCode::DroppedData, fmt::format("animation channels targeting '{}'{} are not read", detail::excerpt(what), node == none ? " without a node" : ""));
        return true;
    }
    if (!plan_.nodes[node].in_scene) {
        r_.warn(WarningCode::DroppedData, "animation channels of nodes outside the scene read were ignored");
        return true;
    }
    if (!targets_.insert({node, what}).second) {
        r_.warn(WarningCode::DroppedData, fmt::format("{}: a second {} channel for node {} ignored", path, what, node));
        return true;
    }
    const Json& s = samplers[sampler];
    const std::string spath = fmt::format("{}/samplers/{}", path_, sampler);
    if (!s.is_object()) return r_.malformed(spath, "expected an object");
    Keys keys;
    if (weights) {
        const auto& meshes = plan_.node_meshes[node];
        const uint32_t width = meshes.empty() ? 0 : uint32_t(r_.scene.meshes[meshes[0]].morph_targets.size());
        if (width == 0) {
            r_.warn(WarningCode::DroppedData, fmt::format("{}: weights channel of node {}, which has no morph targets; ignored", path, node));
            return true;
        }
        if (!read_keys(s, spath, width, true, keys)) return false;
        for (uint32_t m : meshes) {
            if (r_.scene.meshes[m].morph_targets.size() != width) {
                // The spec wants every primitive of a mesh to have as many targets; one that does
                // not cannot be driven by this channel's weights.
                r_.warn(WarningCode::DroppedData, fmt::format("{}: weights channel of node {} has {} weights per key, but a primitive of its "
                                                              "mesh has {} morph targets; that primitive keeps its default weights",
                                                              path, node, width, r_.scene.meshes[m].morph_targets.size()));
                continue;
            }
            anim_.morph_tracks.push_back({m, keys.curve == Curve::Step ? Interpolation::Step : Interpolation::Linear, keys.times, keys.values});
        }
        return true;
    }
    const Channel channel = what == "translation" ? Channel::Translation : what == "rotation" ? Channel::Rotation : Channel::Scale;
    const uint32_t width = channel == Channel::Rotation ? 4 : 3;
    if (!read_keys(s, spath, width, false, keys)) return false;
    if (plan_.nodes[node].joint < 0) return r_.malformed(path, fmt::format("node {} was not made a joint", node));  // build_skeleton marks them all
    const uint32_t joint = uint32_t(plan_.nodes[node].joint);
    const Fold& fold = plan_.fold[joint];
    for (size_t k = 0; k < keys.times.size(); ++k) {
        float* v = &keys.values[k * width];
        if (channel == Channel::Rotation) {
            double n = 0;
            for (uint32_t c = 0; c < 4; ++c) n += double(v[c]) * v[c];
            n = std::sqrt(n);
            if (!(n > 1e-6)) {
                r_.warn(WarningCode::NonUnitQuaternion, "zero rotation keys read as identity");
                v[0] = v[1] = v[2] = 0, v[3] = 1, n = 1;
            }
            for (uint32_t c = 0; c < 4; ++c) v[c] = float(v[c] / n);
            const Quat q = fold.rotation({v[0], v[1], v[2], v[3]});
            std::copy(q.begin(), q.end(), v);
        } else {
            const Vec3 p = channel == Channel::Translation ? fold.point({v[0], v[1], v[2]}) : fold.scaled({v[0], v[1], v[2]});
            std::copy(p.begin(), p.end(), v);
        }
    }
    anim_.tracks.push_back({joint, channel, keys.curve == Curve::Step ? Interpolation::Step : Interpolation::Linear, std::move(keys.times), std::move(keys.values)});
    return true;
}

bool AnimationReader::run(uint32_t index) {
    const Json* a = r_.item("animations", index);
    const Json* channels = a ? r_.array(*a, "channels", path_) : nullptr;
    const Json* samplers = a ? r_.array(*a, "samplers", path_) : nullptr;
    const Json* extras = a ? r_.object(*a, "extras", path_) : nullptr;
    if (!r_.ok() || !r_.string(*a, "name", path_, anim_.name)) return false;
    if (!channels || !samplers) return r_.malformed(path_, "needs channels and samplers");
    if (anim_.name.empty()) anim_.name = fmt::format("animation_{}", index);
    // rigport's own glTF output keeps the loop flag and frame rate in extras (gltf_document.cpp).
    float rate = 0;
    if (extras && (!r_.boolean(*extras, "loop", path_ + "/extras", anim_.loop) || !r_.number(*extras, "frameRate", path_ + "/extras", rate))) return false;
    if (rate > 0) anim_.frame_rate = rate;
    for (size_t c = 0; c < channels->size(); ++c) {
        const std::string path = fmt::format("{}/channels/{}", path_, c);
        if (!(*channels)[c].is_object()) return r_.malformed(path, "expected an object");
        if (!channel((*channels)[c], *samplers, path)) return false;
    }
    if (resampled_)
        r_.warn(WarningCode::KeysAdjusted, fmt::format("animation '{}': {} CUBICSPLINE channels resampled at {} keys per second", detail::excerpt(anim_.name), resampled_, r_.options.resample_rate));
    if (anim_.tracks.empty() && anim_.morph_tracks.empty()) {
        r_.warn(WarningCode::DroppedData, fmt::format("animation '{}' has no channel rigport can hold; dropped", detail::excerpt(anim_.name)));
        return true;
    }
    // Keys far apart in time are kept as keys: only a frame-based writer, which must sample
    // them, refuses a clip beyond LoadOptions::max_frames (core/frame_budget).
    r_.scene.animations.push_back(std::move(anim_));
    return true;
}

}  // namespace

bool read_animations(Reader& r, const Plan& plan) {
    for (uint32_t a = 0; a < r.count("animations"); ++a)
        if (!AnimationReader(r, plan, a).run(a)) return false;
    return true;
}

}  // namespace rigport::gltf::read_detail

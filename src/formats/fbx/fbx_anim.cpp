// FBX animation (docs/fbx.md §2.6): each take (fbx_layers) sampled at its keys into a rigport animation.
#include "formats/fbx/fbx_anim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "model/decompose.hpp"
#include "formats/fbx/fbx_layers.hpp"

namespace rigport::fbx {

namespace {

constexpr uint32_t none = UINT32_MAX;

bool same(const Transform& a, const Transform& b) {
    for (int k = 0; k < 3; ++k)
        if (std::fabs(a.translate[k] - b.translate[k]) > 1e-6f || std::fabs(a.scale[k] - b.scale[k]) > 1e-6f) return false;
    const float dot = a.rotate[0] * b.rotate[0] + a.rotate[1] * b.rotate[1] + a.rotate[2] * b.rotate[2] + a.rotate[3] * b.rotate[3];
    return std::fabs(dot) > 1 - 1e-7f;
}

}  // namespace

float frame_rate_of(const Document& doc) {
    Object o;
    o.properties = settings_properties(doc);
    // FbxTime::EMode: 1 120, 2 100, 3 60, 4 50, 5 48, 6 30, 7 30 drop, 8 29.97 drop, 9 29.97,
    // 10 25, 11 24, 12 1000, 13 23.976, 14 custom, 15 96, 16 72, 17 59.94, 18 119.88.
    static constexpr float rates[] = {0, 120, 100, 60, 50, 48, 30, 30, 29.97f, 29.97f, 25, 24, 1000, 23.976f, 0, 96, 72, 59.94f, 119.88f};
    const double mode = property_number(o, "TimeMode", -1);
    if (mode < 0) {  // 6.x without it: Version5/Settings/FrameRate: "24"; 5.x: a top-level Settings
        const Node* v5 = doc.root.child("Version5");
        const Node* settings = v5 ? v5->child("Settings") : doc.root.child("Settings");
        const Node* fr = settings ? settings->child("FrameRate") : nullptr;
        if (!fr || fr->properties.empty()) return 0.0f;
        const Property& p = fr->properties[0];
        double r = p.is_number() ? p.number : 0;
        if (p.type == 'S') {
            const std::string text(p.text);
            char* end = nullptr;
            r = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end) r = 0;
        }
        return r > 0 && r < 1e6 ? float(r) : 0.0f;
    }
    if (mode == 14) {
        const double custom = property_number(o, "CustomFrameRate", 0);
        return custom > 0 && custom < 1e6 ? float(custom) : 0.0f;
    }
    return mode >= 0 && mode < 19 && mode == std::floor(mode) ? rates[size_t(mode)] : 0.0f;
}

bool read_animations(const Document& doc, const ModelGraph& g, const LoadOptions& options, Scene& scene, Error& error) {
    const Objects& objects = *g.objects;
    std::vector<uint32_t> model_of(objects.list.size(), none);
    for (uint32_t m = 0; m < g.models.size(); ++m) model_of[g.models[m]] = m;
    const float rate = frame_rate_of(doc);
    TakeCounts counts;
    size_t empty_stacks = 0;
    CurveStore curves;                 // 7.x: by object index, read once
    std::deque<Curve> channel_curves;  // 6.x
    std::vector<Take> takes;
    if (!(doc.version < 7000 ? gather_takes(doc, objects, model_of, channel_curves, takes, counts, error)
                             : gather_stacks(objects, model_of, curves, takes, counts, error)))
        return false;

    for (Take& take : takes) {
        if (!take.first_key) {  // nothing moves in this take: no animation to give
            ++empty_stacks;
            continue;
        }
        // A take is one clip: its window (docs/fbx.md, "Takes") cut from the file's timeline and
        // moved to start at 0, as the FBX SDK and ufbx give a stack's time span. A take without a
        // window of its own, or with an empty one, spans its keys. A joint's samples are the keys
        // that move it inside the window, and the window's start and stop themselves (the pose
        // there, between keys or held from the nearest one).
        const bool own_window = take.start && take.stop && *take.stop > *take.start;
        const int64_t start = own_window ? *take.start : *take.first_key;
        const int64_t stop = own_window ? *take.stop : *take.last_key;
        if (int64_t span = 0; __builtin_sub_overflow(stop, start, &span)) {  // times as read: any 64-bit values
            error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': its time span from {} to {} ticks is out of range",
                                                                     detail::excerpt(take.name), start, stop));
            return false;
        }
        // The take's frame: its start and stop, and with LoadOptions::resample_curves every
        // 1/resample_rate s (on ticks, so times stay exact).
        std::vector<int64_t> frame = {start};
        if (stop > start) frame.push_back(stop);
        if (options.resample_curves) {
            const double rate_hz = options.resample_rate;
            if (!(rate_hz > 0) || !std::isfinite(rate_hz)) {
                error = make_error(ErrorCode::InvalidArgument, fmt::format("resample_rate {} is not a positive rate", rate_hz));
                return false;
            }
            const double step = ticks_per_second / rate_hz;
            const double count = std::floor(double(stop - start) / step);
            if (count > double(options.max_elements)) {
                error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} resampled keys is more than {} (LoadOptions::max_elements)",
                                                                         detail::excerpt(take.name), count, options.max_elements));
                return false;
            }
            for (double k = 1; k <= count; ++k) frame.push_back(start + int64_t(std::llround(k * step)));
        }
        std::sort(frame.begin(), frame.end());
        frame.erase(std::unique(frame.begin(), frame.end()), frame.end());
        while (frame.size() > 1 && frame.back() > stop) frame.pop_back();
        // `base` (sorted, each once) plus the key times within (start, stop) of `keys` (sorted,
        // each once), sorted, each once.
        std::vector<int64_t> scratch;
        auto samples_with = [&](const std::vector<int64_t>& base, const std::vector<int64_t>& keys) {
            const auto from = std::upper_bound(keys.begin(), keys.end(), start);
            const auto to = std::lower_bound(from, keys.end(), stop);
            std::vector<int64_t> out = base;
            merge_times(out, std::span<const int64_t>(keys.data() + (from - keys.begin()), size_t(to - from)), scratch);
            return out;
        };

        // Each joint is placed at the key times of the curves that move it or its ancestors
        // (its samples), and its ancestors at those times too; a joint that nothing in its chain
        // moves is placed once (docs/fbx.md §2.6 "Sampling"). The work is the placements made:
        // counted against LoadOptions::max_elements before any is made.
        const size_t joints = scene.skeleton.joints.size();
        std::vector<bool> moving(joints);
        std::vector<std::vector<int64_t>> samples(joints), needed(joints);
        std::vector<std::vector<uint32_t>> moving_children(joints);
        uint64_t work = 0;
        auto over_budget = [&](uint64_t more) {
            work += more;
            if (work <= options.max_elements) return false;
            error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': placing {} joints at the key times that move them takes more than {} "
                                                                     "poses (LoadOptions::max_elements)", detail::excerpt(take.name), joints, options.max_elements));
            return true;
        };
        std::vector<int64_t> key_times;
        for (size_t j = 0; j < joints; ++j) {  // parent-first
            const int32_t p = scene.skeleton.joints[j].parent;
            key_times.clear();
            model_key_times(take, g.joint_model[j], key_times);
            moving[j] = !key_times.empty() || (p >= 0 && moving[size_t(p)]);
            if (!moving[j]) {
                if (over_budget(1)) return false;
                continue;
            }
            samples[j] = samples_with(p >= 0 && moving[size_t(p)] ? samples[size_t(p)] : frame, key_times);
            if (over_budget(samples[j].size())) return false;
            if (p >= 0 && moving[size_t(p)]) moving_children[size_t(p)].push_back(uint32_t(j));
        }
        // When every joint inherits as RSrs (FBX's default, and what Blender, Maya and Mixamo
        // write), a joint's world is its parent's world times its local matrix, so its pose
        // relative to its parent is its local matrix: no joint needs placing in the world, and
        // each pose is its own transform at its samples (docs/fbx.md §2.6 "Sampling"). The
        // samples are the same as below; only the arithmetic is less.
        std::vector<std::vector<Transform>> poses(joints);
        const bool all_rsrs = std::all_of(g.joint_model.begin(), g.joint_model.end(),
                                          [&](uint32_t m) { return g.transforms[m].inherit_type == 1; });
        if (all_rsrs) {
            for (size_t j = 0; j < joints; ++j) {
                const uint32_t m = g.joint_model[j];
                bool sheared = false;
                if (!moving[j] || !animates_model(take, m)) {
                    poses[j].push_back(decompose(g.local[m], sheared));
                    continue;
                }
                poses[j].reserve(samples[j].size());
                for (int64_t t : samples[j]) {
                    const NodeTransform nt = animated_transform(take, m, g.transforms[m], t);
                    poses[j].push_back(decompose(local_matrix(nt, rotation_part(nt)), sheared));
                }
            }
        }
        // A moving joint is placed at its own samples and at its moving descendants' (a superset
        // of its parent's samples: each child's times lie in its parent's).
        for (size_t j = joints; !all_rsrs && j-- > 0;) {
            if (!moving[j]) continue;
            if (moving_children[j].empty()) {
                needed[j] = samples[j];
                continue;
            }
            std::vector<int64_t> all = samples[j];
            for (uint32_t c : moving_children[j]) merge_times(all, needed[c], scratch);
            if (over_budget(all.size() - samples[j].size())) return false;
            needed[j] = std::move(all);
        }

        // Parent-first: a still joint's one place, a moving joint's place at each needed time
        // (kept until its last moving child is placed) and its pose at each of its samples.
        const size_t placed_joints = all_rsrs ? 0 : joints;
        std::vector<Placement> still_place(placed_joints);
        std::vector<std::vector<Placement>> moving_place(placed_joints);
        std::vector<size_t> children_left(placed_joints);
        for (size_t j = 0; j < placed_joints; ++j) children_left[j] = moving_children[j].size();
        for (size_t j = 0; !all_rsrs && j < joints; ++j) {
            const uint32_t m = g.joint_model[j];
            const int32_t p = scene.skeleton.joints[j].parent;
            const bool animated = animates_model(take, m);
            auto place_at = [&](int64_t t, const Placement* parent) {
                if (!animated) return place(g.transforms[m], g.local[m], parent);
                const NodeTransform nt = animated_transform(take, m, g.transforms[m], t);
                const Mat4 rotation = rotation_part(nt);
                return place(nt, local_matrix(nt, rotation), rotation, parent);
            };
            auto relative = [&](const Mat4& world, const Placement* parent) {
                bool sheared = false;
                return decompose(parent ? multiply(inverse_affine(parent->world), world) : world, sheared);
            };
            if (!moving[j]) {
                const Placement* parent = p >= 0 ? &still_place[size_t(p)] : nullptr;
                still_place[j] = place_at(frame[0], parent);
                poses[j].push_back(relative(still_place[j].world, parent));
                continue;
            }
            const std::vector<int64_t>& times = needed[j];
            const bool moving_parent = p >= 0 && moving[size_t(p)];
            const std::vector<int64_t>* parent_times = moving_parent ? &needed[size_t(p)] : nullptr;
            std::vector<Placement>& placed = moving_place[j];
            placed.resize(times.size());
            // The parent's place at each of the times: its needed times hold them all.
            std::vector<const Placement*> parents(times.size(), p >= 0 ? &still_place[size_t(p)] : nullptr);
            if (moving_parent)
                for (size_t i = 0, k = 0; i < times.size(); ++i) {
                    while ((*parent_times)[k] < times[i]) ++k;
                    parents[i] = &moving_place[size_t(p)][k];
                }
            for (size_t i = 0; i < times.size(); ++i) placed[i] = place_at(times[i], parents[i]);
            poses[j].reserve(samples[j].size());
            for (size_t i = 0, k = 0; i < samples[j].size(); ++i) {
                while (times[k] < samples[j][i]) ++k;
                poses[j].push_back(relative(placed[k].world, parents[k]));
            }
            if (moving_parent && --children_left[size_t(p)] == 0) std::vector<Placement>().swap(moving_place[size_t(p)]);
            if (children_left[j] == 0) std::vector<Placement>().swap(placed);
        }

        Animation anim;
        anim.name = take.name;
        anim.frame_rate = rate;
        anim.source_start = double(start) / ticks_per_second;
        for (size_t j = 0; j < joints; ++j) {
            const auto& p = poses[j];
            const std::vector<int64_t>& times = moving[j] ? samples[j] : frame;
            // A joint that holds one pose all through: one key, or none where that is its bind pose.
            const bool still = std::all_of(p.begin(), p.end(), [&](const Transform& t) { return same(t, p[0]); });
            if (still && same(p[0], scene.skeleton.joints[j].bind)) continue;
            const size_t keys = still ? 1 : p.size();
            JointTrack tracks[3];
            for (int c = 0; c < 3; ++c) {
                tracks[c].joint = uint32_t(j);
                tracks[c].channel = c == 0 ? Channel::Translation : c == 1 ? Channel::Rotation : Channel::Scale;
            }
            for (size_t i = 0; i < keys; ++i) {
                const float time = float(double(times[i] - start) / ticks_per_second);
                Quat q = p[i].rotate;
                if (i > 0) {  // the shorter arc from the previous key
                    const float* prev = &tracks[1].values[tracks[1].values.size() - 4];
                    if (prev[0] * q[0] + prev[1] * q[1] + prev[2] * q[2] + prev[3] * q[3] < 0)
                        for (float& v : q) v = -v;
                }
                for (auto& t : tracks) t.times.push_back(time);
                tracks[0].values.insert(tracks[0].values.end(), p[i].translate.begin(), p[i].translate.end());
                tracks[1].values.insert(tracks[1].values.end(), q.begin(), q.end());
                tracks[2].values.insert(tracks[2].values.end(), p[i].scale.begin(), p[i].scale.end());
            }
            for (auto& t : tracks) anim.tracks.push_back(std::move(t));
        }
        // Morph weights of every mesh with a driven channel, at the frame and the key times of
        // the curves that drive its channels.
        std::map<uint32_t, std::vector<const MorphBinding*>> by_mesh;
        for (const MorphBinding& b : g.bindings)
            if (animates_shape(take, b.channel)) by_mesh[b.mesh].push_back(&b);
        for (const auto& [mesh, driven] : by_mesh) {
            const Mesh& m = scene.meshes[mesh];
            key_times.clear();
            for (const MorphBinding* b : driven) shape_key_times(take, b->channel, key_times);
            const std::vector<int64_t> times = samples_with(frame, key_times);
            if (uint64_t(times.size()) * m.morph_targets.size() > options.max_elements) {
                error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} key times x {} morph targets of mesh '{}' is more than {} (LoadOptions::max_elements)",
                                                                         detail::excerpt(take.name), times.size(), m.morph_targets.size(), detail::excerpt(m.name), options.max_elements));
                return false;
            }
            MorphWeightTrack w;
            w.mesh = mesh;
            for (size_t i = 0; i < times.size(); ++i) {
                w.times.push_back(float(double(times[i] - start) / ticks_per_second));
                for (const MorphTarget& t : m.morph_targets) w.weights.push_back(t.default_weight);
                float* row = &w.weights[w.weights.size() - m.morph_targets.size()];
                for (const MorphBinding* b : driven)
                    row[b->target] = float(shape_weight(*b->full_weights, b->shape, animated_percent(take, b->channel, b->percent, times[i])));
            }
            anim.morph_tracks.push_back(std::move(w));
        }
        // Keys that hold every joint at its bind pose still make an animation (a rest pose
        // clip): the first joint's pose as one key keeps it in formats that need a channel.
        // It keeps the window's length: a key at its start and one at its stop.
        if (anim.tracks.empty() && anim.morph_tracks.empty() && joints > 0) {
            const Transform& b = scene.skeleton.joints[0].bind;
            const float length = float(double(stop - start) / ticks_per_second);
            const std::vector<float> times = length > 0 ? std::vector<float>{0.0f, length} : std::vector<float>{0.0f};
            auto repeated = [&](auto begin, auto end) {
                std::vector<float> v;
                for (size_t i = 0; i < times.size(); ++i) v.insert(v.end(), begin, end);
                return v;
            };
            anim.tracks.push_back({0, Channel::Translation, Interpolation::Linear, times, repeated(b.translate.begin(), b.translate.end())});
            anim.tracks.push_back({0, Channel::Rotation, Interpolation::Linear, times, repeated(b.rotate.begin(), b.rotate.end())});
            anim.tracks.push_back({0, Channel::Scale, Interpolation::Linear, times, repeated(b.scale.begin(), b.scale.end())});
        }
        scene.animations.push_back(std::move(anim));
    }
    if (empty_stacks)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} animation stacks without keys on the models' transforms left out", empty_stacks));
    if (counts.muted_layers)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} muted animation layers left out", counts.muted_layers));
    if (counts.other_properties)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} animated properties other than Lcl Translation / Rotation / Scaling and DeformPercent not read", counts.other_properties));
    return true;
}

}  // namespace rigport::fbx

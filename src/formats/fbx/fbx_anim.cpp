// FBX 7.x animation stacks (docs/fbx.md §2.6).
#include "formats/fbx/fbx_anim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/decompose.hpp"

namespace rigport::fbx {

namespace {

constexpr double ticks_per_second = 46186158000.0;
constexpr uint32_t none = UINT32_MAX;

// KeyAttrFlags' interpolation bits (FbxAnimCurveDef::EInterpolationType).
constexpr int64_t interpolation_constant = 0x2, interpolation_cubic = 0x8;

struct Curve {
    std::vector<int64_t> times;   // ticks, ascending
    std::vector<double> values;
    std::vector<int64_t> flags;   // per key
};

Error error_at(const Node& node, std::string message) {
    Error e = make_error(ErrorCode::Malformed, std::move(message));
    if (node.line) e.line = node.line, e.column = 1;
    else e.offset = node.offset;
    return e;
}

bool read_curve(const Object& o, Curve& c, Error& error) {
    const Node& n = *o.node;
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
    for (size_t k = 1; k < c.times.size(); ++k)
        if (c.times[k] < c.times[k - 1]) {
            error = error_at(*times, fmt::format("animation curve: key {} at {} comes before key {} at {}", k, c.times[k], k - 1, c.times[k - 1]));
            return false;
        }
    for (double v : c.values)
        if (!std::isfinite(v)) {
            error = error_at(*values, "animation curve: a key value that is not a finite number");
            return false;
        }
    // Flags come run-length coded: flag i applies to KeyAttrRefCount[i] keys in a row.
    std::vector<int64_t> flags, counts;
    const Node* f = n.child("KeyAttrFlags");
    const Node* r = n.child("KeyAttrRefCount");
    if (f && r && f->integers_of(flags) && r->integers_of(counts) && flags.size() == counts.size())
        for (size_t i = 0; i < flags.size() && c.flags.size() < c.times.size(); ++i)
            for (int64_t k = 0; k < counts[i] && c.flags.size() < c.times.size(); ++k) c.flags.push_back(flags[i]);
    c.flags.resize(c.times.size(), 0x4);  // linear where the file says nothing
    return true;
}

// The curve's value at tick t: held before the first and after the last key, a constant key
// holds to the next, others are read linearly (cubic ones too: said in a warning).
double evaluate(const Curve& c, int64_t t) {
    if (t <= c.times.front()) return c.values.front();
    if (t >= c.times.back()) return c.values.back();
    const size_t k = size_t(std::upper_bound(c.times.begin(), c.times.end(), t) - c.times.begin()) - 1;
    if (c.flags[k] & interpolation_constant) return c.values[k];
    const double span = double(c.times[k + 1] - c.times[k]);
    const double a = span > 0 ? double(t - c.times[k]) / span : 0;
    return c.values[k] + (c.values[k + 1] - c.values[k]) * a;
}

// One model's animated channels in a layer: [translation, rotation, scaling][x, y, z].
struct Channels {
    std::array<std::array<const Curve*, 3>, 3> curves{};
    std::array<std::optional<D3>, 3> defaults;
};

// One animation's keys before sampling: per model, its curves; all their key times; the span.
struct Take {
    std::string name;
    std::optional<int64_t> start, stop;
    std::map<uint32_t, Channels> animated;  // by model
    std::map<uint32_t, const Curve*> weights;  // DeformPercent by blend shape channel object
    std::vector<int64_t> times;
};

struct Counts {
    size_t extra_layers = 0, cubic = 0, other_properties = 0, empty_stacks = 0;
};

void add_curve(Take& take, Channels& ch, int channel, int k, const Curve& c) {
    if (c.times.empty()) return;
    ch.curves[size_t(channel)][size_t(k)] = &c;
    take.times.insert(take.times.end(), c.times.begin(), c.times.end());
}

// 7.x: AnimationStack -> AnimationLayer (the first) -> AnimationCurveNode (OP to a Model's
// property) -> AnimationCurve (OP as d|X d|Y d|Z).
bool gather_stacks(const Objects& objects, const std::vector<uint32_t>& model_of, std::map<uint32_t, Curve>& curves, std::vector<Take>& takes,
                   Counts& counts, Error& error) {
    // Each AnimationCurve read once however many nodes share it; null after a read error.
    auto curve_of = [&](uint32_t object) -> const Curve* {
        auto it = curves.find(object);
        if (it == curves.end()) {
            Curve c;
            if (!read_curve(objects[object], c, error)) return nullptr;
            for (int64_t f : c.flags) counts.cubic += (f & interpolation_cubic) != 0;
            it = curves.emplace(object, std::move(c)).first;
        }
        return &it->second;
    };
    for (uint32_t s = 0; s < objects.list.size(); ++s) {
        const Object& stack = objects[s];
        if (stack.kind != "AnimationStack") continue;
        Take& take = takes.emplace_back();
        take.name = stack.name;
        size_t first = 0;
        if (const Node* p = find_property(stack, "LocalStart", first); p && p->properties.size() > first && p->properties[first].is_number())
            take.start = p->properties[first].integer;
        if (const Node* p = find_property(stack, "LocalStop", first); p && p->properties.size() > first && p->properties[first].is_number())
            take.stop = p->properties[first].integer;
        const auto layers = objects.children_of(s, "AnimationLayer");
        if (layers.size() > 1) counts.extra_layers += layers.size() - 1;
        if (layers.empty()) continue;
        for (uint32_t cn : objects.children_of(layers[0], "AnimationCurveNode")) {
            // The curve node drives one property of one model.
            uint32_t model = none;
            int channel = -1;
            for (const Link& l : objects.parents[cn]) {
                if (objects[l.object].kind != "Model") continue;
                channel = l.property == "Lcl Translation" ? 0 : l.property == "Lcl Rotation" ? 1 : l.property == "Lcl Scaling" ? 2 : -1;
                model = model_of[l.object];
                break;
            }
            if (model == none) {
                // A blend shape channel's DeformPercent: a morph weight (percent) over time.
                for (const Link& l : objects.parents[cn]) {
                    if (objects[l.object].kind != "Deformer" || l.property != "DeformPercent") continue;
                    for (const Link& c : objects.children[cn]) {
                        if (objects[c.object].kind != "AnimationCurve" || c.property != "d|DeformPercent") continue;
                        const Curve* curve = curve_of(c.object);
                        if (!curve) return false;
                        if (curve->times.empty()) continue;
                        take.weights[l.object] = curve;
                        take.times.insert(take.times.end(), curve->times.begin(), curve->times.end());
                    }
                }
                continue;
            }
            if (channel < 0) {
                ++counts.other_properties;
                continue;
            }
            Channels& ch = take.animated[model];
            const Object& node = objects[cn];
            D3 d{};
            bool has_default = true;
            for (int k = 0; k < 3; ++k) {
                const Node* p = find_property(node, std::string("d|") + char('X' + k), first);
                if (!p || p->properties.size() <= first || !p->properties[first].is_number()) has_default = false;
                else d[size_t(k)] = p->properties[first].number;
            }
            if (has_default) ch.defaults[size_t(channel)] = d;
            for (const Link& l : objects.children[cn]) {
                if (objects[l.object].kind != "AnimationCurve" || l.property.size() != 3 || l.property.substr(0, 2) != "d|") continue;
                const int k = l.property[2] - 'X';
                if (k < 0 || k > 2) continue;
                const Curve* curve = curve_of(l.object);
                if (!curve) return false;
                add_curve(take, ch, channel, k, *curve);
            }
        }
    }
    return true;
}

// 6.x key lists: time, value, interpolation (L linear, C constant, U cubic) and what the
// interpolation carries (C: a letter; U: letters and slopes or weights), then the next key.
bool is_key_start(const std::vector<Property>& p, size_t i) {
    return i + 2 < p.size() && p[i].type == 'L' && p[i + 1].is_number() && p[i + 2].type == 'W' &&
           (p[i + 2].text == "L" || p[i + 2].text == "C" || p[i + 2].text == "U");
}

bool read_channel_keys(const Node& channel, Curve& c, Error& error) {
    const Node* key = channel.child("Key");
    if (!key) return true;
    const auto& p = key->properties;
    for (size_t i = 0; i < p.size();) {
        if (!is_key_start(p, i)) {
            error = error_at(*key, fmt::format("animation channel: value {} does not start a key (time, value, L / C / U)", i));
            return false;
        }
        c.times.push_back(p[i].integer);
        c.values.push_back(p[i + 1].number);
        const std::string_view kind = p[i + 2].text;
        c.flags.push_back(kind == "C" ? interpolation_constant : kind == "U" ? interpolation_cubic : 0x4);
        for (i += 3; i < p.size() && !is_key_start(p, i);) ++i;
    }
    for (size_t k = 1; k < c.times.size(); ++k)
        if (c.times[k] < c.times[k - 1] || !std::isfinite(c.values[k])) {
            error = error_at(*key, fmt::format("animation channel: key {} is out of order or not a finite number", k));
            return false;
        }
    if (!c.values.empty() && !std::isfinite(c.values[0])) {
        error = error_at(*key, "animation channel: a key value that is not a finite number");
        return false;
    }
    if (const Node* count = channel.child("KeyCount"); count && !count->properties.empty() && count->properties[0].integer != int64_t(c.times.size())) {
        error = error_at(*key, fmt::format("animation channel: KeyCount {} but {} keys", count->properties[0].integer, c.times.size()));
        return false;
    }
    return true;
}

// 6.x: Takes { Take: NAME { LocalTime: start, stop; Model: "Model::X" { Channel: "Transform" {
// Channel: "T" | "R" | "S" { Channel: "X" | "Y" | "Z" { Default, KeyCount, Key } } } } } }.
bool gather_takes(const Document& doc, const Objects& objects, const std::vector<uint32_t>& model_of, std::deque<Curve>& curves,
                  std::vector<Take>& takes, Counts& counts, Error& error) {
    const Node* all = doc.root.child("Takes");
    if (!all) return true;
    for (const Node& t : all->children) {
        if (t.name != "Take" || t.properties.empty()) continue;
        Take& take = takes.emplace_back();
        take.name = std::string(t.properties[0].text);
        if (const Node* span = t.child("LocalTime"); span && span->properties.size() == 2 && span->properties[0].type == 'L' && span->properties[1].type == 'L') {
            take.start = span->properties[0].integer;
            take.stop = span->properties[1].integer;
        }
        for (const Node& m : t.children) {
            if (m.name != "Model" || m.properties.empty()) continue;
            const uint32_t object = objects.find(m.properties[0].text);
            const uint32_t model = object == none ? none : model_of[object];
            if (model == none) continue;
            for (const Node& transform : m.children) {
                if (transform.name != "Channel" || transform.properties.empty()) continue;
                if (transform.properties[0].text != "Transform") {
                    ++counts.other_properties;
                    continue;
                }
                for (const Node& trs : transform.children) {
                    if (trs.name != "Channel" || trs.properties.empty()) continue;
                    const std::string_view which = trs.properties[0].text;
                    const int channel = which == "T" ? 0 : which == "R" ? 1 : which == "S" ? 2 : -1;
                    if (channel < 0) {
                        ++counts.other_properties;
                        continue;
                    }
                    Channels& ch = take.animated[model];
                    D3 d = channel == 2 ? D3{1, 1, 1} : D3{0, 0, 0};
                    bool has_default = false;
                    for (const Node& axis : trs.children) {
                        if (axis.name != "Channel" || axis.properties.empty() || axis.properties[0].text.size() != 1) continue;
                        const int k = axis.properties[0].text[0] - 'X';
                        if (k < 0 || k > 2) continue;
                        if (const Node* def = axis.child("Default"); def && !def->properties.empty() && def->properties[0].is_number()) {
                            d[size_t(k)] = def->properties[0].number;
                            has_default = true;
                        }
                        Curve& c = curves.emplace_back();
                        if (!read_channel_keys(axis, c, error)) return false;
                        for (int64_t f : c.flags) counts.cubic += (f & interpolation_cubic) != 0;
                        add_curve(take, ch, channel, k, c);
                    }
                    if (has_default) ch.defaults[size_t(channel)] = d;
                }
            }
        }
    }
    return true;
}

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
    if (mode < 0) {  // 6.x without it: Version5/Settings/FrameRate: "24"
        const Node* v5 = doc.root.child("Version5");
        const Node* settings = v5 ? v5->child("Settings") : nullptr;
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
    Counts counts;
    std::map<uint32_t, Curve> curves;  // 7.x: by object index, read once
    std::deque<Curve> channel_curves;  // 6.x
    std::vector<Take> takes;
    if (!(doc.version < 7000 ? gather_takes(doc, objects, model_of, channel_curves, takes, counts, error)
                             : gather_stacks(objects, model_of, curves, takes, counts, error)))
        return false;

    for (Take& take : takes) {
        const std::map<uint32_t, Channels>& animated = take.animated;
        std::vector<int64_t>& times = take.times;
        if (times.empty()) {  // nothing moves in this take: no animation to give
            ++counts.empty_stacks;
            continue;
        }
        // Times stay the file's own (as Blender's and ufbx's readers keep them), from 0: the
        // samples are every key from the take's start (LocalStart / LocalTime, at least 0) on,
        // keys after the take's stop included (Blender 2.79's 6.1 files stop a frame early),
        // and the take's start and stop themselves.
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        const int64_t start = std::max<int64_t>(0, take.start.value_or(times.front()));
        const int64_t stop = std::max(take.stop.value_or(times.back()), times.back());
        std::vector<int64_t> samples = {start};
        for (int64_t t : times)
            if (t > start && t < stop) samples.push_back(t);
        if (stop > start) samples.push_back(stop);
        if (take.stop && *take.stop > start && *take.stop < stop) samples.push_back(*take.stop);
        // LoadOptions::resample_curves: also every 1/resample_rate s (on ticks, so times stay exact).
        if (options.resample_curves) {
            const double rate_hz = options.resample_rate;
            if (!(rate_hz > 0) || !std::isfinite(rate_hz)) {
                error = make_error(ErrorCode::InvalidArgument, fmt::format("resample_rate {} is not a positive rate", rate_hz));
                return false;
            }
            const double step = ticks_per_second / rate_hz;
            const double count = std::floor(double(stop - start) / step);
            if (count * double(std::max<size_t>(scene.skeleton.joints.size(), 1)) > double(options.max_elements)) {
                error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} resampled keys is more than {} (LoadOptions::max_elements)",
                                                                         take.name, count, options.max_elements));
                return false;
            }
            for (double k = 1; k <= count; ++k) samples.push_back(start + int64_t(std::llround(k * step)));
        }
        std::sort(samples.begin(), samples.end());
        samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
        while (!samples.empty() && samples.back() > stop) samples.pop_back();
        const size_t joints = scene.skeleton.joints.size();
        if (uint64_t(samples.size()) * std::max<size_t>(joints, 1) > options.max_elements) {
            error = make_error(ErrorCode::LimitExceeded, fmt::format("animation '{}': {} key times x {} joints is more than {} (LoadOptions::max_elements)",
                                                                     take.name, samples.size(), joints, options.max_elements));
            return false;
        }

        // Every joint's local pose at every sample, through the transform rule.
        std::vector<std::vector<Transform>> poses(joints, std::vector<Transform>(samples.size()));
        std::vector<Placement> placed(g.models.size());
        std::vector<Mat4> world(g.models.size());
        for (size_t i = 0; i < samples.size(); ++i) {
            for (uint32_t m : g.order) {
                const Placement* parent = g.parent[m] == none ? nullptr : &placed[g.parent[m]];
                if (auto a = animated.find(m); a != animated.end()) {
                    NodeTransform t = g.transforms[m];
                    D3* targets[3] = {&t.translation, &t.rotation, &t.scaling};
                    for (int c = 0; c < 3; ++c) {
                        if (a->second.defaults[size_t(c)]) *targets[c] = *a->second.defaults[size_t(c)];
                        for (int k = 0; k < 3; ++k)
                            if (const Curve* curve = a->second.curves[size_t(c)][size_t(k)]) (*targets[c])[size_t(k)] = evaluate(*curve, samples[i]);
                    }
                    placed[m] = place(t, local_matrix(t), parent);
                } else {
                    placed[m] = place(g.transforms[m], g.local[m], parent);
                }
                world[m] = placed[m].world;
            }
            for (size_t j = 0; j < joints; ++j) {
                const uint32_t m = g.joint_model[j];
                const int32_t parent = scene.skeleton.joints[j].parent;
                const Mat4 rel = parent >= 0 ? multiply(inverse_affine(world[g.joint_model[size_t(parent)]]), world[m]) : world[m];
                bool sheared = false;
                poses[j][i] = decompose(rel, sheared);
            }
        }

        Animation anim;
        anim.name = take.name;
        anim.frame_rate = rate;
        for (size_t j = 0; j < joints; ++j) {
            const auto& p = poses[j];
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
                const float time = float(double(samples[i]) / ticks_per_second);
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
        // Morph weights of every mesh with a driven channel, at the same samples.
        std::map<uint32_t, std::vector<const MorphBinding*>> by_mesh;
        for (const MorphBinding& b : g.bindings)
            if (take.weights.count(b.channel)) by_mesh[b.mesh].push_back(&b);
        for (const auto& [mesh, driven] : by_mesh) {
            const Mesh& m = scene.meshes[mesh];
            MorphWeightTrack w;
            w.mesh = mesh;
            for (size_t i = 0; i < samples.size(); ++i) {
                w.times.push_back(float(double(samples[i]) / ticks_per_second));
                for (const MorphTarget& t : m.morph_targets) w.weights.push_back(t.default_weight);
                float* row = &w.weights[w.weights.size() - m.morph_targets.size()];
                for (const MorphBinding* b : driven) row[b->target] = float(evaluate(*take.weights.at(b->channel), samples[i]) / 100.0);
            }
            anim.morph_tracks.push_back(std::move(w));
        }
        // Keys that hold every joint at its bind pose still make an animation (a rest pose
        // clip): the first joint's pose as one key keeps it in formats that need a channel.
        if (anim.tracks.empty() && anim.morph_tracks.empty() && joints > 0) {
            const Transform& b = scene.skeleton.joints[0].bind;
            anim.tracks.push_back({0, Channel::Translation, Interpolation::Linear, {0.0f}, {b.translate.begin(), b.translate.end()}});
            anim.tracks.push_back({0, Channel::Rotation, Interpolation::Linear, {0.0f}, {b.rotate.begin(), b.rotate.end()}});
            anim.tracks.push_back({0, Channel::Scale, Interpolation::Linear, {0.0f}, {b.scale.begin(), b.scale.end()}});
        }
        scene.animations.push_back(std::move(anim));
    }
    if (counts.empty_stacks)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} animation stacks without keys on the models' transforms left out", counts.empty_stacks));
    if (counts.extra_layers)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} animation layers above a stack's base layer not combined yet: each animation is its base layer", counts.extra_layers));
    if (counts.cubic)
        scene.warnings.add(WarningCode::Interpreted, fmt::format("{} cubic animation keys read as linear between keys (exact at the keys)", counts.cubic));
    if (counts.other_properties)
        scene.warnings.add(WarningCode::Ignored, fmt::format("{} animated properties other than Lcl Translation / Rotation / Scaling not read", counts.other_properties));
    return true;
}

}  // namespace rigport::fbx

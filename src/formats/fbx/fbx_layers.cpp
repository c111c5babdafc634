// FBX animation takes and layers (docs/fbx.md §2.6).
#include "formats/fbx/fbx_layers.hpp"

#include <algorithm>
#include <cmath>

#include "model/quatd.hpp"

namespace rigport::fbx {

namespace {

constexpr uint32_t none = UINT32_MAX;

double clamp_weight(double percent) { return std::isfinite(percent) ? std::clamp(percent / 100, 0.0, 1.0) : 1.0; }

double weight_at(const Layer& layer, int64_t t) { return layer.weight_curve ? clamp_weight(evaluate(*layer.weight_curve, t)) : layer.weight; }

// A curve node's channel at t: its curve, else its default, else `otherwise`.
double channel_value(const CurveNode& node, size_t k, int64_t t, double otherwise) {
    if (node.curves[k]) return evaluate(*node.curves[k], t);
    return node.defaults[k].value_or(otherwise);
}

void add_curve(Take& take, CurveNode& node, size_t k, const Curve& c) {
    if (c.times.empty()) return;
    node.curves[k] = &c;
    take.first_key = std::min(take.first_key.value_or(c.times.front()), c.times.front());  // keys ascend (read_curve checks)
    take.last_key = std::max(take.last_key.value_or(c.times.back()), c.times.back());
}

// |v|^e with v's sign; 1 at e <= 0 and v at e >= 1 (so a weight of 0 or 1 is exact).
double powabs(double v, double e) {
    if (e <= 0) return 1;
    if (e >= 1) return v;
    return std::copysign(std::pow(std::fabs(v), e), v);
}

// A rotation matrix (m[col][row]) as a quaternion and back.
quatd::D4 quat_of(const Mat4& m) {
    const double r[3][3] = {{m[0][0], m[1][0], m[2][0]}, {m[0][1], m[1][1], m[2][1]}, {m[0][2], m[1][2], m[2][2]}};
    return quatd::unit(quatd::from_matrix(r));
}

Mat4 matrix_of(const quatd::D4& q) {
    double r[3][3];
    quatd::to_matrix(q, r);
    Mat4 m = identity_matrix();
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) m[size_t(col)][size_t(row)] = r[row][col];
    return m;
}

// x combined with a later layer's value v at weight w.
double combine(double x, double v, Blend blend, double w) {
    switch (blend) {
        case Blend::Additive: return x + v * w;
        case Blend::Passthrough: return x * (1 - w) + v * w;
        case Blend::Override: break;
    }
    return v;
}

}  // namespace

bool gather_stacks(const Objects& objects, const std::vector<uint32_t>& model_of, CurveStore& curves, std::vector<Take>& takes,
                   TakeCounts& counts, Error& error) {
    // Each AnimationCurve read once however many nodes share it; null after a read error.
    curves.by_object.assign(objects.list.size(), none);
    auto curve_of = [&](uint32_t object) -> const Curve* {
        uint32_t& at = curves.by_object[object];
        if (at == none) {
            Curve& c = curves.curves.emplace_back();
            if (!read_curve(*objects[object].node, c, error)) return nullptr;
            at = uint32_t(curves.curves.size() - 1);
        }
        return &curves.curves[at];
    };
    for (uint32_t s = 0; s < objects.list.size(); ++s) {
        const Object& stack = objects[s];
        if (stack.kind != "AnimationStack") continue;
        Take& take = takes.emplace_back();
        take.name = stack.name;
        size_t first = 0;
        // Its window: LocalStart / LocalStop, or ReferenceStart / ReferenceStop where the stack
        // lacks one of them, as the FBX SDK falls back (docs/fbx.md, "Takes").
        auto time_of = [&](std::string_view name) -> std::optional<int64_t> {
            const Node* p = find_property(stack, name, first);
            if (p && p->properties.size() > first && p->properties[first].is_number()) return p->properties[first].integer;
            return std::nullopt;
        };
        take.start = time_of("LocalStart");
        take.stop = time_of("LocalStop");
        if (!take.start || !take.stop) {
            take.start = time_of("ReferenceStart");
            take.stop = time_of("ReferenceStop");
        }
        for (uint32_t l : objects.children_of(s, "AnimationLayer")) {
            const Object& lo = objects[l];
            Layer& layer = take.layers.emplace_back();
            layer.weight = clamp_weight(property_number(lo, "Weight", 100));
            layer.muted = property_number(lo, "Mute", 0) != 0;
            const double blend = property_number(lo, "BlendMode", 0);
            layer.blend = blend == 0 ? Blend::Additive : blend == 2 ? Blend::Passthrough : Blend::Override;  // unknown modes replace
            layer.compose_rotation = property_number(lo, "RotationAccumulationMode", 0) == 0;
            layer.compose_scale = property_number(lo, "ScaleAccumulationMode", 0) == 0;
            if (layer.muted && take.layers.size() > 1) ++counts.muted_layers;
            for (uint32_t cn : objects.children_of(l, "AnimationCurveNode")) {
                // What the curve node drives: a model's transform, a blend shape channel's
                // DeformPercent, or this layer's own Weight.
                uint32_t model = none, shape = none;
                int channel = -1;
                bool drives_weight = false;
                for (const Link& link : objects.parents[cn]) {
                    const Object& target = objects[link.object];
                    if (target.kind == "Model" && model == none) {
                        model = model_of[link.object];
                        channel = link.property == "Lcl Translation" ? 0 : link.property == "Lcl Rotation" ? 1 : link.property == "Lcl Scaling" ? 2 : -1;
                    } else if (target.kind == "Deformer" && link.property == "DeformPercent") {
                        shape = link.object;
                    } else if (link.object == l && link.property == "Weight") {
                        drives_weight = true;
                    }
                }
                // Its channels' names: one for a weight, three for a transform.
                const std::vector<std::string_view> channels = shape != none   ? std::vector<std::string_view>{"d|DeformPercent"}
                                                               : drives_weight ? std::vector<std::string_view>{"d|Weight"}
                                                                               : std::vector<std::string_view>{"d|X", "d|Y", "d|Z"};
                CurveNode node;
                for (size_t k = 0; k < channels.size(); ++k)
                    if (const Node* p = find_property(objects[cn], channels[k], first); p && p->properties.size() > first && p->properties[first].is_number())
                        node.defaults[k] = p->properties[first].number;
                for (const Link& link : objects.children[cn]) {
                    const size_t k = size_t(std::find(channels.begin(), channels.end(), link.property) - channels.begin());
                    if (objects[link.object].kind != "AnimationCurve" || k == channels.size()) continue;
                    const Curve* curve = curve_of(link.object);
                    if (!curve) return false;
                    add_curve(take, node, k, *curve);
                }
                if (drives_weight) {
                    layer.weight_curve = node.curves[0];
                    if (!layer.weight_curve && node.defaults[0]) layer.weight = clamp_weight(*node.defaults[0]);
                } else if (shape != none) {
                    layer.shapes[shape] = node;
                } else if (model != none && channel >= 0) {
                    layer.models[model][size_t(channel)] = node;
                } else {
                    ++counts.other_properties;
                }
            }
        }
    }
    return true;
}

bool gather_takes(const Document& doc, const Objects& objects, const std::vector<uint32_t>& model_of, std::deque<Curve>& curves,
                  std::vector<Take>& takes, TakeCounts& counts, Error& error) {
    const Node* all = doc.root.child("Takes");
    if (!all) return true;
    for (const Node& t : all->children) {
        if (t.name != "Take" || t.properties.empty()) continue;
        Take& take = takes.emplace_back();
        take.name = std::string(t.properties[0].text);
        for (const char* window : {"LocalTime", "ReferenceTime"})  // the first one a take has
            if (const Node* span = t.child(window); span && span->properties.size() == 2 && span->properties[0].type == 'L' && span->properties[1].type == 'L') {
                take.start = span->properties[0].integer;
                take.stop = span->properties[1].integer;
                break;
            }
        Layer& layer = take.layers.emplace_back();
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
                    CurveNode node;
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
                        add_curve(take, node, size_t(k), c);
                    }
                    if (has_default)
                        for (size_t k = 0; k < 3; ++k) node.defaults[k] = d[k];
                    layer.models[model][size_t(channel)] = node;
                }
            }
        }
    }
    return true;
}

std::vector<bool> animated_models(const Document& doc, const Objects& objects, const std::vector<uint32_t>& model_of, size_t models) {
    std::vector<bool> out(models, false);
    auto transform = [](std::string_view p) { return p == "Lcl Translation" || p == "Lcl Rotation" || p == "Lcl Scaling"; };
    for (uint32_t cn = 0; cn < objects.list.size(); ++cn) {
        if (objects[cn].kind != "AnimationCurveNode" || objects.children_of(cn, "AnimationCurve").empty()) continue;
        for (const Link& l : objects.parents[cn])
            if (objects[l.object].kind == "Model" && transform(l.property) && model_of[l.object] != none) out[model_of[l.object]] = true;
    }
    if (const Node* takes = doc.root.child("Takes"))
        for (const Node& take : takes->children)
            for (const Node& m : take.children) {
                if (m.name != "Model" || m.properties.empty()) continue;
                const uint32_t object = objects.find(m.properties[0].text);
                if (object == none || model_of[object] == none) continue;
                for (const Node& c : m.children)
                    if (c.name == "Channel" && !c.properties.empty() && c.properties[0].text == "Transform") out[model_of[object]] = true;
            }
    return out;
}

bool animates_model(const Take& take, uint32_t model) {
    return std::any_of(take.layers.begin(), take.layers.end(), [&](const Layer& l) { return l.models.count(model) != 0; });
}

bool animates_shape(const Take& take, uint32_t channel) {
    return std::any_of(take.layers.begin(), take.layers.end(), [&](const Layer& l) { return l.shapes.count(channel) != 0; });
}

void merge_times(std::vector<int64_t>& out, std::span<const int64_t> keys, std::vector<int64_t>& scratch) {
    if (keys.empty() || std::equal(out.begin(), out.end(), keys.begin(), keys.end())) return;
    scratch.clear();
    scratch.reserve(out.size() + keys.size());
    auto a = out.begin();
    auto b = keys.begin();
    auto push = [&](int64_t t) {
        if (scratch.empty() || scratch.back() != t) scratch.push_back(t);
    };
    while (a != out.end() && b != keys.end()) push(*b < *a ? *b++ : *a++);
    while (a != out.end()) push(*a++);
    while (b != keys.end()) push(*b++);
    out.swap(scratch);
}

namespace {

void append_times(const Curve* c, std::vector<int64_t>& out, std::vector<int64_t>& scratch) {
    if (c) merge_times(out, c->times, scratch);
}

// The key times of a layer's animated weight where the layer blends (what weight_at reads).
void append_weight_times(const Layer& layer, size_t li, std::vector<int64_t>& out, std::vector<int64_t>& scratch) {
    if (li > 0 && layer.blend != Blend::Override) append_times(layer.weight_curve, out, scratch);
}

}  // namespace

void model_key_times(const Take& take, uint32_t model, std::vector<int64_t>& out) {
    std::vector<int64_t> scratch;
    for (size_t li = 0; li < take.layers.size(); ++li) {
        const Layer& layer = take.layers[li];
        const auto it = layer.models.find(model);
        if (it == layer.models.end() || (li > 0 && layer.muted)) continue;
        for (const std::optional<CurveNode>& node : it->second)
            if (node)
                for (const Curve* c : node->curves) append_times(c, out, scratch);
        append_weight_times(layer, li, out, scratch);
    }
}

void shape_key_times(const Take& take, uint32_t channel, std::vector<int64_t>& out) {
    std::vector<int64_t> scratch;
    for (size_t li = 0; li < take.layers.size(); ++li) {
        const Layer& layer = take.layers[li];
        const auto it = layer.shapes.find(channel);
        if (it == layer.shapes.end() || (li > 0 && layer.muted)) continue;
        append_times(it->second.curves[0], out, scratch);
        append_weight_times(layer, li, out, scratch);
    }
}

// Layers combine as the FBX SDK does (the reading ufbx gives): the base layer's values replace
// the model's own; a later layer that drives the property then adds its value times its weight
// (additive), replaces it (override), or moves toward it by its weight (passthrough). Scaling
// accumulated by multiplication takes |v|^weight; rotations accumulated as rotations compose
// (additive) or slerp (passthrough) as quaternions. A muted layer above the base is left out.
NodeTransform animated_transform(const Take& take, uint32_t model, const NodeTransform& rest, int64_t t) {
    NodeTransform out = rest;
    D3* values[3] = {&out.translation, &out.rotation, &out.scaling};
    std::optional<quatd::D4> rotation;  // once a layer composed rotations
    for (size_t li = 0; li < take.layers.size(); ++li) {
        const Layer& layer = take.layers[li];
        const auto it = layer.models.find(model);
        if (it == layer.models.end() || (li > 0 && layer.muted)) continue;
        const bool replace = li == 0 || layer.blend == Blend::Override;
        const double w = replace ? 1 : weight_at(layer, t);
        for (size_t c = 0; c < 3; ++c) {
            const std::optional<CurveNode>& node = it->second[c];
            if (!node) continue;
            const bool additive = !replace && layer.blend == Blend::Additive;
            const double neutral = c == 2 && layer.compose_scale ? 1 : 0;
            D3 v;
            for (size_t k = 0; k < 3; ++k) v[k] = channel_value(*node, k, t, additive ? neutral : (*values[c])[k]);
            if (replace) {
                *values[c] = v;
                if (c == 1) rotation.reset();
            } else if (c == 2 && layer.compose_scale) {
                for (size_t k = 0; k < 3; ++k) out.scaling[k] = additive ? out.scaling[k] * powabs(v[k], w) : powabs(out.scaling[k], 1 - w) * powabs(v[k], w);
            } else if (c == 1 && (layer.compose_rotation || rotation)) {
                const quatd::D4 base = rotation ? *rotation : quat_of(euler_matrix(out.rotation, out.rotation_order));
                const quatd::D4 q = quat_of(euler_matrix(v, out.rotation_order));
                rotation = additive ? quatd::mul(base, quatd::slerp({0, 0, 0, 1}, q, w)) : quatd::slerp(base, q, w);
            } else {
                for (size_t k = 0; k < 3; ++k) (*values[c])[k] = combine((*values[c])[k], v[k], layer.blend, w);
            }
        }
    }
    if (rotation) out.rotation_matrix = matrix_of(*rotation);
    return out;
}

double animated_percent(const Take& take, uint32_t channel, double rest, int64_t t) {
    double x = rest;
    for (size_t li = 0; li < take.layers.size(); ++li) {
        const Layer& layer = take.layers[li];
        const auto it = layer.shapes.find(channel);
        if (it == layer.shapes.end() || (li > 0 && layer.muted)) continue;
        const bool replace = li == 0 || layer.blend == Blend::Override;
        const double v = channel_value(it->second, 0, t, replace || layer.blend != Blend::Additive ? x : 0);
        x = replace ? v : combine(x, v, layer.blend, weight_at(layer, t));
    }
    return x;
}

}  // namespace rigport::fbx

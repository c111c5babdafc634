// FBX animation (docs/fbx.md "Writing FBX", §2.6 for how it is read): per clip an AnimationStack
// whose LocalStart / LocalStop window is the clip (0 to its duration) with one AnimationLayer;
// per joint track an AnimationCurveNode (T, R or S) linked to the joint's Lcl property with a
// curve per axis, rotations as XYZ Euler degrees unwrapped from key to key; per morph target of
// a weight track a DeformPercent curve node on its BlendShapeChannel. Keys are linear or
// constant (Step), as the scene's tracks interpolate.
#include <bit>
#include <fmt/format.h>

#include "formats/fbx/fbx_write.hpp"

namespace rigport::fbx::out {

namespace {

// KeyAttrFlags of FBX's curves: constant and linear interpolation (§2.6).
constexpr int32_t key_constant = 0x2, key_linear = 0x4;

// One curve: every key shares one attribute entry (KeyAttrRefCount = the key count). Its data are
// the slopes (unused by linear and constant keys) and the packed tangent weights, 1/3 each in
// ten-thousandths (3333 in the low and high 16 bits), as the FBX SDK writes them.
void add_curve(Document& doc, int64_t curve, const std::vector<int64_t>& times, std::vector<float> values, Interpolation interpolation) {
    Node& c = doc.object("AnimationCurve", curve, "", "AnimCurve", "");
    c.add("Default", {f64(values.empty() ? 0.0 : double(values.front()))});
    c.add("KeyVer", {i32(4009)});
    c.add("KeyTime", {longs(times)});
    c.add("KeyValueFloat", {floats(std::move(values))});
    c.add("KeyAttrFlags", {ints({interpolation == Interpolation::Step ? key_constant : key_linear})});
    const float weights = std::bit_cast<float>(uint32_t(3333) | uint32_t(3333) << 16);
    c.add("KeyAttrDataFloat", {floats({0.0f, 0.0f, weights, 0.0f})});
    c.add("KeyAttrRefCount", {ints({int32_t(times.size())})});
}

// A curve node with `axes` (its channels' names, "X" ...) and their values at the first key.
int64_t add_curve_node(Document& doc, int64_t node, const char* name, const std::vector<std::string>& axes, const std::vector<double>& first) {
    Node& n = doc.object("AnimationCurveNode", node, name, "AnimCurveNode", "");
    Node& p = n.add("Properties70");
    for (size_t k = 0; k < axes.size(); ++k) property_number(p, "d|" + axes[k], first[k], true);
    return node;
}

std::vector<int64_t> key_ticks(const std::vector<float>& times) {
    std::vector<int64_t> t;
    t.reserve(times.size());
    for (float s : times) t.push_back(ticks(double(s)));
    return t;
}

// A joint track's keys per axis: translation and scale as they are, rotations as Euler degrees,
// each key's triple the one nearest the one before (the first nearest the bind pose's), turned
// from the joint's PreRotation.
std::vector<std::vector<float>> axis_values(const Document& doc, const JointTrack& track) {
    const size_t keys = track.times.size();
    std::vector<std::vector<float>> axes(3, std::vector<float>(keys));
    auto near = euler_xyz_degrees(joint_rotation(doc, track.joint, doc.scene.skeleton.joints[track.joint].bind.rotate));
    for (size_t i = 0; i < keys; ++i) {
        if (track.channel == Channel::Rotation) {
            const float* q = &track.values[i * 4];
            near = euler_xyz_degrees(joint_rotation(doc, track.joint, Quat{q[0], q[1], q[2], q[3]}), near);
            for (size_t k = 0; k < 3; ++k) axes[k][i] = float(near[k]);
        } else {
            for (size_t k = 0; k < 3; ++k) axes[k][i] = track.values[i * 3 + k];
        }
    }
    return axes;
}

}  // namespace

void write_animations(Document& doc) {
    const Scene& scene = doc.scene;
    std::set<uint32_t> animated_joints;  // moved by some clip
    for (const Animation& anim : scene.animations)
        for (const JointTrack& track : anim.tracks)
            if (!track.times.empty() && track.joint < doc.joint_models.size()) animated_joints.insert(track.joint);
    static const char* channel_names[] = {"T", "R", "S"};
    static const char* channel_properties[] = {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"};
    for (size_t a = 0; a < scene.animations.size(); ++a) {
        const Animation& anim = scene.animations[a];
        const std::string name = name_or(anim.name, "animation", a);
        const int64_t stack = doc.id("AnimationStack", a), layer = doc.id("AnimationLayer", a);
        Node& s = doc.object("AnimationStack", stack, name, "AnimStack", "");
        Node& p = s.add("Properties70");
        const int64_t stop = ticks(double(anim.duration()));
        property_time(p, "LocalStart", 0);
        property_time(p, "LocalStop", stop);
        property_time(p, "ReferenceStart", 0);
        property_time(p, "ReferenceStop", stop);
        doc.object("AnimationLayer", layer, "BaseLayer", "AnimLayer", "");
        doc.connect(layer, stack);

        std::set<std::pair<uint32_t, int>> seen;  // (joint, channel) already written
        for (size_t t = 0; t < anim.tracks.size(); ++t) {
            const JointTrack& track = anim.tracks[t];
            const int ch = int(track.channel);
            if (track.times.empty() || track.joint >= doc.joint_models.size()) continue;
            if (!seen.insert({track.joint, ch}).second) {
                if (doc.options.warnings)
                    doc.options.warnings->add(WarningCode::DroppedData, fmt::format("animation '{}': a second {} track of joint {} not written (FBX holds one)",
                                                                                     name, channel_properties[ch], track.joint));
                continue;
            }
            const auto axes = axis_values(doc, track);
            const auto times = key_ticks(track.times);
            const int64_t node = add_curve_node(doc, doc.id("AnimationCurveNode", a, t), channel_names[ch], {"X", "Y", "Z"},
                                                {axes[0][0], axes[1][0], axes[2][0]});
            doc.connect(node, layer);
            doc.connect_property(node, doc.joint_models[track.joint], channel_properties[ch]);
            for (size_t k = 0; k < 3; ++k) {
                const int64_t curve = doc.id("AnimationCurve", a, t * 3 + k);
                add_curve(doc, curve, times, axes[k], track.interpolation);
                doc.connect_property(curve, node, std::string("d|") + "XYZ"[k]);
            }
        }
        // Every channel of a joint some clip moves is keyed in every clip: what this clip does
        // not key gets one key at the bind pose. A reader that keeps one transform per joint
        // across stacks (Blender's importer) or a player that leaves an unkeyed channel where the
        // last clip put it then still poses the joint as rigport does (docs/fbx.md "Writing FBX").
        for (uint32_t j : animated_joints) {
            const Transform& bind = scene.skeleton.joints[j].bind;
            for (int ch = 0; ch < 3; ++ch) {
                if (seen.count({j, ch})) continue;
                std::array<double, 3> v{};
                if (ch == 1) v = euler_xyz_degrees(joint_rotation(doc, j, bind.rotate));
                else
                    for (size_t k = 0; k < 3; ++k) v[k] = ch == 0 ? bind.translate[k] : bind.scale[k];
                const size_t sub = size_t(j) * 3 + size_t(ch);
                const int64_t node = add_curve_node(doc, doc.id("AnimationCurveNode/bind", a, sub), channel_names[ch], {"X", "Y", "Z"}, {v[0], v[1], v[2]});
                doc.connect(node, layer);
                doc.connect_property(node, doc.joint_models[j], channel_properties[ch]);
                for (size_t k = 0; k < 3; ++k) {
                    const int64_t curve = doc.id("AnimationCurve/bind", a, sub * 3 + k);
                    add_curve(doc, curve, {0}, {float(v[k])}, Interpolation::Linear);
                    doc.connect_property(curve, node, std::string("d|") + "XYZ"[k]);
                }
            }
        }
        for (size_t t = 0; t < anim.morph_tracks.size(); ++t) {
            const MorphWeightTrack& track = anim.morph_tracks[t];
            if (track.times.empty() || track.mesh >= doc.morph_channels.size()) continue;
            const auto& channels = doc.morph_channels[track.mesh];
            const auto times = key_ticks(track.times);
            for (size_t k = 0; k < channels.size(); ++k) {
                std::vector<float> percent(track.times.size());
                for (size_t i = 0; i < percent.size(); ++i) percent[i] = track.weights[i * channels.size() + k] * 100.0f;
                const int64_t node = add_curve_node(doc, doc.id("AnimationCurveNode/morph", a, t * 65536 + k), "DeformPercent", {"DeformPercent"},
                                                    {double(percent.front())});
                doc.connect(node, layer);
                doc.connect_property(node, channels[k], "DeformPercent");
                const int64_t curve = doc.id("AnimationCurve/morph", a, t * 65536 + k);
                add_curve(doc, curve, times, std::move(percent), track.interpolation);
                doc.connect_property(curve, node, "d|DeformPercent");
            }
        }
    }
}

Node takes_node(const Scene& scene) {
    Node takes{"Takes", {}, {}};
    takes.add("Current", {str(scene.animations.empty() ? std::string() : name_or(scene.animations[0].name, "animation", 0))});
    for (size_t a = 0; a < scene.animations.size(); ++a) {
        const std::string name = name_or(scene.animations[a].name, "animation", a);
        const int64_t stop = ticks(double(scene.animations[a].duration()));
        Node& t = takes.add("Take", {str(name)});
        t.add("FileName", {str(name + ".tak")});
        t.add("LocalTime", {i64(0), i64(stop)});
        t.add("ReferenceTime", {i64(0), i64(stop)});
    }
    return takes;
}

}  // namespace rigport::fbx::out

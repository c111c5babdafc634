// Cal3D skeletal animation writers, CAF and XAF in the IMVU 919 / classic 1100 / trunk 1301 dialects (docs/cal3d.md §2.2, §3.4, §3.8, §4.4, §9 rules 6 and 10).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::cal3d {

namespace {

// One Cal3D track: one bone, keys holding translation + rotation at the same times.
struct OutTrack {
    int32_t bone = 0;
    std::vector<Key> keys;  // rotations in the file convention
};

struct Tally {
    uint64_t scaled = 0, duplicate = 0, no_rotation = 0, unknown_bind = 0;
};

// Key times of a channel; a STEP track also gets a key one float step before each change, so
// Cal3D's linear interpolation gives the held value at every float time before the change.
void add_times(const JointTrack& t, std::vector<float>& times) {
    times.insert(times.end(), t.times.begin(), t.times.end());
    if (t.interpolation != Interpolation::Step) return;
    const uint32_t c = t.components();
    for (size_t k = 1; k < t.times.size(); ++k) {
        if (std::equal(t.values.begin() + (k - 1) * c, t.values.begin() + k * c, t.values.begin() + k * c)) continue;
        const float before = std::nextafter(t.times[k], -std::numeric_limits<float>::infinity());
        if (before > t.times[k - 1]) times.push_back(before);
    }
}

bool unit_scale(const JointTrack& t) {
    for (float v : t.values)
        if (!(std::fabs(v - 1.0f) <= 1e-6f)) return false;
    return true;
}

// Normalized (only when off by more than float rounding, so stored unit quaternions keep their
// bits) and on the hemisphere of `previous`.
Quat file_rotation(const Quat& q_std, const Quat* previous) {
    Quat q = to_file(q_std);
    const double n2 = double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
    if (!(n2 > 1e-24) || !std::isfinite(n2)) {
        q = {0, 0, 0, 1};
    } else if (std::fabs(n2 - 1.0) > 1e-6) {
        const double n = std::sqrt(n2);
        for (float& c : q) c = float(c / n);
    }
    if (previous) {
        const double dot = double(q[0]) * (*previous)[0] + double(q[1]) * (*previous)[1] + double(q[2]) * (*previous)[2] +
                           double(q[3]) * (*previous)[3];
        if (dot < 0)
            for (float& c : q) c = -c;
    }
    return q;
}

// The Cal3D tracks of one animation, in the order the joints first appear in it.
std::vector<OutTrack> merge_tracks(const Scene& scene, const Animation& anim, Dialect dialect, bool binary, Tally& tally) {
    const Skeleton& sk = scene.skeleton;
    const std::vector<int32_t> ids = bone_ids(sk);
    std::vector<uint32_t> order;
    std::vector<std::array<const JointTrack*, 3>> by_joint(sk.joints.size(), {nullptr, nullptr, nullptr});
    for (auto& t : anim.tracks) {
        if (t.joint >= sk.joints.size() || t.times.empty()) continue;
        auto& slot = by_joint[t.joint][size_t(t.channel)];
        if (!by_joint[t.joint][0] && !by_joint[t.joint][1] && !by_joint[t.joint][2]) order.push_back(t.joint);
        if (slot) {
            ++tally.duplicate;
            continue;
        }
        slot = &t;
    }
    const bool omit_missing = dialect == Dialect::Trunk1301 && !binary;  // 2012 rule: 1301 XAF may omit TRANSLATION
    std::vector<OutTrack> out;
    for (uint32_t j : order) {
        const JointTrack* tr = by_joint[j][size_t(Channel::Translation)];
        const JointTrack* rot = by_joint[j][size_t(Channel::Rotation)];
        const JointTrack* sc = by_joint[j][size_t(Channel::Scale)];
        if (sc && !unit_scale(*sc)) ++tally.scaled;
        if (!tr && !rot) continue;
        const bool bind_known = !sk.animation_only;
        if (!rot && !bind_known) ++tally.no_rotation;
        if (!tr && !bind_known && !omit_missing && dialect != Dialect::Imvu919) ++tally.unknown_bind;
        // One joint, its two channels: sample_pose gives a key's own value at its time, the
        // other channel interpolated (lerp / shorter-arc slerp) or held outside its keys.
        Skeleton one;
        one.joints.push_back(Joint{{}, -1, sk.joints[j].bind});
        Animation mini;
        std::vector<float> times;
        for (const JointTrack* t : {tr, rot})
            if (t) {
                mini.tracks.push_back(*t);
                mini.tracks.back().joint = 0;
                add_times(*t, times);
            }
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        OutTrack o;
        o.bone = ids[j];
        o.keys.reserve(times.size());
        for (float time : times) {
            const Transform pose = sample_pose(one, mini, time, EndMode::Clamp)[0];
            Key k;
            k.time = time;
            k.translation = pose.translate;
            k.has_translation = tr || (bind_known && !omit_missing);
            k.rotation = file_rotation(pose.rotate, o.keys.empty() ? nullptr : &o.keys.back().rotation);
            o.keys.push_back(k);
        }
        out.push_back(std::move(o));
    }
    return out;
}

}  // namespace

Expected<std::vector<uint8_t>> write_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options) {
    const Dialect dialect = options.cal3d.dialect;
    if (animation >= scene.animations.size())
        return make_error(ErrorCode::InvalidArgument, fmt::format("animation {} of {}", animation, scene.animations.size()));
    const Animation& anim = scene.animations[animation];
    Tally tally;
    std::vector<OutTrack> tracks = merge_tracks(scene, anim, dialect, binary, tally);
    if (tracks.empty())
        return make_error(ErrorCode::Unsupported,
                          fmt::format("animation {} '{}' has no joint translation or rotation keys to write as a Cal3D animation", animation, anim.name));
    if (tracks.size() > uint64_t(INT32_MAX)) return make_error(ErrorCode::LimitExceeded, fmt::format("{} tracks", tracks.size()));
    Warnings* w = options.warnings;
    // Scale keys are left out; save_output says so from the registry row (Cal3D holds no joint scales).
    if (w && tally.duplicate) w->add(WarningCode::DroppedData, fmt::format("{} extra tracks of an already tracked joint channel not written", tally.duplicate));
    if (w && tally.no_rotation)
        w->add(WarningCode::Substituted, fmt::format("{} joints have translation keys only and the bind rotation is unknown; identity rotations written", tally.no_rotation));
    if (w && tally.unknown_bind)
        w->add(WarningCode::Substituted,
               binary ? fmt::format("{} joints have no translation keys and the bind translation is unknown: the 1e10 sentinel (IMVU's \"use the skeleton's\") is written, which a version {} reader takes literally",
                                    tally.unknown_bind, version_of(dialect))
                      : fmt::format("{} joints have no translation keys and the bind translation is unknown: their keys have no TRANSLATION, which VERSION < 1300 readers other than IMVU's reject",
                                    tally.unknown_bind));
    if (w && !anim.morph_tracks.empty())
        w->add(WarningCode::DroppedData, "morph weight tracks are not written to a skeletal animation (they go to a CPF / XPF)");

    float last = 0;
    for (auto& t : tracks) last = std::max(last, t.keys.back().time);
    float duration = std::max(anim.stated_duration, last);
    if (!(duration > 0)) {
        duration = 1.0f / (anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate);
        if (w) w->add(WarningCode::KeysAdjusted, fmt::format("all keys at time 0: DURATION {} written (Cal3D needs > 0)", duration));
    }

    const int32_t version = version_of(dialect);
    if (binary) {
        ByteWriter b;
        b.magic(FileType::Animation);
        b.i32(version);
        if (dialect != Dialect::Classic1100) b.i32(0);  // compressionFlag (IMVU 919, trunk): plain float keys
        b.f32(duration);
        b.i32(int32_t(tracks.size()));
        if (dialect == Dialect::Trunk1301) b.i32(0);  // flags (§1.1: v1301 only)
        for (auto& t : tracks) {
            b.i32(t.bone);
            b.i32(int32_t(t.keys.size()));
            for (auto& k : t.keys) {
                b.f32(k.time);
                b.vec3(k.has_translation ? k.translation : Vec3{invalid_translation, invalid_translation, invalid_translation});
                b.quat(k.rotation);
            }
        }
        return std::move(b.bytes);
    }

    XmlWriter x;
    const std::string root = x.header(FileType::Animation, dialect);
    if (dialect == Dialect::Imvu919)
        x.open("ANIMATION", fmt::format(" NUMTRACKS=\"{}\" DURATION=\"{}\"", tracks.size(), xml_float(duration)));
    else
        x.open("ANIMATION", root + fmt::format(" DURATION=\"{}\" NUMTRACKS=\"{}\"", xml_float(duration), tracks.size()));
    for (auto& t : tracks) {
        const bool translated = t.keys.front().has_translation;
        std::string attrs = fmt::format(" BONEID=\"{}\"", t.bone);
        if (dialect != Dialect::Classic1100)  // IM and UP write the packing flags; they only matter to IMVU's packer
            attrs += fmt::format(" TRANSLATIONREQUIRED=\"{0}\" TRANSLATIONISDYNAMIC=\"{0}\" HIGHRANGEREQUIRED=\"1\"", translated ? 1 : 0);
        attrs += fmt::format(" NUMKEYFRAMES=\"{}\"", t.keys.size());
        x.open("TRACK", attrs);
        for (auto& k : t.keys) {
            x.open("KEYFRAME", fmt::format(" TIME=\"{}\"", xml_float(k.time)));
            if (k.has_translation) x.leaf("TRANSLATION", {}, xml_floats(k.translation.data(), 3));
            x.leaf("ROTATION", {}, xml_floats(k.rotation.data(), 4));
            x.close("KEYFRAME");
        }
        x.close("TRACK");
    }
    x.close("ANIMATION");
    return std::vector<uint8_t>(x.text.begin(), x.text.end());
}

namespace {

Expected<Output> write_animation_file(const Scene& scene, bool binary, const SaveOptions& options) {
    const std::optional<Scene> copy = z_up_ccw_copy(scene);
    const Scene& s = copy ? *copy : scene;
    const auto chosen = choose_animation(
        s, [](const Animation& a) { return !a.tracks.empty(); },
        {binary ? "joint tracks to write as a Cal3D CAF" : "joint tracks to write as a Cal3D XAF", "a Cal3D animation file", "other animations"},
        options);
    if (!chosen) return chosen.error();
    auto bytes = write_animation(s, *chosen, binary, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

}  // namespace

Expected<Output> write_caf(const Scene& scene, const std::string&, const SaveOptions& options) {
    return write_animation_file(scene, true, options);
}
Expected<Output> write_xaf(const Scene& scene, const std::string&, const SaveOptions& options) {
    return write_animation_file(scene, false, options);
}

}  // namespace rigport::cal3d

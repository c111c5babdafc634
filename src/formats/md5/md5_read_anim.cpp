// MD5 reader, .md5anim (docs/md5.md): the hierarchy's names and parents become an
// animation-only skeleton (compile() binds it to a mesh's skeleton by name); each frame is the
// baseframe with the flagged components replaced, one key per frame at frame / frameRate.
#include <algorithm>
#include <bit>

#include "model/quatd.hpp"
#include "formats/md5/md5_parser.hpp"

namespace rigport::md5::detail {

std::optional<Error> Parser::hierarchy_block() {
    if (have_hierarchy_) return error_at(last_, "a second 'hierarchy' block");
    have_hierarchy_ = true;
    for (;;) {
        const Token t = lex_.next();
        if (t.kind == Kind::CloseBrace) return std::nullopt;
        if (t.kind != Kind::String) return error_at(t, fmt::format("hierarchy: expected a \"quoted\" joint name or '}}', found {}", describe(t)));
        if (hierarchy_.size() >= options_.max_elements)
            return error_at(t, fmt::format("more than {} joints (LoadOptions::max_elements)", options_.max_elements), ErrorCode::LimitExceeded);
        HierarchyJoint j;
        j.name.assign(t.text);
        j.at = t;
        const std::string context = fmt::format("hierarchy joint {} \"{}\"", hierarchy_.size(), rigport::detail::excerpt(j.name));
        int64_t parent = 0, flags = 0, start = 0;
        if (auto e = integer(context, parent)) return e;
        if (parent < -1 || parent >= int64_t(hierarchy_.size()))
            return error_at(last_, fmt::format("{}: parent {} is not an earlier joint (-1 for a root)", context, parent));
        if (auto e = integer(context, flags)) return e;
        if (flags < 0 || flags > int64_t(UINT32_MAX)) return error_at(last_, fmt::format("{}: flags {} are out of range", context, flags));
        if (flags & ~int64_t(ALL_COMPONENTS))
            warn(WarningCode::UnknownFlags, fmt::format("hierarchy flags beyond the six components (bits 0-5); the others ignored"), last_);
        if (auto e = integer(context, start)) return e;
        if (start < 0 || start > int64_t(UINT32_MAX)) return error_at(last_, fmt::format("{}: startIndex {} is out of range", context, start));
        j.parent = int32_t(parent);
        j.flags = uint32_t(flags) & ALL_COMPONENTS;
        j.start = uint32_t(start);
        hierarchy_.push_back(std::move(j));
    }
}

std::optional<Error> Parser::bounds_block() {
    // Per-frame boxes for culling: checked for syntax, recomputed by writers.
    if (have_bounds_) return error_at(last_, "a second 'bounds' block");
    have_bounds_ = true;
    for (;;) {
        const Token t = lex_.next();
        if (t.kind == Kind::CloseBrace) return std::nullopt;
        if (t.kind != Kind::OpenParen) return error_at(t, fmt::format("bounds: expected '(' or '}}', found {}", describe(t)));
        double v[3];
        for (double& c : v)
            if (auto e = number("bounds", c)) return e;
        if (auto e = expect(Kind::CloseParen, "')'", "bounds")) return e;
        if (auto e = vector("bounds", v, 3)) return e;
        ++bounds_read_;
    }
}

std::optional<Error> Parser::baseframe_block() {
    if (have_baseframe_) return error_at(last_, "a second 'baseframe' block");
    have_baseframe_ = true;
    for (;;) {
        const Token t = lex_.next();
        if (t.kind == Kind::CloseBrace) return std::nullopt;
        if (t.kind != Kind::OpenParen) return error_at(t, fmt::format("baseframe: expected '(' or '}}', found {}", describe(t)));
        if (baseframe_.size() >= options_.max_elements)
            return error_at(t, fmt::format("more than {} baseframe poses (LoadOptions::max_elements)", options_.max_elements), ErrorCode::LimitExceeded);
        double p[3], q[3];
        for (double& c : p)
            if (auto e = number("baseframe", c)) return e;
        if (auto e = expect(Kind::CloseParen, "')'", "baseframe")) return e;
        if (auto e = vector("baseframe", q, 3)) return e;
        Transform pose;
        pose.translate = {float(p[0]), float(p[1]), float(p[2])};
        // Kept as stored (x y z); w is restored per frame, after the flagged components replace them.
        pose.rotate = {float(q[0]), float(q[1]), float(q[2]), 0.0f};
        baseframe_.push_back(pose);
    }
}

std::optional<Error> Parser::frame_block() {
    const Token keyword = last_;
    uint64_t i = 0;
    if (!num_frames_) return error_at(keyword, "'frame' before 'numFrames'");
    if (!num_components_) return error_at(keyword, "'frame' before 'numAnimatedComponents'");
    if (auto e = index("frame", num_frames_, "numFrames", i)) return e;
    if (frames_.empty()) {
        const uint64_t total = *num_frames_ * *num_components_;  // both bounded by max_elements: no overflow
        if (total > options_.max_elements)
            return error_at(last_, fmt::format("{} frames of {} components are more than {} values (LoadOptions::max_elements)", *num_frames_,
                                               *num_components_, options_.max_elements), ErrorCode::LimitExceeded);
        if (total > lex_.remaining() / 2)
            return error_at(last_, fmt::format("{} frames of {} components: the {} bytes left in the file cannot hold them", *num_frames_, *num_components_,
                                               lex_.remaining()));
        frames_.resize(size_t(total));
        frame_seen_.resize(size_t(*num_frames_));
    }
    if (frame_seen_[i]) return error_at(last_, fmt::format("frame {} is defined twice", i));
    frame_seen_[i] = 1;
    const std::string context = fmt::format("frame {}", i);
    if (auto e = expect(Kind::OpenBrace, "'{'", context)) return e;
    float* out = frames_.data() + i * *num_components_;
    for (uint64_t c = 0; c < *num_components_; ++c) {
        const Token t = lex_.next();
        if (t.kind == Kind::CloseBrace)
            return error_at(t, fmt::format("frame {}: {} values, numAnimatedComponents is {}", i, c, *num_components_));
        double v = 0;
        if (t.kind != Kind::Word || io::TextCursor::parse_number(t.text, v) != io::TextCursor::Result::Ok || std::fabs(v) > FLT_MAX)
            return error_at(t, fmt::format("frame {}: value {}: expected a finite number, found {}", i, c, describe(t)));
        out[c] = float(v);
    }
    last_ = lex_.next();
    if (last_.kind != Kind::CloseBrace)
        return error_at(last_, fmt::format("frame {}: more values than numAnimatedComponents {} (found {})", i, *num_components_, describe(last_)));
    return std::nullopt;
}

std::optional<Error> Parser::finish_anim(const Token& end) {
    if (!num_frames_) return error_at(end, "an .md5anim without 'numFrames'");
    if (!num_components_) return error_at(end, "an .md5anim without 'numAnimatedComponents'");
    if (!have_hierarchy_ || hierarchy_.empty()) return error_at(end, "an .md5anim without a 'hierarchy' of joints");
    if (!have_baseframe_) return error_at(end, "an .md5anim without a 'baseframe'");
    if (baseframe_.size() != hierarchy_.size())
        return error_at(end, fmt::format("baseframe has {} poses for the {} joints of the hierarchy", baseframe_.size(), hierarchy_.size()));
    for (size_t j = 0; j < hierarchy_.size(); ++j) {
        const HierarchyJoint& h = hierarchy_[j];
        const uint64_t stop = uint64_t(h.start) + uint64_t(std::popcount(h.flags));
        if (stop > *num_components_)
            return error_at(h.at, fmt::format("hierarchy joint {} \"{}\": components {}..{} beyond numAnimatedComponents {}", j, rigport::detail::excerpt(h.name), h.start,
                                              stop - 1, *num_components_));
    }
    if (frame_seen_.empty()) frame_seen_.assign(size_t(*num_frames_), 0);
    for (size_t f = 0; f < frame_seen_.size(); ++f)
        if (!frame_seen_[f]) return error_at(end, fmt::format("frame {} is missing (numFrames {})", f, *num_frames_));
    if (num_joints_ && *num_joints_ != hierarchy_.size())
        warn(WarningCode::CountMismatch, fmt::format("numJoints {} but {} hierarchy joints; the hierarchy is used", *num_joints_, hierarchy_.size()));
    if (have_bounds_ && bounds_read_ != *num_frames_)
        warn(WarningCode::CountMismatch, fmt::format("{} bounds for {} frames (bounds are not used)", bounds_read_, *num_frames_));

    Skeleton& sk = scene_.skeleton;
    std::vector<uint32_t> depth(hierarchy_.size(), 1);
    for (size_t j = 0; j < hierarchy_.size(); ++j) {
        const HierarchyJoint& h = hierarchy_[j];
        if (h.parent >= 0 && (depth[j] = depth[size_t(h.parent)] + 1) > options_.max_depth)
            return error_at(h.at, fmt::format("joint {} is {} parents deep, more than {} (LoadOptions::max_depth)", j, depth[j], options_.max_depth),
                            ErrorCode::LimitExceeded);
        Joint joint;
        joint.name = h.name;
        joint.parent = h.parent;
        sk.joints.push_back(std::move(joint));
    }
    // No bind pose in an .md5anim: the baseframe stands in, and the names bind it to a mesh.
    sk.animation_only = true;
    warn(WarningCode::AnimationOnly,
         fmt::format("an .md5anim alone: {} joints with names and parents, the baseframe as their bind pose (bind to a mesh's skeleton by name)", sk.joints.size()));

    Animation anim;
    anim.frame_count = uint32_t(*num_frames_);
    if (frame_rate_ && *frame_rate_ > 0 && std::isfinite(float(anim.frame_count) / float(*frame_rate_))) {
        anim.frame_rate = float(*frame_rate_);
    } else {
        warn(WarningCode::ZeroFrameRate, fmt::format("no frameRate above 0 (keys placed at {} fps)", default_frame_rate), frame_rate_ ? frame_rate_at_ : end);
    }
    const float rate = anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate;
    const size_t frames = size_t(*num_frames_);
    bool non_unit = false;
    std::vector<Transform> poses(frames);
    for (size_t j = 0; j < hierarchy_.size(); ++j) {
        const HierarchyJoint& h = hierarchy_[j];
        for (size_t f = 0; f < frames; ++f) {
            Transform& p = poses[f];
            p = baseframe_[j];
            if (h.flags) {  // then start + popcount(flags) <= numAnimatedComponents: frames_ holds them
                const float* data = frames_.data() + f * *num_components_ + h.start;
                float* slots[6] = {&p.translate[0], &p.translate[1], &p.translate[2], &p.rotate[0], &p.rotate[1], &p.rotate[2]};
                for (int c = 0; c < 6; ++c)
                    if (h.flags & (1u << c)) *slots[c] = *data++;
            }
            const double q[3] = {p.rotate[0], p.rotate[1], p.rotate[2]};
            quatd::D4 r = restore_w(q[0], q[1], q[2]);
            if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > 1.0 + 1e-6) r = quatd::unit(r), non_unit = true;
            p.rotate = {float(r[0]), float(r[1]), float(r[2]), float(r[3])};
        }
        const quatd::D4 base = quatd::unit(restore_w(baseframe_[j].rotate[0], baseframe_[j].rotate[1], baseframe_[j].rotate[2]));
        sk.joints[j].bind.translate = baseframe_[j].translate;
        sk.joints[j].bind.rotate = {float(base[0]), float(base[1]), float(base[2]), float(base[3])};
        for (Channel ch : {Channel::Translation, Channel::Rotation}) {
            JointTrack track;
            track.joint = uint32_t(j);
            track.channel = ch;
            const uint32_t c = track.components();
            auto value = [&](const Transform& t) { return ch == Channel::Translation ? t.translate.data() : t.rotate.data(); };
            bool constant = true;
            for (size_t f = 1; f < frames && constant; ++f) constant = std::equal(value(poses[0]), value(poses[0]) + c, value(poses[f]));
            // Constant channels carry one key, as the IQM and IQE readers do.
            const size_t keys = constant ? 1 : frames;
            track.times.reserve(keys);
            track.values.reserve(keys * c);
            for (size_t f = 0; f < keys; ++f) {
                track.times.push_back(float(f) / rate);
                track.values.insert(track.values.end(), value(poses[f]), value(poses[f]) + c);
            }
            anim.tracks.push_back(std::move(track));
        }
    }
    if (non_unit) warn(WarningCode::NonUnitQuaternion, "frame orientations with x² + y² + z² > 1 (normalized)");
    scene_.animations.push_back(std::move(anim));
    return std::nullopt;
}

}  // namespace rigport::md5::detail

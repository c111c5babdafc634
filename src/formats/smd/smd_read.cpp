// SMD reader (Studiomdl Data version 1; docs/smd.md): lines and fields, the header, the nodes and
// skeleton sections, and the scene each kind of file gives: a reference SMD (meshes + skeleton
// bound at its first skeleton frame), an animation SMD (an animation-only skeleton with names and
// parents + one frame-based animation) or a .vta (one mesh of the base vertices + morph targets).
#include <algorithm>

#include "support/excerpt.hpp"
#include "model/quatd.hpp"
#include "formats/smd/smd_parser.hpp"

namespace rigport::smd {

namespace detail {

namespace {

bool is_comment(std::string_view word) {
    return !word.empty() && (word[0] == '#' || word[0] == ';' || word.substr(0, 2) == "//");
}

Transform pose_of(const BonePose& b) {
    Transform t;
    t.translate = {float(b.position[0]), float(b.position[1]), float(b.position[2])};
    const quatd::D4 q = quatd::unit(euler_to_quat(b.rotation[0], b.rotation[1], b.rotation[2]));
    t.rotate = {float(q[0]), float(q[1]), float(q[2]), float(q[3])};
    return t;
}

}  // namespace

bool Parser::next_line() {
    while (cur_.next_line()) {
        first_word_ = cur_.token();
        if (first_word_.empty() || is_comment(first_word_)) continue;
        return true;
    }
    first_word_ = {};
    return false;
}

std::optional<Error> Parser::number(std::string_view what, double& out) {
    const Result r = cur_.number(out);
    const std::string_view token = cur_.line_text().substr(cur_.token_column() - 1, cur_.column() - cur_.token_column());
    if (r == Result::Missing) return error_here(fmt::format("{}: missing (the line ends)", what));
    if (r == Result::OutOfRange || (r == Result::Ok && std::fabs(out) > FLT_MAX))
        return error_here(fmt::format("{}: number '{}' is out of range", what, rigport::detail::excerpt(token)));
    if (r != Result::Ok) return error_here(fmt::format("{}: '{}' is not a number", what, rigport::detail::excerpt(token)));
    return std::nullopt;
}

std::optional<Error> Parser::integer(std::string_view what, int64_t& out) {
    const Result r = cur_.integer(out);
    const std::string_view token = cur_.line_text().substr(cur_.token_column() - 1, cur_.column() - cur_.token_column());
    if (r == Result::Missing) return error_here(fmt::format("{}: missing (the line ends)", what));
    if (r == Result::OutOfRange) return error_here(fmt::format("{}: integer '{}' is out of range", what, rigport::detail::excerpt(token)));
    if (r != Result::Ok) return error_here(fmt::format("{}: '{}' is not an integer", what, rigport::detail::excerpt(token)));
    return std::nullopt;
}

void Parser::rest_of_line(std::string_view what, std::string* comment) {
    const std::string_view t = cur_.token();
    if (t.empty()) return;
    if (is_comment(t)) {
        if (comment) {
            std::string_view c = cur_.line_text().substr(cur_.token_column() - 1);
            c.remove_prefix(c[0] == '/' ? 2 : 1);
            while (!c.empty() && io::TextCursor::is_blank(c.front())) c.remove_prefix(1);
            while (!c.empty() && io::TextCursor::is_blank(c.back())) c.remove_suffix(1);
            comment->assign(c);
        }
        return;
    }
    warn(WarningCode::Ignored, fmt::format("{}: fields after the last one ignored", what));
}

std::optional<Error> Parser::nodes_section() {
    for (;;) {
        if (!next_line()) return error_here("'nodes' without its 'end'");
        if (is_end()) {
            rest_of_line("end");
            return finish_nodes();
        }
        if (auto e = limit(nodes_.size(), "nodes")) return e;
        Node n;
        n.line = cur_.line();
        n.column = cur_.token_column();
        if (io::TextCursor::parse_integer(first_word_, n.id) != Result::Ok)
            return error_here(fmt::format("node: expected an id, found '{}'", rigport::detail::excerpt(first_word_)));
        std::string_view name;
        const Result r = cur_.name(name);
        if (r == Result::Missing) return error_here(fmt::format("node {}: the name is missing", n.id));
        if (r != Result::Ok) return error_here(fmt::format("node {}: the name has no closing quote", n.id));
        n.name.assign(name);
        if (auto e = integer(fmt::format("node {} \"{}\": parent", n.id, rigport::detail::excerpt(name)), n.parent)) return e;
        rest_of_line("node");
        nodes_.push_back(std::move(n));
    }
}

std::optional<Error> Parser::finish_nodes() {
    const size_t count = nodes_.size();
    auto at = [](const Node& n, std::string message) {
        Error e = make_error(ErrorCode::Malformed, std::move(message));
        e.line = n.line;
        e.column = n.column;
        return e;
    };
    // Ids are 0..count-1 in any order (studiomdl indexes its bone table by them); parents are ids.
    std::vector<int64_t> slot(count, -1);
    for (size_t i = 0; i < count; ++i) {
        const Node& n = nodes_[i];
        if (n.id < 0 || uint64_t(n.id) >= count)
            return at(n, fmt::format("node id {} is out of range: the {} nodes have ids 0..{}", n.id, count, int64_t(count) - 1));
        if (slot[size_t(n.id)] >= 0) return at(n, fmt::format("node id {} appears twice (line {})", n.id, nodes_[size_t(slot[size_t(n.id)])].line));
        slot[size_t(n.id)] = int64_t(i);
        if (n.parent < -1 || n.parent >= int64_t(count) || n.parent == n.id)
            return at(n, fmt::format("node {}: parent {} is not another node's id (-1 for a root)", n.id, n.parent));
    }
    // Joints parent-first: ids in order when every parent comes first (the usual case), else
    // each node after its parent (a cycle is an error); Skeleton::source_ids then keeps the ids.
    std::vector<uint32_t> order;
    order.reserve(count);
    std::vector<uint8_t> placed(count, 0);
    std::vector<uint32_t> depth(count, 0);
    bool moved = false;
    while (order.size() < count) {
        const size_t before = order.size();
        for (size_t id = 0; id < count; ++id) {
            const Node& n = nodes_[size_t(slot[id])];
            if (placed[id] || (n.parent >= 0 && !placed[size_t(n.parent)])) continue;
            depth[id] = n.parent >= 0 ? depth[size_t(n.parent)] + 1 : 1;
            if (depth[id] > options_.max_depth)
                return Error(at(n, fmt::format("node {} is {} parents deep, more than {} (LoadOptions::max_depth)", id, depth[id], options_.max_depth)));
            moved = moved || order.size() != id;
            placed[id] = 1;
            order.push_back(uint32_t(id));
        }
        if (order.size() == before) {
            for (size_t id = 0; id < count; ++id)
                if (!placed[id]) return at(nodes_[size_t(slot[id])], fmt::format("node {}: its parents form a cycle", id));
        }
    }
    joint_of_id_.assign(count, 0);
    for (uint32_t j = 0; j < count; ++j) joint_of_id_[order[j]] = j;
    Skeleton& sk = scene_.skeleton;
    for (uint32_t j = 0; j < count; ++j) {
        const Node& n = nodes_[size_t(slot[order[j]])];
        sk.joints.push_back(Joint{n.name, n.parent < 0 ? -1 : int32_t(joint_of_id_[size_t(n.parent)]), {}});
    }
    if (moved) sk.source_ids.assign(order.begin(), order.end());
    return std::nullopt;
}

std::optional<Error> Parser::skeleton_section(bool vertexanimation) {
    std::vector<TimeBlock>& times = vertexanimation ? flex_times_ : times_;
    const std::string_view section = vertexanimation ? "vertexanimation" : "skeleton";
    uint64_t lines = 0;
    for (;;) {
        if (!next_line()) return error_here(fmt::format("'{}' without its 'end'", section));
        if (is_end()) {
            rest_of_line("end");
            return std::nullopt;
        }
        if (auto e = limit(lines++, fmt::format("{} lines", section))) return e;
        if (first_word_ == "time") {
            TimeBlock block;
            block.line = cur_.line();
            if (auto e = integer("time", block.time)) return e;
            if (block.time < 0) return error_here(fmt::format("time {} is negative", block.time));
            if (uint64_t(block.time) >= options_.max_frames)
                return error_here(fmt::format("time {} is beyond {} frames (LoadOptions::max_frames)", block.time, options_.max_frames), ErrorCode::LimitExceeded);
            if (!times.empty() && block.time <= times.back().time)
                return error_here(fmt::format("time {} after time {}: the times of a section increase", block.time, times.back().time));
            rest_of_line("time", &block.comment);
            times.push_back(std::move(block));
            if (vertexanimation) flex_.emplace_back();
            continue;
        }
        if (times.empty()) return error_here(fmt::format("{}: a line before the first 'time'", section));
        if (vertexanimation) {
            if (auto e = flex_line(flex_.back())) return e;
            continue;
        }
        BonePose b;
        int64_t id = 0;
        if (io::TextCursor::parse_integer(first_word_, id) != Result::Ok)
            return error_here(fmt::format("skeleton: expected a node id or 'time', found '{}'", rigport::detail::excerpt(first_word_)));
        if (id < 0 || uint64_t(id) >= nodes_.size())
            return error_here(fmt::format("skeleton: node id {} is out of range: {} nodes", id, nodes_.size()));
        b.bone = uint32_t(id);
        static constexpr const char* fields[6] = {"position x", "position y", "position z", "rotation x", "rotation y", "rotation z"};
        for (int c = 0; c < 6; ++c)
            if (auto e = number(fmt::format("node {} at time {}: {}", id, times.back().time, fields[c]), c < 3 ? b.position[c] : b.rotation[c - 3])) return e;
        rest_of_line("skeleton");
        times.back().bones.push_back(b);
    }
}

std::optional<Error> Parser::build_reference() {
    Skeleton& sk = scene_.skeleton;
    uint64_t missing = sk.joints.size();
    if (!times_.empty()) {
        std::vector<uint8_t> seen(sk.joints.size(), 0);
        for (const BonePose& b : times_.front().bones) {
            const uint32_t j = joint_of_id_[b.bone];
            missing -= !seen[j];
            seen[j] = 1;
            sk.joints[j].bind = pose_of(b);
        }
    }
    if (missing)
        warn(WarningCode::Substituted, fmt::format("{} nodes without a pose in the first skeleton frame: identity bind poses", missing));
    if (times_.size() > 1)
        warn(WarningCode::Ignored, fmt::format("{} skeleton frames after the first (a reference SMD binds at its first frame; animations come from animation SMDs)",
                                               times_.size() - 1));
    if (have_flex_) warn(WarningCode::Ignored, "a vertexanimation section beside triangles (read the .vta on its own)");
    scene_.meta.dialect = source_lines_ ? "source" : goldsrc_lines_ ? "goldsrc" : "reference";
    return std::nullopt;
}

std::optional<Error> Parser::build_animation() {
    if (times_.empty()) return error_here("neither triangles nor skeleton frames: an SMD holds a mesh or an animation");
    Skeleton& sk = scene_.skeleton;
    const size_t joints = sk.joints.size();
    // Keys per joint where a frame gives its pose: a joint a frame leaves out is interpolated
    // between the frames that give it (the reference compiler copies the first frame's pose).
    std::vector<std::vector<std::pair<float, Transform>>> keys(joints);
    bool gaps = times_.back().time + 1 != int64_t(times_.size());
    for (const TimeBlock& block : times_) {
        std::vector<uint8_t> seen(joints, 0);
        for (const BonePose& b : block.bones) {
            const uint32_t j = joint_of_id_[b.bone];
            const std::pair<float, Transform> key{float(double(block.time) / frame_rate), pose_of(b)};
            if (seen[j]) keys[j].back() = key;  // given twice in one frame: the later line
            else keys[j].push_back(key);
            seen[j] = 1;
        }
        gaps = gaps || std::count(seen.begin(), seen.end(), 1) != std::ptrdiff_t(joints);
    }
    uint64_t unposed = 0;
    for (size_t j = 0; j < joints; ++j) {
        if (keys[j].empty()) ++unposed;
        else sk.joints[j].bind = keys[j].front().second;  // the first pose stands in for a bind pose
    }
    sk.animation_only = true;
    warn(WarningCode::AnimationOnly,
         fmt::format("an animation SMD: {} joints with names and parents, the first frame as their bind pose (bind to a mesh's skeleton by name)", joints));
    if (unposed) warn(WarningCode::Substituted, fmt::format("{} nodes without a pose in any frame: identity poses", unposed));
    if (gaps)
        warn(WarningCode::Interpreted, "skeleton frames that skip times or leave out nodes: those poses are interpolated between the frames that give them");

    Animation anim;
    anim.frame_rate = frame_rate;
    anim.frame_count = uint32_t(times_.back().time + 1);  // < max_frames
    for (size_t j = 0; j < joints; ++j) {
        if (keys[j].empty()) continue;
        for (Channel ch : {Channel::Translation, Channel::Rotation}) {
            JointTrack track;
            track.joint = uint32_t(j);
            track.channel = ch;
            const uint32_t c = track.components();
            auto value = [&](const Transform& t) { return ch == Channel::Translation ? t.translate.data() : t.rotate.data(); };
            const auto& k = keys[j];
            bool constant = true;
            for (size_t f = 1; f < k.size() && constant; ++f) constant = std::equal(value(k[0].second), value(k[0].second) + c, value(k[f].second));
            // Constant channels carry one key, as the IQM, IQE and MD5 readers do.
            for (size_t f = 0; f < (constant ? 1 : k.size()); ++f) {
                track.times.push_back(k[f].first);
                track.values.insert(track.values.end(), value(k[f].second), value(k[f].second) + c);
            }
            anim.tracks.push_back(std::move(track));
        }
    }
    apply_qc_sequence(anim, options_);  // its $sequence name, fps and loop from the .qc beside it
    scene_.animations.push_back(std::move(anim));
    scene_.meta.dialect = "animation";
    return std::nullopt;
}

Expected<Scene> Parser::run() {
    scene_.meta.source_format = "smd";
    bool have_version = false;
    while (next_line()) {
        const std::string_view k = first_word_;
        if (!have_version) {
            if (k != "version") return error_here(fmt::format("not an SMD file: expected 'version 1' first, found '{}'", rigport::detail::excerpt(k)));
            int64_t v = 0;
            if (auto e = integer("version", v)) return *e;
            if (v != version) return error_here(fmt::format("version {}: only version {} (GoldSrc and Source studiomdl) is read", v, version), ErrorCode::Unsupported);
            rest_of_line("version");
            have_version = true;
            scene_.meta.source_version = uint32_t(v);
            continue;
        }
        std::optional<Error> e;
        auto once = [&](bool& have) {
            if (have) return std::optional<Error>(error_here(fmt::format("a second '{}' section", k)));
            have = true;
            if (k != "nodes" && !have_nodes_) return std::optional<Error>(error_here(fmt::format("'{}' before 'nodes'", k)));
            rest_of_line(k);
            return std::optional<Error>();
        };
        if (k == "version") {
            e = error_here("a second 'version'");
        } else if (k == "nodes") {
            if (!(e = once(have_nodes_))) e = nodes_section();
        } else if (k == "skeleton") {
            if (!(e = once(have_skeleton_))) e = skeleton_section(false);
        } else if (k == "triangles") {
            if (!(e = once(have_triangles_))) e = triangles_section();
        } else if (k == "vertexanimation") {
            if (!(e = once(have_flex_))) e = skeleton_section(true);
        } else {
            // The reference compiler passes over lines it does not know; so does rigport, saying so.
            warn(WarningCode::UnknownCommand, fmt::format("unknown line '{}' ignored", rigport::detail::excerpt(k)));
        }
        if (e) return *e;
    }
    std::optional<Error> e;
    if (!have_version) e = error_here("not an SMD file: no 'version 1'");
    else if (!have_nodes_) e = error_here("no 'nodes' section");
    else if (have_triangles_) e = build_reference();
    else if (have_flex_) e = build_vertexanimation();
    else e = build_animation();
    if (e) return *e;
    // Source and GoldSrc share IQM's axes (Z up, right-handed); their tools write triangles
    // counter-clockwise seen from the front (docs/smd.md "Winding").
    Meta& meta = scene_.meta;
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::CounterClockwise;
    // The scene's invariants are checked by load_bytes, once for every format (src/pipeline/load.cpp).
    return std::move(scene_);
}

}  // namespace detail

bool detect(std::span<const uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 4096));
    io::TextCursor cur(text);
    while (cur.next_line()) {
        const std::string_view word = cur.token();
        if (word.empty() || word[0] == '#' || word[0] == ';' || word.substr(0, 2) == "//") continue;
        int64_t v = 0;
        return word == "version" && cur.integer(v) == io::TextCursor::Result::Ok && cur.at_line_end();
    }
    return false;
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    // LoadOptions::max_file_bytes: checked once by load_bytes and read_input, before any reader.
    return detail::Parser(bytes, options).run();
}

}  // namespace rigport::smd

// MD5 reader (MD5Version 10; docs/md5.md): the header keywords and the dispatch to the .md5mesh
// and .md5anim sections. The order of sections is free, as in the reference compiler; within a
// section idTech 4's token order is required.
#include "formats/md5/md5_parser.hpp"

namespace rigport::md5 {

namespace detail {

std::optional<Error> Parser::header(const Token& keyword, bool& handled) {
    handled = true;
    const std::string_view k = keyword.text;
    auto once = [&](auto& slot) -> std::optional<Error> {
        if (slot) return error_at(keyword, fmt::format("a second '{}'", k));
        return std::nullopt;
    };
    if (k == "numJoints") {
        if (auto e = once(num_joints_)) return e;
        uint64_t n = 0;
        if (auto e = count(k, 8, n)) return e;
        num_joints_ = n;
    } else if (k == "numMeshes") {
        if (auto e = set_kind(FileKind::Mesh, keyword)) return e;
        if (auto e = once(num_meshes_)) return e;
        uint64_t n = 0;
        if (auto e = count(k, 0, n)) return e;
        num_meshes_ = n;
    } else if (k == "numFrames") {
        if (auto e = set_kind(FileKind::Anim, keyword)) return e;
        if (auto e = once(num_frames_)) return e;
        uint64_t n = 0;
        if (auto e = count(k, 0, n)) return e;
        if (n == 0) return error_at(last_, "numFrames 0: an animation has at least one frame");
        if (n > options_.max_frames)
            return error_at(last_, fmt::format("numFrames {} is more than {} (LoadOptions::max_frames)", n, options_.max_frames), ErrorCode::LimitExceeded);
        num_frames_ = n;
    } else if (k == "frameRate") {
        if (auto e = set_kind(FileKind::Anim, keyword)) return e;
        if (auto e = once(frame_rate_)) return e;
        double rate = 0;
        if (auto e = number(k, rate)) return e;
        frame_rate_ = rate;
        frame_rate_at_ = last_;
    } else if (k == "numAnimatedComponents") {
        if (auto e = set_kind(FileKind::Anim, keyword)) return e;
        if (auto e = once(num_components_)) return e;
        uint64_t n = 0;
        if (auto e = count(k, 0, n)) return e;
        num_components_ = n;
    } else {
        handled = false;
    }
    return std::nullopt;
}

Expected<Scene> Parser::run() {
    scene_.meta.source_format = "md5";
    for (;;) {
        const Token t = last_ = lex_.next();
        if (t.kind == Kind::End) break;
        if (t.kind != Kind::Word) return error_at(t, fmt::format("expected a keyword, found {}", describe(t)));
        const std::string_view k = t.text;
        if (!have_version_) {
            if (k != "MD5Version") return error_at(t, fmt::format("not an MD5 file: expected 'MD5Version' first, found {}", describe(t)));
            int64_t v = 0;
            if (auto e = integer(k, v)) return *e;
            if (v != version) return error_at(last_, fmt::format("MD5Version {}: only version {} (Doom 3, idTech 4) is read", v, version), ErrorCode::Unsupported);
            have_version_ = true;
            scene_.meta.source_version = uint32_t(v);
            continue;
        }
        bool handled = false;
        if (auto e = header(t, handled)) return *e;
        if (handled) continue;
        std::optional<Error> e;
        if (k == "MD5Version") {
            e = error_at(t, "a second 'MD5Version'");
        } else if (k == "commandline") {
            e = name(k, scene_.meta.comment);
        } else if (k == "joints" || k == "mesh") {
            if (!(e = set_kind(FileKind::Mesh, t)) && !(e = expect(Kind::OpenBrace, "'{'", k))) e = k == "joints" ? joints_block() : mesh_block();
        } else if (k == "hierarchy" || k == "bounds" || k == "baseframe" || k == "frame") {
            if (!(e = set_kind(FileKind::Anim, t))) {
                if (k == "frame") e = frame_block();
                else if (!(e = expect(Kind::OpenBrace, "'{'", k)))
                    e = k == "hierarchy" ? hierarchy_block() : k == "bounds" ? bounds_block() : baseframe_block();
            }
        } else if (k == "numCuts" || k == "cuts" || k == "camera") {
            e = error_at(t, fmt::format("'{}': an MD5 camera (.md5camera) holds no model", k), ErrorCode::Unsupported);
        } else {
            e = error_at(t, fmt::format("unknown keyword {}", describe(t)));
        }
        if (e) return *e;
    }
    std::optional<Error> e;
    if (!have_version_) e = error_at(last_, "not an MD5 file: no 'MD5Version'");
    else if (kind_ == FileKind::Mesh) e = finish_mesh(last_);
    else if (kind_ == FileKind::Anim) e = finish_anim(last_);
    else e = error_at(last_, "neither an .md5mesh (joints, mesh) nor an .md5anim (hierarchy, frames)");
    if (e) return *e;
    Meta& meta = scene_.meta;
    meta.dialect = kind_ == FileKind::Mesh ? "md5mesh" : "md5anim";
    // idTech 4 shares IQM's conventions (docs/md5.md): Z up, right-handed, clockwise front faces.
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    // The scene's invariants are checked by load_bytes, once for every format (src/pipeline/load.cpp).
    return std::move(scene_);
}

}  // namespace detail

bool detect(std::span<const uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 4096));
    detail::Lexer lex(text);
    const detail::Token t = lex.next();
    return t.kind == detail::Kind::Word && t.text == "MD5Version";
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    // LoadOptions::max_file_bytes: checked once by load_bytes and read_input, before any reader.
    return detail::Parser(bytes, options).run();
}

}  // namespace rigport::md5

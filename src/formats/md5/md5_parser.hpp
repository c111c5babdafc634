// The MD5 reader's state, shared by its parts: md5_read.cpp reads the header and dispatches,
// md5_read_mesh.cpp the joints and meshes of an .md5mesh, md5_read_anim.cpp the hierarchy,
// baseframe and frames of an .md5anim. Every count and index is checked where it is read, and an
// Error names line:col.
#pragma once

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "support/excerpt.hpp"
#include "formats/md5/md5.hpp"
#include "formats/md5/md5_lexer.hpp"
#include "support/text_cursor.hpp"

namespace rigport::md5::detail {

enum class FileKind : uint8_t { Unknown, Mesh, Anim };

// A joint of an .md5mesh, in object space as stored.
struct MeshJoint {
    std::string name;
    int32_t parent = -1;
    std::array<double, 3> position{};
    std::array<double, 4> orientation{0, 0, 0, 1};
};

// A mesh block as stored: positions come from the weights once the joints are known.
struct RawMesh {
    struct Vert {
        double u = 0, v = 0;
        uint32_t start = 0, count = 0;
    };
    struct Weight {
        uint32_t joint = 0;
        double bias = 0;
        std::array<double, 3> position{};
    };
    std::string name, shader;
    std::vector<Vert> verts;
    std::vector<Triangle> tris;
    std::vector<Weight> weights;
};

class Parser {
public:
    Parser(std::span<const uint8_t> bytes, const LoadOptions& options)
        : lex_(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())), options_(options) {}
    Expected<Scene> run();

private:
    // ---- errors and tokens ----
    static Error error_at(const Token& t, std::string message, ErrorCode code = ErrorCode::Malformed) {
        Error e = make_error(code, std::move(message));
        e.line = t.line;
        e.column = t.column;
        return e;
    }
    static std::string describe(const Token& t) {
        switch (t.kind) {
            case Kind::Word: return fmt::format("'{}'", rigport::detail::excerpt(t.text));
            case Kind::String: return fmt::format("\"{}\"", rigport::detail::excerpt(t.text));
            case Kind::OpenBrace: return "'{'";
            case Kind::CloseBrace: return "'}'";
            case Kind::OpenParen: return "'('";
            case Kind::CloseParen: return "')'";
            case Kind::Unterminated: return "a name without its closing quote";
            case Kind::End: break;
        }
        return "the end of the file";
    }
    void warn(WarningCode code, std::string message, const Token& at) { scene_.warnings.add(code, std::move(message), at.offset); }
    // A warning about the whole file (a count over it): no place.
    void warn(WarningCode code, std::string message) { scene_.warnings.add(code, std::move(message)); }

    std::optional<Error> expect(Kind kind, std::string_view what, std::string_view context) {
        last_ = lex_.next();
        if (last_.kind == kind) return std::nullopt;
        return error_at(last_, fmt::format("{}: expected {}, found {}", context, what, describe(last_)));
    }
    std::optional<Error> name(std::string_view context, std::string& out) {
        last_ = lex_.next();
        if (last_.kind != Kind::String) return error_at(last_, fmt::format("{}: expected a \"quoted\" name, found {}", context, describe(last_)));
        out.assign(last_.text);
        return std::nullopt;
    }
    std::optional<Error> integer(std::string_view context, int64_t& out) {
        last_ = lex_.next();
        if (last_.kind != Kind::Word) return error_at(last_, fmt::format("{}: expected an integer, found {}", context, describe(last_)));
        const auto r = io::TextCursor::parse_integer(last_.text, out);
        if (r == io::TextCursor::Result::OutOfRange) return error_at(last_, fmt::format("{}: integer {} is out of range", context, describe(last_)));
        if (r != io::TextCursor::Result::Ok) return error_at(last_, fmt::format("{}: {} is not an integer", context, describe(last_)));
        return std::nullopt;
    }
    // A finite number that fits a float (every value MD5 stores ends up as one).
    std::optional<Error> number(std::string_view context, double& out) {
        last_ = lex_.next();
        if (last_.kind != Kind::Word) return error_at(last_, fmt::format("{}: expected a number, found {}", context, describe(last_)));
        const auto r = io::TextCursor::parse_number(last_.text, out);
        if (r == io::TextCursor::Result::OutOfRange || (r == io::TextCursor::Result::Ok && std::fabs(out) > FLT_MAX))
            return error_at(last_, fmt::format("{}: number {} is out of range", context, describe(last_)));
        if (r != io::TextCursor::Result::Ok) return error_at(last_, fmt::format("{}: {} is not a number", context, describe(last_)));
        return std::nullopt;
    }
    // "( a b ... )" with n numbers.
    std::optional<Error> vector(std::string_view context, double* out, int n) {
        if (auto e = expect(Kind::OpenParen, "'('", context)) return e;
        for (int i = 0; i < n; ++i)
            if (auto e = number(context, out[i])) return e;
        return expect(Kind::CloseParen, "')'", context);
    }
    // A count (numverts 24): >= 0, within max_elements, and no more elements than the rest of the
    // file could hold at min_bytes each (a 40-byte file cannot ask for 4e9 vertices).
    std::optional<Error> count(std::string_view keyword, uint64_t min_bytes, uint64_t& out) {
        int64_t n = 0;
        if (auto e = integer(keyword, n)) return e;
        if (n < 0) return error_at(last_, fmt::format("{} {} is negative", keyword, n));
        if (uint64_t(n) > options_.max_elements)
            return error_at(last_, fmt::format("{} {} is more than {} (LoadOptions::max_elements)", keyword, n, options_.max_elements), ErrorCode::LimitExceeded);
        if (min_bytes > 0 && uint64_t(n) > lex_.remaining() / min_bytes)
            return error_at(last_, fmt::format("{} {}: the {} bytes left in the file cannot hold them", keyword, n, lex_.remaining()));
        out = uint64_t(n);
        return std::nullopt;
    }
    // An element's index (vert 3 ...): 0 <= index < declared.
    std::optional<Error> index(std::string_view keyword, std::optional<uint64_t> declared, std::string_view count_name, uint64_t& out) {
        int64_t i = 0;
        if (auto e = integer(keyword, i)) return e;
        if (!declared) return error_at(last_, fmt::format("'{}' before '{}'", keyword, count_name));
        if (i < 0 || uint64_t(i) >= *declared)
            return error_at(last_, fmt::format("{} {} is out of range: {} {}", keyword, i, count_name, *declared));
        out = uint64_t(i);
        return std::nullopt;
    }
    std::optional<Error> set_kind(FileKind kind, const Token& at) {
        if (kind_ == FileKind::Unknown) kind_ = kind;
        if (kind_ == kind) return std::nullopt;
        return error_at(at, fmt::format("{} belongs to an .{}, but this file is an .{}", describe(at), kind == FileKind::Mesh ? "md5mesh" : "md5anim",
                                        kind_ == FileKind::Mesh ? "md5mesh" : "md5anim"));
    }

    // ---- sections ----
    std::optional<Error> header(const Token& keyword, bool& handled);
    std::optional<Error> joints_block();
    std::optional<Error> mesh_block();
    std::optional<Error> finish_mesh(const Token& end);
    std::optional<Error> hierarchy_block();
    std::optional<Error> bounds_block();
    std::optional<Error> baseframe_block();
    std::optional<Error> frame_block();
    std::optional<Error> finish_anim(const Token& end);

    Lexer lex_;
    const LoadOptions& options_;
    Token last_;
    FileKind kind_ = FileKind::Unknown;
    Scene scene_;
    bool have_version_ = false;

    // .md5mesh
    std::optional<uint64_t> num_joints_, num_meshes_;
    std::vector<MeshJoint> joints_;
    std::vector<RawMesh> meshes_;
    bool have_joints_ = false;
    uint32_t meshes_read_ = 0, empty_meshes_ = 0;
    uint64_t vertex_total_ = 0, weight_total_ = 0;
    int64_t max_weight_joint_ = -1;  // checked against the joints at the end (a mesh may come first)
    Token max_weight_joint_at_;

    // .md5anim
    struct HierarchyJoint {
        std::string name;
        int32_t parent = -1;
        uint32_t flags = 0, start = 0;
        Token at;
    };
    std::optional<uint64_t> num_frames_, num_components_;
    std::optional<double> frame_rate_;
    Token frame_rate_at_;
    std::vector<HierarchyJoint> hierarchy_;
    std::vector<Transform> baseframe_;
    bool have_hierarchy_ = false, have_baseframe_ = false;
    uint64_t bounds_read_ = 0;
    bool have_bounds_ = false;
    std::vector<float> frames_;       // num_frames x num_components, allocated at the first frame
    std::vector<uint8_t> frame_seen_;
};

}  // namespace rigport::md5::detail

// The IQE reader's state, shared by its parts: iqe_parse.cpp reads the commands into it,
// iqe_parse_chunks.cpp reads large files in parallel chunks (a Parser per chunk, joined into one),
// iqe_assemble.cpp turns what was read into the scene (skeleton, meshes, animations).
#pragma once

#include <fmt/format.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "support/excerpt.hpp"
#include "formats/iqe/iqe.hpp"
#include "support/text_cursor.hpp"
#include "process/smooth_normals.hpp"

namespace rigport::iqe::detail {

using io::TextCursor;
using Result = TextCursor::Result;

constexpr std::string_view header_text = "# Inter-Quake Export";
constexpr uint32_t custom_count = 10;

// Per-vertex attribute bits: which commands a vertex had.
enum : uint16_t { HAS_VT = 1, HAS_VN = 2, HAS_VX = 4, HAS_VC = 8, HAS_VS = 16, HAS_VB = 32, HAS_V0 = 64 };

struct CustomDecl {
    std::string name;  // empty = "customN"
    ComponentType type = ComponentType::Float32;
    uint32_t size = 4;
};

// A scene mesh being collected: the vertex ranges of its blocks and its faces (file indices).
struct OutMesh {
    std::string name, material;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // [first, end) file vertices
    std::vector<Triangle> triangles;                     // file vertex indices
    std::vector<TriangleSmoothing> smoothing;
};

// Where a chunk parser (iqe_parse_chunks.cpp) met a line it leaves to the serial pass (or the
// chunk's end), and what its segment (the hot lines since the previous cut) read: counts in the
// chunk parser's arrays at this cut, and the per-segment state that the serial pass resolves.
struct ChunkCut {
    size_t offset = 0;  // chunk-relative start of the line (the chunk's size at its end)
    uint32_t line = 0;  // chunk-local line number of that line
    uint32_t vertices = 0, influences = 0, triangles = 0, poses = 0, bitangents = 0;
    bool relative = false;  // the segment's faces are fm (else fa)
    bool has_normals = false, has_tangents = false, any_vs = false, any_face = false;
    int64_t max_face_index = -1, max_vb_joint = -1;  // as written; -1 = none
    uint32_t max_face_line = 0, max_face_column = 0, max_vb_line = 0, max_vb_column = 0;
    uint32_t last_face_first = 0, last_face_corners = 0;
    uint64_t first_face_offset = 0;  // chunk-relative line of the segment's first face
};

struct Frame {
    std::vector<Transform> poses;
};
struct AnimState {
    Animation anim;
    std::vector<Frame> frames;
    uint32_t line = 0, column = 0;
};

class Parser {
public:
    Parser(std::string_view text, const LoadOptions& options) : text_(text), cur_(text_), options_(options) {}
    Expected<Document> run();

    // ---- parallel parse (iqe_parse_chunks.cpp) ----
    // A chunk parser: reads the hot lines of its chunk (vertex, face and pose commands) into its
    // own arrays, cutting at every other line; stops at the first line it cannot read exactly
    // without the state before the chunk (any warning or error, an attribute before the segment's
    // first vp, a negative face index, fm mixed with fa), so the serial pass reads from there on.
    void parse_chunk(std::vector<ChunkCut>& cuts, size_t& bad_segment, uint32_t& lines, uint64_t& last_line_offset);

private:
    // ---- errors ----
    Error error_at(uint32_t line, uint32_t column, std::string message, ErrorCode code = ErrorCode::Malformed) const {
        Error e = make_error(code, std::move(message));
        e.line = line;
        e.column = column;
        return e;
    }
    Error error_here(std::string message, ErrorCode code = ErrorCode::Malformed) const {
        return error_at(cur_.line(), cur_.token_column(), std::move(message), code);
    }
    [[gnu::noinline, gnu::cold]] Error bad_number(std::string_view cmd, Result r) const {
        std::string_view tok = cur_.line_text().substr(cur_.token_column() - 1);
        tok = tok.substr(0, std::min<size_t>(tok.find_first_of(" \t"), 40));
        if (r == Result::OutOfRange) return error_here(fmt::format("{}: number '{}' is out of range", cmd, rigport::detail::excerpt(tok)));
        return error_here(fmt::format("{}: '{}' is not a number", cmd, rigport::detail::excerpt(tok)));
    }
    std::optional<Error> limit(uint64_t count, const char* what) const {
        if (count >= options_.max_elements) [[unlikely]]
            return limit_error(what);
        return std::nullopt;
    }
    // Errors and warnings are built out of the hot path, only when they happen.
    [[gnu::noinline, gnu::cold]] Error limit_error(const char* what) const {
        return error_here(fmt::format("more than {} {} (LoadOptions::max_elements)", options_.max_elements, what), ErrorCode::LimitExceeded);
    }
    void warn(WarningCode code, std::string message) { warn_at(code, std::move(message), cur_.line_offset()); }
    void warn_at(WarningCode code, std::string message, uint64_t offset) {
        if (chunk_mode_) bad_ = true;  // a warning's place and order are the serial pass's to give
        else doc_.scene.warnings.add(code, std::move(message), offset);
    }

    // Reads up to `max` numbers (missing ones keep the caller's defaults); `floats` asks that
    // each fits a float. count = numbers present.
    std::optional<Error> numbers(std::string_view cmd, double* out, int max, int& count, bool floats = true) {
        count = 0;
        while (count < max) {
            double v = 0;
            const Result r = cur_.scan_number(v);
            if (r == Result::Missing) break;  // nothing but blanks left on the line
            if (r != Result::Ok) [[unlikely]]
                return bad_number(cmd, r);
            if (floats && std::fabs(v) > FLT_MAX) [[unlikely]]
                return bad_number(cmd, Result::OutOfRange);
            out[count++] = v;
        }
        return std::nullopt;
    }
    std::optional<Error> name(std::string_view cmd, std::string_view& out) {
        Result r = cur_.name(out);
        if (r == Result::Invalid) return error_here(fmt::format("{}: the quoted name has no closing quote", cmd));
        return std::nullopt;
    }

    // ---- commands ----
    std::optional<Error> command(std::string_view cmd);
    std::optional<Error> vertex_attribute(std::string_view cmd);
    std::optional<Error> face(std::string_view cmd, bool relative);
    [[gnu::noinline, gnu::cold]] Error bad_face_index(std::string_view cmd, int64_t i, uint64_t n) const;
    std::optional<Error> face_smoothing();
    std::optional<Error> pose(std::string_view cmd);
    std::optional<Error> joint();
    std::optional<Error> vertexarray();
    std::optional<Error> custom_values(uint32_t k);

    // The vertex a vertex command belongs to (the last `vp`), marking `bit`; nullopt = none yet.
    std::optional<uint32_t> attribute_vertex(std::string_view cmd, uint16_t bit) {
        const uint32_t n = static_cast<uint32_t>(positions_.size());
        if (n == segment_first_vertex_) [[unlikely]] {  // 0 except in a chunk parser
            warn_attribute(cmd, false);
            return std::nullopt;
        }
        if ((has_[n - 1] & bit) && bit != HAS_VB) [[unlikely]]
            warn_attribute(cmd, true);
        has_[n - 1] |= bit;
        return n - 1;
    }
    [[gnu::noinline, gnu::cold]] void warn_attribute(std::string_view cmd, bool second) {
        if (second) warn(WarningCode::Tolerated, fmt::format("a second '{}' for one vertex; the later one is kept", cmd));
        else warn(WarningCode::Ignored, fmt::format("'{}' before any 'vp'; ignored", cmd));
    }
    template <class T>
    static void set(std::vector<T>& values, uint32_t v, const T& value, const T& missing) {
        if (values.size() == v) return values.push_back(value);  // the usual case: the next vertex
        if (values.size() < v) values.resize(v + 1, missing);
        values[v] = value;
    }

    void close_block();
    // The scene mesh of the current block (fixes its key); a warning for a repeated block goes
    // at `offset` (the line of the block's first face).
    uint32_t block_mesh() { return block_mesh(cur_.line_offset()); }
    uint32_t block_mesh(uint64_t offset);
    std::optional<Error> parse_lines(size_t end);  // serially, from the cursor to the line at `end`
    std::optional<Error> parse_line();
    struct Chunk;  // a chunk of the text and its parser (iqe_parse_chunks.cpp)
    std::optional<Error> run_chunks(uint32_t threads);
    std::optional<Error> join_chunk(Chunk& chunk);
    bool apply_segment(const Chunk& chunk, const ChunkCut& from, const ChunkCut& to);
    ChunkCut cut_segment();
    std::optional<Error> finish();
    std::optional<Error> build_skeleton();
    std::optional<Error> build_meshes();
    std::optional<Error> build_animations();

    std::string_view text_;
    TextCursor cur_;
    const LoadOptions& options_;
    Document doc_;

    // Vertices in file order.
    std::vector<Vec3> positions_;
    std::vector<uint16_t> has_;
    std::vector<Vec2> texcoords_;
    std::vector<Vec3> normals_;
    std::vector<Vec4> tangents_;
    std::vector<Vec4> colors_;
    std::vector<int32_t> smooth_index_;
    std::vector<uint32_t> skin_offsets_{0};
    std::vector<Influence> influences_;
    std::array<std::vector<double>, custom_count> custom_;  // 4 values per vertex
    std::vector<std::pair<uint32_t, Vec3>> bitangents_;   // 6-number vx, resolved at the end
    std::array<CustomDecl, custom_count> custom_decl_;
    bool any_vs_ = false, any_face_ = false;

    // Blocks and meshes.
    std::vector<OutMesh> meshes_;
    std::unordered_map<std::string, uint32_t> mesh_index_;  // name + '\0' + material
    std::string block_name_, block_material_;
    uint32_t block_first_ = 0, fm_base_ = 0;
    int64_t block_mesh_ = -1;
    TriangleSmoothing smoothing_;
    uint32_t last_face_mesh_ = 0, last_face_first_ = 0, last_face_corners_ = 0;
    bool last_face_valid_ = false;

    // Deferred range checks: the largest face index and vb joint, where they were seen.
    // The message is built only if the check fails: the index as written and whether it was fm.
    int64_t max_face_index_ = -1, max_face_written_ = 0;
    bool max_face_relative_ = false;
    uint32_t max_face_line_ = 0, max_face_column_ = 0;
    int64_t max_vb_joint_ = -1;
    uint32_t max_vb_line_ = 0, max_vb_column_ = 0;

    // Skeleton and animations.
    std::vector<Joint> joints_;
    std::vector<Transform> bind_poses_;
    std::vector<AnimState> anims_;
    uint64_t pose_total_ = 0, frame_total_ = 0, triangle_total_ = 0;
    std::vector<int64_t> indices_;  // scratch for faces
    bool comment_ = false;          // `comment` read: the rest of the file is the comment

    // Chunk parser state: bad_ = met a line it leaves to the serial pass.
    bool chunk_mode_ = false, bad_ = false;
    uint32_t segment_first_vertex_ = 0;
    int8_t segment_face_kind_ = -1;  // -1 none yet, 0 fa, 1 fm
    uint64_t segment_first_face_offset_ = 0;
};

}  // namespace rigport::iqe::detail

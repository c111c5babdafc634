// The OBJ reader's state, shared by its parts: obj_read.cpp reads the .obj lines and builds the
// scene, obj_read_mtl.cpp the .mtl material libraries. A cursor over the whole buffer; every
// count is bounded by LoadOptions::max_elements where it grows, and an Error names line:col.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats/obj/obj.hpp"
#include "support/text_cursor.hpp"
#include "process/smooth_normals.hpp"

namespace rigport::obj::detail {

using Result = io::TextCursor::Result;

// A face corner as 0-based indices into the file's v / vt / vn lists; -1 = not given.
struct Corner {
    int64_t v = -1, vt = -1, vn = -1;
    bool operator==(const Corner&) const = default;
};
struct CornerHash {
    size_t operator()(const Corner& c) const {
        return std::hash<int64_t>()(c.v) ^ (std::hash<int64_t>()(c.vt) * 31) ^ (std::hash<int64_t>()(c.vn) * 1000003);
    }
};

// One run of faces under one (group, material): a mesh. Identical corners share a vertex.
struct MeshBuild {
    std::string name;
    int32_t material = -1;  // index into Parser::used_materials_
    std::vector<Corner> vertices;
    std::vector<uint32_t> vertex_line, vertex_column;  // where each vertex's corner was first written
    std::unordered_map<Corner, uint32_t, CornerHash> corners;
    std::vector<Triangle> triangles;
    std::vector<TriangleSmoothing> smoothing;
};

class Parser {
public:
    Parser(std::span<const uint8_t> bytes, const LoadOptions& options)
        : text_(reinterpret_cast<const char*>(bytes.data()), bytes.size()), cur_(text_), options_(options) {}
    Expected<Scene> run();

private:
    Error error_here(std::string message, ErrorCode code = ErrorCode::Malformed) const {
        Error e = make_error(code, std::move(message));
        e.line = std::max(1u, cur_.line());
        e.column = std::max(1u, cur_.token_column());
        return e;
    }
    void warn(WarningCode code, std::string message) { scene_.warnings.add(code, std::move(message), cur_.line_offset()); }
    std::optional<Error> limit(uint64_t count, std::string_view what) const {
        if (count < options_.max_elements) return std::nullopt;
        return error_here(fmt::format("more than {} {} (LoadOptions::max_elements)", options_.max_elements, what), ErrorCode::LimitExceeded);
    }
    // Up to `most` numbers of a v / vt / vn line (at least `least`); `count` says how many were read.
    std::optional<Error> numbers(std::string_view what, size_t least, size_t most, double* out, size_t& count);
    // The rest of the line, blanks trimmed: a name that may hold blanks (usemtl, g, newmtl).
    std::string_view rest_of_line();

    std::optional<Error> face_line();
    std::optional<Error> corner(std::string_view token, Corner& out);
    void start_run_if_changed();
    void mtllib_line();
    // Reads one material library (obj_read_mtl.cpp); its problems are warnings naming it.
    void read_mtl(const std::string& uri, std::span<const uint8_t> bytes);
    std::optional<Error> build();

    std::string_view text_;
    io::TextCursor cur_;
    const LoadOptions& options_;
    Scene scene_;

    std::vector<Vec3> v_;
    std::vector<Vec4> colors_;  // empty, or one per v_ once a v line gave a colour
    std::vector<Vec2> vt_;
    std::vector<Vec3> vn_;
    std::vector<MeshBuild> builds_;
    int64_t run_ = -1;  // the build faces go to; -1 = start one at the next face
    std::string object_, group_, material_;
    TriangleSmoothing smoothing_;
    std::unordered_map<int64_t, int32_t> smoothing_groups_;  // s key -> group id
    uint64_t corners_ = 0, triangles_ = 0;
    std::vector<std::pair<Corner, uint32_t>> face_;  // the current f line's corners and their columns

    // Materials by name as the .mtl files define them (a later definition wins, as in assimp),
    // and the names usemtl asked for, in order of first use: the scene's materials.
    std::unordered_map<std::string, Material> defined_;
    std::vector<std::string> used_materials_;
    std::unordered_map<std::string, int32_t> used_index_;
    bool have_mtllib_ = false;
    std::unordered_set<std::string> mtllibs_read_;  // names mtllib gave, each read once
};

}  // namespace rigport::obj::detail

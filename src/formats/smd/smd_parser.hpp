// The SMD reader's state, shared by its parts: smd_read.cpp reads the header, nodes and skeleton
// and builds the scene; smd_read_triangles.cpp the triangles and vertexanimation sections. The
// file is read line by line with a cursor over the whole buffer; every count and index is
// checked where it is read, and an Error names line:col.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/smd/smd.hpp"
#include "support/text_cursor.hpp"

namespace rigport::smd::detail {

using Result = io::TextCursor::Result;

struct Node {
    std::string name;
    int64_t id = 0, parent = -1;
    uint32_t line = 0, column = 0;
};

// One bone line of a skeleton time block, as stored.
struct BonePose {
    uint32_t bone = 0;  // node id
    std::array<double, 3> position{}, rotation{};
};
struct TimeBlock {
    int64_t time = 0;
    std::string comment;  // "time 1 # Key 1": the .vta's shape name
    uint32_t line = 0;
    std::vector<BonePose> bones;
};

// A vertexanimation line: a vertex of the base (time 0) or its new place in a later block.
struct FlexVertex {
    uint32_t index = 0;
    uint32_t line = 0;
    std::array<float, 3> position{}, normal{};
};

// One mesh per material while the triangles are read; identical corners share a vertex.
struct MeshBuild {
    uint32_t mesh = 0;
    std::unordered_map<std::string, uint32_t> corners;  // a corner's bytes -> its vertex
};

class Parser {
public:
    Parser(std::span<const uint8_t> bytes, const LoadOptions& options)
        : text_(reinterpret_cast<const char*>(bytes.data()), bytes.size()), cur_(text_), options_(options) {}
    Expected<Scene> run();

private:
    // ---- lines, errors and fields ----
    // The next line that is not blank or a comment (# ; //); false at the end of the file.
    bool next_line();
    bool is_end() { return first_word_ == "end"; }
    Error error_here(std::string message, ErrorCode code = ErrorCode::Malformed) const {
        Error e = make_error(code, std::move(message));
        e.line = std::max(1u, cur_.line());  // line 0: an empty file
        e.column = std::max(1u, cur_.token_column());
        return e;
    }
    void warn(WarningCode code, std::string message) { scene_.warnings.add(code, std::move(message), cur_.line_offset()); }
    // A float-sized finite number / an integer, named by `what` in the error.
    std::optional<Error> number(std::string_view what, double& out);
    std::optional<Error> integer(std::string_view what, int64_t& out);
    // After the last field: only blanks or a comment may follow ("time 1 # Key 1"); else a warning.
    void rest_of_line(std::string_view what, std::string* comment = nullptr);
    std::optional<Error> limit(uint64_t count, std::string_view what) const {
        if (count < options_.max_elements) return std::nullopt;
        return error_here(fmt::format("more than {} {} (LoadOptions::max_elements)", options_.max_elements, what), ErrorCode::LimitExceeded);
    }

    // ---- sections (each ends at its "end" line) ----
    std::optional<Error> nodes_section();
    std::optional<Error> skeleton_section(bool vertexanimation);
    std::optional<Error> triangles_section();
    std::optional<Error> vertex_line(uint32_t mesh_slot, uint32_t& vertex);
    std::optional<Error> flex_line(std::vector<FlexVertex>& out);
    std::optional<Error> finish_nodes();
    std::optional<Error> build_reference();
    std::optional<Error> build_animation();
    std::optional<Error> build_vertexanimation();

    std::string_view text_;
    io::TextCursor cur_;
    const LoadOptions& options_;
    Scene scene_;
    std::string_view first_word_;  // of the current line, consumed

    bool have_nodes_ = false, have_skeleton_ = false, have_triangles_ = false, have_flex_ = false;
    std::vector<Node> nodes_;
    std::vector<uint32_t> joint_of_id_;  // node id -> joint index (parent-first order)
    std::vector<TimeBlock> times_;
    std::vector<TimeBlock> flex_times_;
    std::vector<std::vector<FlexVertex>> flex_;  // per flex time block
    std::vector<MeshBuild> builds_;
    std::unordered_map<std::string, uint32_t> mesh_of_material_;
    uint64_t corners_ = 0, links_total_ = 0;
    bool goldsrc_lines_ = false, source_lines_ = false;
};

}  // namespace rigport::smd::detail

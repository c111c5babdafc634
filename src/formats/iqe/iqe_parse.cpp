// IQE reader (iqe.txt 2010-04-20 + `vx` 2012-01-11; docs/iqe.md §1, docs/iqm.md §9 rule 14): text -> Document,
// every command of the spec, without the reference compiler's missing checks (bugs 2 and 7).
// The commands are read here (files of 1 MiB or more in parallel chunks: iqe_parse_chunks.cpp);
// iqe_assemble.cpp builds the scene from them (iqe_parser.hpp).
#include <algorithm>

#include "model/quatd.hpp"
#include "formats/iqe/iqe_parser.hpp"
#include "rigport/process.hpp"

namespace rigport::iqe {

namespace detail {

namespace {

bool equal_ci(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

std::optional<ComponentType> component_by_name(std::string_view s) {
    static constexpr std::pair<std::string_view, ComponentType> names[] = {
        {"byte", ComponentType::Int8},   {"ubyte", ComponentType::UInt8},  {"short", ComponentType::Int16},
        {"ushort", ComponentType::UInt16}, {"int", ComponentType::Int32},  {"uint", ComponentType::UInt32},
        {"half", ComponentType::Half},   {"float", ComponentType::Float32}, {"double", ComponentType::Float64}};
    for (auto& [n, t] : names)
        if (equal_ci(s, n)) return t;
    return std::nullopt;
}

// The range of an integer component type, for custom values.
std::pair<double, double> integer_range(ComponentType t) {
    switch (t) {
        case ComponentType::Int8: return {-128, 127};
        case ComponentType::UInt8: return {0, 255};
        case ComponentType::Int16: return {-32768, 32767};
        case ComponentType::UInt16: return {0, 65535};
        case ComponentType::Int32: return {-2147483648.0, 2147483647.0};
        case ComponentType::UInt32: return {0, 4294967295.0};
        default: return {-DBL_MAX, DBL_MAX};
    }
}

bool is_float_type(ComponentType t) { return t == ComponentType::Half || t == ComponentType::Float32 || t == ComponentType::Float64; }

using Quatd = quatd::D4;

}  // namespace

// ---- blocks -------------------------------------------------------------------------------------

uint32_t Parser::block_mesh(uint64_t offset) {
    if (block_mesh_ >= 0) return static_cast<uint32_t>(block_mesh_);
    if (chunk_mode_) {
        // One local mesh: the serial pass puts each segment's faces in the block they belong to.
        if (meshes_.empty()) meshes_.emplace_back();
        segment_first_face_offset_ = offset;
        return uint32_t(block_mesh_ = 0);
    }
    std::string key = block_name_;
    key += '\0';
    key += block_material_;
    auto [it, added] = mesh_index_.try_emplace(std::move(key), static_cast<uint32_t>(meshes_.size()));
    if (added) {
        OutMesh m;
        m.name = block_name_;
        m.material = block_material_;
        meshes_.push_back(std::move(m));
    } else if (!meshes_[it->second].ranges.empty() || !meshes_[it->second].triangles.empty()) {
        warn_at(WarningCode::Tolerated, fmt::format("repeated mesh block '{}' (material '{}'); merged", rigport::detail::excerpt(block_name_), rigport::detail::excerpt(block_material_)), offset);
    }
    block_mesh_ = it->second;
    return it->second;
}

void Parser::close_block() {
    const uint32_t end = static_cast<uint32_t>(positions_.size());
    if (end > block_first_ || block_mesh_ >= 0) {
        const uint32_t m = block_mesh();
        if (end > block_first_) meshes_[m].ranges.emplace_back(block_first_, end);
    }
    block_first_ = end;
    block_mesh_ = -1;
}

// ---- commands -----------------------------------------------------------------------------------

std::optional<Error> Parser::custom_values(uint32_t k) {
    const CustomDecl& d = custom_decl_[k];
    double v[4] = {0, 0, 0, 0};
    int count = 0;
    const char cmd[3] = {'v', char('0' + k), 0};
    if (auto e = numbers(cmd, v, static_cast<int>(d.size), count, false)) return e;
    for (int i = 0; i < count; ++i) {
        if (d.type == ComponentType::Float64) continue;
        if (is_float_type(d.type)) {
            if (std::fabs(v[i]) > FLT_MAX) return bad_number(cmd, Result::OutOfRange);
            v[i] = static_cast<float>(v[i]);
        } else {
            auto [lo, hi] = integer_range(d.type);
            v[i] = std::nearbyint(v[i]);
            if (v[i] < lo || v[i] > hi)
                return error_here(fmt::format("{}: value {} is outside the range of {}", cmd, v[i], to_string(d.type)));
        }
    }
    auto vertex = attribute_vertex(cmd, uint16_t(HAS_V0 << k));
    if (!vertex) return std::nullopt;
    auto& values = custom_[k];
    if (values.size() < (uint64_t(*vertex) + 1) * 4) values.resize((uint64_t(*vertex) + 1) * 4, 0.0);
    std::copy_n(v, 4, values.begin() + uint64_t(*vertex) * 4);
    return std::nullopt;
}

std::optional<Error> Parser::vertex_attribute(std::string_view cmd) {
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int count = 0;
    auto f = [&](int i) { return static_cast<float>(v[i]); };
    switch (cmd[1]) {
        case 'p': {
            if (auto e = numbers(cmd, v, 4, count)) return e;
            if (auto e = limit(positions_.size(), "vertices")) return e;
            positions_.push_back(Vec3{f(0), f(1), f(2)});
            has_.push_back(0);
            skin_offsets_.push_back(static_cast<uint32_t>(influences_.size()));
            return std::nullopt;
        }
        case 't': {
            if (auto e = numbers(cmd, v, 2, count)) return e;
            if (auto vx = attribute_vertex(cmd, HAS_VT)) set(texcoords_, *vx, Vec2{f(0), f(1)}, Vec2{0, 0});
            return std::nullopt;
        }
        case 'n': {
            if (auto e = numbers(cmd, v, 3, count)) return e;
            doc_.has_normals = true;
            if (auto vx = attribute_vertex(cmd, HAS_VN)) set(normals_, *vx, Vec3{f(0), f(1), f(2)}, Vec3{0, 0, 0});
            return std::nullopt;
        }
        case 'x': {
            // "vx x y z w" (tangent + handedness) or "vx tx ty tz bx by bz" (tangent + bitangent).
            v[3] = 1;
            if (auto e = numbers(cmd, v, 6, count)) return e;
            doc_.has_tangents = true;
            auto vx = attribute_vertex(cmd, HAS_VX);
            if (!vx) return std::nullopt;
            if (count >= 6) {
                set(tangents_, *vx, Vec4{f(0), f(1), f(2), 1}, Vec4{0, 0, 0, 1});
                bitangents_.emplace_back(*vx, Vec3{f(3), f(4), f(5)});
            } else {
                set(tangents_, *vx, Vec4{f(0), f(1), f(2), f(3)}, Vec4{0, 0, 0, 1});
            }
            return std::nullopt;
        }
        case 'c': {
            v[3] = 1;  // alpha defaults to 1
            if (auto e = numbers(cmd, v, 4, count)) return e;
            if (auto vx = attribute_vertex(cmd, HAS_VC)) set(colors_, *vx, Vec4{f(0), f(1), f(2), f(3)}, Vec4{0, 0, 0, 1});
            return std::nullopt;
        }
        case 's': {
            int64_t n = 0;
            Result r = cur_.integer(n);
            if (r == Result::Invalid || r == Result::OutOfRange) return bad_number(cmd, r);
            if (n < INT32_MIN || n > INT32_MAX) return bad_number(cmd, Result::OutOfRange);
            any_vs_ = true;
            if (auto vx = attribute_vertex(cmd, HAS_VS)) set(smooth_index_, *vx, static_cast<int32_t>(n), 0);
            return std::nullopt;
        }
        case 'b': {
            // Pairs of (joint, weight), any count; influences with weight > 0 are kept.
            auto vx = attribute_vertex(cmd, HAS_VB);
            for (;;) {
                int64_t j = 0;
                Result r = cur_.scan_integer(j);
                if (r == Result::Missing) break;  // nothing but blanks left on the line
                if (r != Result::Ok) [[unlikely]]
                    return bad_number(cmd, r);
                const uint32_t jline = cur_.line(), jcol = cur_.token_column();
                if (j < 0) [[unlikely]]
                    return error_here(fmt::format("vb: joint index {} is negative", j));
                double w = 0;
                r = cur_.scan_number(w);
                if (r != Result::Ok && r != Result::Missing) return bad_number(cmd, r);
                if (std::fabs(w) > FLT_MAX) return bad_number(cmd, Result::OutOfRange);
                if (!(w > 0) || !vx) continue;
                if (j > max_vb_joint_) max_vb_joint_ = j, max_vb_line_ = jline, max_vb_column_ = jcol;
                if (auto e = limit(influences_.size(), "blend influences")) return e;
                influences_.push_back(Influence{static_cast<uint32_t>(std::min<int64_t>(j, UINT32_MAX)), static_cast<float>(w)});
                skin_offsets_.back() = static_cast<uint32_t>(influences_.size());
            }
            return std::nullopt;
        }
        default:
            if (cmd[1] >= '0' && cmd[1] <= '9') return custom_values(uint32_t(cmd[1] - '0'));
            return std::nullopt;
    }
}

Error Parser::bad_face_index(std::string_view cmd, int64_t i, uint64_t n) const {
    if (i < 0 && int64_t(n) + i < 0)
        return error_here(fmt::format("{} index {} is before the first vertex ({} vertices so far)", cmd, i, n));
    return error_here(fmt::format("{} index {} is beyond any possible vertex", cmd, i));
}

std::optional<Error> Parser::face(std::string_view cmd, bool relative) {
    if (chunk_mode_) {
        // A segment's face indices get one base in the serial pass: fm's or none (fa).
        if (segment_face_kind_ >= 0 && segment_face_kind_ != int8_t(relative)) [[unlikely]]
            return bad_ = true, std::nullopt;
        segment_face_kind_ = int8_t(relative);
    }
    indices_.clear();
    const uint64_t n = positions_.size();
    const uint32_t line = cur_.line();
    const int64_t base = relative ? int64_t(fm_base_) : 0;
    for (;;) {
        int64_t i = 0;
        const Result r = cur_.scan_integer(i);
        if (r == Result::Missing) break;  // nothing but blanks left on the line
        if (r != Result::Ok) [[unlikely]]
            return bad_number(cmd, r);
        if (i < 0 && chunk_mode_) [[unlikely]]
            return bad_ = true, std::nullopt;  // needs the vertex count before the chunk
        // Negative = relative to the last vertex read so far (-1 = the last one).
        const int64_t resolved = i < 0 ? int64_t(n) + i : base + i;
        if (resolved < 0 || resolved >= int64_t(UINT32_MAX)) [[unlikely]]
            return bad_face_index(cmd, i, n);
        if (resolved > max_face_index_) {
            max_face_index_ = resolved;
            max_face_written_ = i;
            max_face_relative_ = relative;
            max_face_line_ = line;
            max_face_column_ = cur_.token_column();
        }
        if (auto e = limit(indices_.size(), "face indices")) return e;
        indices_.push_back(resolved);
    }
    any_face_ = true;
    if (indices_.size() < 3) {
        warn(WarningCode::DegenerateTriangle, fmt::format("a face with fewer than 3 indices ('{}'); ignored", cmd));
        last_face_valid_ = false;
        return std::nullopt;
    }
    const uint32_t m = block_mesh();
    OutMesh& mesh = meshes_[m];
    last_face_mesh_ = m;
    last_face_first_ = static_cast<uint32_t>(mesh.triangles.size());
    last_face_corners_ = static_cast<uint32_t>(indices_.size());
    last_face_valid_ = true;
    // A convex polygon, fanned from its first corner.
    for (size_t k = 1; k + 1 < indices_.size(); ++k) {
        if (auto e = limit(triangle_total_++, "triangles")) return e;
        mesh.triangles.push_back(Triangle{uint32_t(indices_[0]), uint32_t(indices_[k]), uint32_t(indices_[k + 1])});
        if (!chunk_mode_) mesh.smoothing.push_back(smoothing_);  // else the serial pass's smoothing_
    }
    return std::nullopt;
}

// fs f0 f1 ...: smooth (non-zero) or sharp (0) flags for the edges of the face just read.
std::optional<Error> Parser::face_smoothing() {
    if (!last_face_valid_) {
        warn(WarningCode::Ignored, "'fs' without a preceding face; ignored");
        return std::nullopt;
    }
    const uint32_t corners = last_face_corners_;
    std::vector<bool> smooth(corners, false);
    for (uint32_t k = 0; k < corners && !cur_.at_line_end(); ++k) {
        double v = 0;
        Result r = cur_.number(v);
        if (r != Result::Ok) return bad_number("fs", r);
        smooth[k] = v != 0;
    }
    OutMesh& mesh = meshes_[last_face_mesh_];
    // Fan triangle t = (p0, p[t+1], p[t+2]): edge 0 is polygon edge 0 only for the first
    // triangle, edge 1 is polygon edge t+1, edge 2 is the closing edge only for the last one.
    for (uint32_t t = 0; t + 2 < corners; ++t) {
        TriangleSmoothing& s = mesh.smoothing[last_face_first_ + t];
        s.has_edge_flags = true;
        s.smooth_edge = {t == 0 ? bool(smooth[0]) : true, bool(smooth[t + 1]), t + 3 == corners ? bool(smooth[corners - 1]) : true};
    }
    return std::nullopt;
}

std::optional<Error> Parser::pose(std::string_view cmd) {
    double v[15] = {};
    int count = 0;
    Transform t;
    const uint32_t line = cur_.line(), column = cur_.token_column();
    if (cmd == "pq") {
        if (auto e = numbers(cmd, v, 10, count)) return e;
        Quatd q{v[3], v[4], v[5], v[6]};
        if (count <= 6) {
            // Qw left out: generated negative (the spec's convention, which the compiler follows).
            q[3] = -std::sqrt(std::max(0.0, 1.0 - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2])));
        }
        // An explicit w is kept as written, with its sign: only a quaternion off unit length by
        // more than 1e-3 (the IQM reader's and validator's tolerance) is renormalized, so the
        // ~1e-6 noise of files decompiled from quantized IQM survives IQE -> scene -> IQE exactly.
        // (The compiler also negates w > 0; q and -q are the same rotation, and keeping the
        // file's sign is what makes that round trip exact.)
        double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(len > 1e-12)) return error_at(line, column, "pq: the rotation quaternion has zero length");
        if (std::fabs(len - 1.0) > 1e-3) {
            warn(WarningCode::NonUnitQuaternion, "pq: rotation quaternion normalized");
            for (auto& c : q) c /= len;
        }
        for (int k = 0; k < 4; ++k) t.rotate[k] = static_cast<float>(q[k]);
        for (int k = 0; k < 3; ++k) t.scale[k] = count > 7 + k ? static_cast<float>(v[7 + k]) : 1.0f;
    } else {
        Quatd q;
        double scale[3] = {1, 1, 1};
        if (cmd == "pm") {
            v[12] = v[13] = v[14] = 1;
            if (auto e = numbers(cmd, v, 15, count)) return e;
            // Rows a, b, c of the matrix; scale = column lengths, negated when det < 0.
            double m[3][3];
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) m[r][c] = v[3 + 3 * r + c];
            const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
            double s[3];
            for (int c = 0; c < 3; ++c) s[c] = std::sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c]);
            if (!(std::fabs(det) > 1e-30) || !(s[0] > 0 && s[1] > 0 && s[2] > 0) || !std::isfinite(det))
                return error_at(line, column, fmt::format("pm: the matrix is singular (determinant {})", det));
            if (det < 0)
                for (auto& c : s) c = -c;
            double r[3][3];
            for (int row = 0; row < 3; ++row)
                for (int c = 0; c < 3; ++c) r[row][c] = m[row][c] / s[c];
            q = quatd::from_matrix(r);
            for (int c = 0; c < 3; ++c) scale[c] = v[12 + c] * s[c];
        } else {  // pa: Euler radians, R = Rz * Ry * Rx (X applied first)
            v[6] = v[7] = v[8] = 1;
            if (auto e = numbers(cmd, v, 9, count)) return e;
            const Quatd qx{std::sin(v[3] / 2), 0, 0, std::cos(v[3] / 2)};
            const Quatd qy{0, std::sin(v[4] / 2), 0, std::cos(v[4] / 2)};
            const Quatd qz{0, 0, std::sin(v[5] / 2), std::cos(v[5] / 2)};
            q = quatd::mul(qz, quatd::mul(qy, qx));
            for (int c = 0; c < 3; ++c) scale[c] = v[6 + c];
        }
        double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(len > 1e-12)) return error_at(line, column, fmt::format("{}: the rotation has zero length", cmd));
        // A rotation the reader computes follows the spec's convention w <= 0, as the compiler does.
        const double sign = q[3] > 0 ? -1.0 : 1.0;
        for (int k = 0; k < 4; ++k) t.rotate[k] = static_cast<float>(sign * q[k] / len);
        for (int k = 0; k < 3; ++k) {
            if (!(std::fabs(scale[k]) <= FLT_MAX)) return error_at(line, column, fmt::format("{}: scale is out of range", cmd));
            t.scale[k] = static_cast<float>(scale[k]);
        }
    }
    for (int k = 0; k < 3; ++k) t.translate[k] = static_cast<float>(v[k]);
    if (auto e = limit(pose_total_++, "poses")) return e;
    if (anims_.empty()) {
        bind_poses_.push_back(t);
        return std::nullopt;
    }
    auto& frames = anims_.back().frames;
    if (frames.empty()) {
        if (auto e = limit(frame_total_++, "frames")) return e;
        frames.emplace_back();
    }
    frames.back().poses.push_back(t);
    return std::nullopt;
}

std::optional<Error> Parser::joint() {
    std::string_view n;
    if (auto e = name("joint", n)) return e;
    int64_t parent = -1;
    Result r = cur_.integer(parent);
    if (r != Result::Ok && r != Result::Missing) return bad_number("joint", r);
    const int64_t count = static_cast<int64_t>(joints_.size());
    if (parent >= count)
        return error_here(fmt::format("joint '{}': parent {} is not an earlier joint ({} joints so far)", rigport::detail::excerpt(n), parent, count));
    if (auto e = limit(joints_.size(), "joints")) return e;
    Joint j;
    j.name = std::string(n);
    j.parent = parent < 0 ? -1 : static_cast<int32_t>(parent);
    joints_.push_back(std::move(j));
    return std::nullopt;
}

std::optional<Error> Parser::vertexarray() {
    std::string_view type = cur_.token();
    const uint32_t type_column = cur_.token_column();
    static constexpr std::pair<std::string_view, Attribute> standard[] = {
        {"position", Attribute::Position},         {"texcoord", Attribute::Texcoord},       {"normal", Attribute::Normal},
        {"tangent", Attribute::Tangent},           {"blendindexes", Attribute::BlendIndexes}, {"blendweights", Attribute::BlendWeights},
        {"color", Attribute::Color}};
    static constexpr uint32_t default_size[] = {3, 2, 3, 4, 4, 4, 4};
    std::optional<Attribute> attribute;
    int custom = -1;
    for (auto& [n, a] : standard)
        if (equal_ci(type, n)) attribute = a;
    if (!attribute && type.size() == 7 && equal_ci(type.substr(0, 6), "custom") && type[6] >= '0' && type[6] <= '9')
        custom = type[6] - '0';
    if (!attribute && custom < 0) {
        warn(WarningCode::Ignored, fmt::format("vertexarray: unknown type '{}'; ignored", rigport::detail::excerpt(type)));
        return std::nullopt;
    }
    (void)type_column;
    std::string_view comp = cur_.token();
    if (comp.empty()) return error_at(cur_.line(), cur_.column(), fmt::format("vertexarray {}: the component type is missing", type));
    auto component = component_by_name(comp);
    if (!component)
        return error_here(fmt::format("vertexarray {}: unknown component type '{}' (byte ubyte short ushort int uint half float double)",
                                      type, rigport::detail::excerpt(comp)));
    int64_t size = attribute ? default_size[uint32_t(*attribute)] : 4;
    Result r = cur_.integer(size);
    if (r != Result::Ok && r != Result::Missing) return bad_number("vertexarray", r);
    if (size < 1 || size > 4) {
        warn(WarningCode::ValueClamped, fmt::format("vertexarray {}: size {} clamped to 1..4", type, size));
        size = std::clamp<int64_t>(size, 1, 4);
    }
    if (attribute) {
        AttributeFormat af{*attribute, 0, *component, static_cast<uint32_t>(size)};
        auto& formats = doc_.scene.meta.attribute_formats;
        auto it = std::find_if(formats.begin(), formats.end(), [&](auto& f) { return f.attribute == af.attribute && f.set == 0; });
        if (it != formats.end()) *it = af;
        else formats.push_back(af);
        return std::nullopt;
    }
    std::string_view n;
    if (auto e = name("vertexarray", n)) return e;
    custom_decl_[custom] = CustomDecl{std::string(n), *component, static_cast<uint32_t>(size)};
    return std::nullopt;
}

std::optional<Error> Parser::command(std::string_view cmd) {
    // Two characters, a letter then a letter or digit: the vertex, face and pose commands that
    // make up nearly every line, dispatched on their bytes.
    if (cmd.size() == 2) {
        switch (cmd[0]) {
            case 'v':
                switch (cmd[1]) {
                    case 'p': case 't': case 'n': case 'x': case 'c': case 's': case 'b':
                    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
                        return vertex_attribute(cmd);
                    default: break;
                }
                break;
            case 'f':
                if (cmd[1] == 'm') return face(cmd, true);
                if (cmd[1] == 'a') return face(cmd, false);
                if (cmd[1] == 's') return face_smoothing();
                break;
            case 'p':
                if (cmd[1] == 'q' || cmd[1] == 'm' || cmd[1] == 'a') return pose(cmd);
                break;
            default: break;
        }
    }
    if (cmd == "mesh" || cmd == "material") {
        std::string_view n;
        if (auto e = name(cmd, n)) return e;
        if (cmd == "mesh") {
            close_block();
            block_name_ = std::string(n);
            block_material_.clear();
            fm_base_ = static_cast<uint32_t>(positions_.size());
        } else if (n != block_material_) {
            // A change of material after faces starts a new block; fm keeps its base.
            if (block_mesh_ >= 0) close_block();
            block_material_ = std::string(n);
        }
        last_face_valid_ = false;
        return std::nullopt;
    }
    if (cmd == "joint") return joint();
    if (cmd == "vertexarray") return vertexarray();
    if (cmd == "smoothuv" || cmd == "smoothgroup" || cmd == "smoothangle") {
        double v = cmd == "smoothgroup" ? -1 : cmd == "smoothangle" ? 180 : 0;
        Result r = cur_.number(v);
        if (r != Result::Ok && r != Result::Missing) return bad_number(cmd, r);
        if (cmd == "smoothuv") smoothing_.smooth_uv = v > 0;
        else if (cmd == "smoothangle") smoothing_.angle_degrees = static_cast<float>(std::clamp(v, -1e6, 1e6));
        else smoothing_.group = static_cast<int32_t>(std::clamp(std::trunc(v), double(INT32_MIN), double(INT32_MAX)));
        return std::nullopt;
    }
    if (cmd == "animation") {
        std::string_view n;
        if (auto e = name(cmd, n)) return e;
        if (auto e = limit(anims_.size(), "animations")) return e;
        AnimState a;
        a.anim.name = std::string(n);
        a.line = cur_.line();
        a.column = 1;
        anims_.push_back(std::move(a));
        return std::nullopt;
    }
    if (cmd == "framerate") {
        double v = 0;
        Result r = cur_.number(v);
        if (r != Result::Ok && r != Result::Missing) return bad_number(cmd, r);
        if (std::fabs(v) > FLT_MAX) return bad_number(cmd, Result::OutOfRange);
        if (!anims_.empty()) anims_.back().anim.frame_rate = static_cast<float>(std::max(0.0, v));  // clamped >= 0
        return std::nullopt;
    }
    if (cmd == "loop") {
        if (!anims_.empty()) anims_.back().anim.loop = true;
        return std::nullopt;
    }
    if (cmd == "frame") {
        // `frame N` as real files write it: the argument is ignored; empty frames are skipped.
        if (anims_.empty()) return std::nullopt;
        auto& frames = anims_.back().frames;
        if (frames.empty() || !frames.back().poses.empty()) {
            if (auto e = limit(frame_total_, "frames")) return e;
            if (frame_total_ >= options_.max_frames)
                return error_here(fmt::format("more than {} frames (LoadOptions::max_frames)", options_.max_frames), ErrorCode::LimitExceeded);
            ++frame_total_;
            frames.emplace_back();
        }
        return std::nullopt;
    }
    warn(WarningCode::UnknownCommand, fmt::format("unknown command '{}'; ignored", rigport::detail::excerpt(cmd)));
    return std::nullopt;
}

std::optional<Error> Parser::parse_line() {
    if (cur_.line_text().size() >= 512)
        warn(WarningCode::ReaderDifference, "lines of 512 characters or more (the reference compiler splits them)");
    std::string_view cmd = cur_.token();
    if (cmd.empty() || cmd[0] == '#') return std::nullopt;
    if (cmd == "comment") {
        doc_.scene.meta.comment = std::string(cur_.rest_after_line());
        comment_ = true;  // the rest of the file is the comment
        return std::nullopt;
    }
    return command(cmd);
}

std::optional<Error> Parser::parse_lines(size_t end) {
    while (!comment_ && cur_.next_offset() < end && cur_.next_line())
        if (auto e = parse_line()) return e;
    return std::nullopt;
}

Expected<Document> Parser::run() {
    if (!cur_.next_line() || cur_.line_text().find(header_text) == std::string_view::npos)
        return error_at(1, 1, "not an IQE file: the first line must contain '# Inter-Quake Export'");
    if (auto e = run_chunks(options_.threads)) return *e;
    if (auto e = finish()) return *e;
    // The scene's invariants: checked by load_bytes, and by the compiler for read_compiler_source.
    return std::move(doc_);
}

}  // namespace detail

using detail::Parser;
using detail::header_text;

bool detect(std::span<const uint8_t> bytes) {
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return text.substr(0, text.find('\n')).find(header_text) != std::string_view::npos;
}

Expected<Document> parse(std::span<const uint8_t> bytes, const LoadOptions& options) {
    // LoadOptions::max_file_bytes: checked once by load_bytes and read_input, before any reader.
    return Parser(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options).run();
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    auto doc = parse(bytes, options);
    if (!doc) return doc.error();
    // A file without `vn` lines has the normals its smoothing commands describe (iqe.txt), so a
    // plain load gives what the format means; the compiler's other steps stay compile()'s.
    if (!doc->has_normals) generate_normals(doc->scene, doc->smoothing);
    return std::move(doc->scene);
}

Expected<CompilerSource> read_compiler_source(std::span<const uint8_t> bytes, const LoadOptions& options) {
    auto doc = parse(bytes, options);
    if (!doc) return doc.error();
    return CompilerSource{std::move(doc->scene), std::move(doc->smoothing), doc->has_normals};
}

}  // namespace rigport::iqe

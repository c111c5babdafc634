// OBJ reader (Wavefront OBJ, "Object Files (.obj)" of the Advanced Visualizer manual; docs/obj.md):
// v (with optional w or r g b colours), vt, vn, f in its four corner forms with relative indices,
// polygons as fans, o / g / usemtl runs as meshes, s groups for generated normals, mtllib through
// LoadOptions::read_resource. Free-form geometry, lines and points are warned about and skipped.
#include <cfloat>
#include <cmath>

#include <fast_float/fast_float.h>

#include "support/excerpt.hpp"
#include "formats/obj/obj_parser.hpp"

namespace rigport::obj {

namespace detail {

namespace {

std::string shorten(std::string_view s) { return rigport::detail::excerpt(s); }

bool is_comment(std::string_view word) { return !word.empty() && word[0] == '#'; }

// Keywords of the spec rigport does not read: free-form curves and surfaces, their connectivity,
// display and rendering attributes.
bool is_unread_keyword(std::string_view k) {
    static constexpr std::string_view words[] = {"vp",    "cstype", "deg",   "bmat",   "step",      "curv",      "curv2",   "surf",
                                                 "parm",  "trim",   "hole",  "scrv",   "sp",        "end",       "con",     "mg",
                                                 "bevel", "c_interp", "d_interp", "lod", "maplib", "usemap", "shadow_obj", "trace_obj",
                                                 "ctech", "stech"};
    return std::find(std::begin(words), std::end(words), k) != std::end(words);
}

}  // namespace

std::string_view Parser::rest_of_line() {
    cur_.at_line_end();  // skips blanks
    const uint32_t col = cur_.column();
    std::string_view rest = cur_.line_text().substr(col - 1);
    while (!rest.empty() && io::TextCursor::is_blank(rest.back())) rest.remove_suffix(1);
    while (!cur_.token().empty()) {
    }
    return rest;
}

std::optional<Error> Parser::numbers(std::string_view what, size_t least, size_t most, double* out, size_t& count) {
    count = 0;
    for (;;) {
        const std::string_view t = cur_.token();
        if (t.empty() || is_comment(t)) break;
        if (count == most) {
            warn(WarningCode::Ignored, fmt::format("{}: numbers after the {} read ignored", what, most));
            while (!cur_.token().empty()) {
            }
            break;
        }
        double v = 0;
        Result r = io::TextCursor::parse_number(t, v);
        if (r == Result::Invalid) {
            // strtod's reading, as the reference compiler and assimp: the leading number of a token
            // such as "3.1+e2" (assimp's number_formats.obj), with a warning; none at all is an error.
            const char* b = t.data() + (t[0] == '+');
            const auto p = fast_float::from_chars(b, t.data() + t.size(), v);
            if (p.ec != std::errc() || p.ptr == b || !std::isfinite(v))
                return error_here(fmt::format("{}: '{}' is not a number", what, shorten(t)));
            warn(WarningCode::Tolerated, fmt::format("{}: numbers followed by other characters ('{}') read as their leading number", what, shorten(t)));
            r = Result::Ok;
        }
        if (r == Result::OutOfRange || std::fabs(v) > FLT_MAX) return error_here(fmt::format("{}: number '{}' is out of range", what, shorten(t)));
        out[count++] = v;
    }
    if (count < least) return error_here(fmt::format("{}: {} numbers, expected at least {}", what, count, least));
    return std::nullopt;
}

std::optional<Error> Parser::corner(std::string_view token, Corner& out) {
    // v, v/vt, v//vn or v/vt/vn; a negative index counts back from the last element so far.
    const int64_t counts[3] = {int64_t(v_.size()), int64_t(vt_.size()), int64_t(vn_.size())};
    static constexpr const char* names[3] = {"position", "texcoord", "normal"};
    int64_t* slots[3] = {&out.v, &out.vt, &out.vn};
    std::string_view rest = token;
    for (int k = 0; k < 3; ++k) {
        const size_t slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        if (!part.empty() || k == 0) {
            int64_t i = 0;
            const Result r = io::TextCursor::parse_integer(part, i);
            if (r != Result::Ok || part.find('.') != std::string_view::npos)
                return error_here(fmt::format("face corner '{}': {} index '{}' is not an integer", shorten(token), names[k], shorten(part)));
            if (i == 0) return error_here(fmt::format("face corner '{}': {} index 0 (OBJ indices start at 1; negative ones count back)", shorten(token), names[k]));
            if (i < 0) {
                if (-i > counts[k])
                    return error_here(fmt::format("face corner '{}': relative {} index {} reaches before the first of the {} so far", shorten(token), names[k], i,
                                                  counts[k]));
                *slots[k] = counts[k] + i;
            } else {
                if (uint64_t(i) > options_.max_elements) return error_here(fmt::format("face corner '{}': {} index {} is out of range", shorten(token), names[k], i));
                *slots[k] = i - 1;  // checked against the final counts in build(): forward references are legal
            }
        } else if (k == 2 || slash == std::string_view::npos) {
            return error_here(fmt::format("face corner '{}': an empty {} index", shorten(token), names[k]));
        }
        if (slash == std::string_view::npos) return std::nullopt;
        rest.remove_prefix(slash + 1);
        if (k == 2) break;
    }
    return error_here(fmt::format("face corner '{}': more than three indices", shorten(token)));
}

void Parser::start_run_if_changed() {
    if (run_ < 0) return;
    const MeshBuild& b = builds_[size_t(run_)];
    const std::string& name = group_.empty() ? object_ : group_;
    const int32_t material = material_.empty() ? -1 : used_index_.count(material_) ? used_index_.at(material_) : -2;
    if (b.name != name || b.material != material) run_ = -1;
}

std::optional<Error> Parser::face_line() {
    if (run_ < 0) {
        if (auto e = limit(builds_.size(), "meshes")) return e;
        MeshBuild b;
        b.name = group_.empty() ? object_ : group_;
        if (!material_.empty()) {
            auto [it, added] = used_index_.try_emplace(material_, int32_t(used_materials_.size()));
            if (added) used_materials_.push_back(material_);
            b.material = it->second;
        }
        builds_.push_back(std::move(b));
        run_ = int64_t(builds_.size() - 1);
    }
    // The corners first (a face of fewer than 3 adds no vertex), each with its column for errors.
    face_.clear();
    for (;;) {
        const std::string_view t = cur_.token();
        if (t.empty() || is_comment(t)) break;
        if (auto e = limit(corners_++, "face corners")) return e;
        Corner c;
        if (auto e = corner(t, c)) return e;
        face_.push_back({c, cur_.token_column()});
    }
    if (face_.size() < 3) {
        warn(WarningCode::Ignored, "faces with fewer than 3 corners skipped");
        return std::nullopt;
    }
    MeshBuild& b = builds_[size_t(run_)];
    uint32_t first = 0, previous = 0;
    for (size_t n = 0; n < face_.size(); ++n) {
        auto [it, added] = b.corners.try_emplace(face_[n].first, uint32_t(b.vertices.size()));
        if (added) {
            b.vertices.push_back(face_[n].first);
            b.vertex_line.push_back(cur_.line());
            b.vertex_column.push_back(face_[n].second);
        }
        const uint32_t vertex = it->second;
        // A fan from the first corner: exact for convex polygons (docs/obj.md "What is read").
        if (n == 0) first = vertex;
        else if (n >= 2) {
            if (auto e = limit(triangles_++, "triangles")) return e;
            b.triangles.push_back(Triangle{first, previous, vertex});
            b.smoothing.push_back(smoothing_);
        }
        previous = vertex;
    }
    return std::nullopt;
}

void Parser::mtllib_line() {
    have_mtllib_ = true;
    // File names separated by blanks (the spec); one name holding blanks cannot be told apart.
    for (std::string_view name = cur_.token(); !name.empty() && !is_comment(name); name = cur_.token()) {
        const std::string uri(name);
        // Each library is read once however often mtllib names it (docs/obj.md "Materials"):
        // a 16 KB file naming one large .mtl 2,000 times read it 2,000 times.
        if (!mtllibs_read_.insert(uri).second) continue;
        if (!options_.read_resource) {
            warn(WarningCode::PartMissing, fmt::format("mtllib '{}': no resource reader to read it (load from a path, or set LoadOptions::read_resource); "
                                                       "its materials get default values", shorten(uri)));
            continue;
        }
        auto bytes = options_.read_resource(uri);
        if (!bytes) {
            warn(WarningCode::PartMissing, fmt::format("mtllib '{}' not read ({}); its materials get default values", shorten(uri), bytes.error().message));
            continue;
        }
        read_mtl(uri, *bytes);
    }
}

std::optional<Error> Parser::build() {
    auto at = [](uint32_t line, uint32_t column, std::string message) {
        Error e = make_error(ErrorCode::Malformed, std::move(message));
        e.line = std::max(1u, line);
        e.column = std::max(1u, column);
        return e;
    };
    for (const std::string& name : used_materials_) {
        auto it = defined_.find(name);
        if (it != defined_.end()) {
            scene_.materials.push_back(it->second);
            continue;
        }
        warn(WarningCode::Substituted, fmt::format("usemtl '{}': defined in no .mtl read; default material values", shorten(name)));
        Material m;
        m.name = name;
        scene_.materials.push_back(std::move(m));
    }
    uint64_t no_texcoord = 0, generated = 0, mixed_normals = 0;
    std::vector<MeshSmoothing> smoothing;
    std::vector<size_t> needs_normals;
    for (MeshBuild& b : builds_) {
        if (b.triangles.empty()) continue;  // a run of faces that all had fewer than 3 corners
        Mesh mesh;
        mesh.name = b.name;
        mesh.material = b.material;
        bool any_vt = false, all_vn = true;
        for (size_t i = 0; i < b.vertices.size(); ++i) {
            const Corner& c = b.vertices[i];
            const std::pair<int64_t, size_t> checks[3] = {{c.v, v_.size()}, {c.vt, vt_.size()}, {c.vn, vn_.size()}};
            static constexpr const char* names[3] = {"position", "texcoord", "normal"};
            static constexpr const char* keys[3] = {"v", "vt", "vn"};
            for (int k = 0; k < 3; ++k)
                if (checks[k].first >= int64_t(checks[k].second))
                    return at(b.vertex_line[i], b.vertex_column[i], fmt::format("face corner: {} index {} is out of range: the file has {} '{}' lines", names[k],
                                                                                checks[k].first + 1, checks[k].second, keys[k]));
            any_vt = any_vt || c.vt >= 0;
            all_vn = all_vn && c.vn >= 0;
        }
        for (const Corner& c : b.vertices) {
            mesh.positions.push_back(v_[size_t(c.v)]);
            if (all_vn) mesh.normals.push_back(vn_[size_t(c.vn)]);
        }
        if (any_vt) {
            mesh.texcoords.emplace_back();
            for (const Corner& c : b.vertices) {
                // OBJ's V runs up from the bottom of the image; the scene's down from the top.
                no_texcoord += c.vt < 0;
                mesh.texcoords[0].push_back(c.vt < 0 ? Vec2{0, 0} : Vec2{vt_[size_t(c.vt)][0], 1.0f - vt_[size_t(c.vt)][1]});
            }
        }
        if (!colors_.empty()) {
            mesh.colors.emplace_back();
            for (const Corner& c : b.vertices) mesh.colors[0].push_back(colors_[size_t(c.v)]);
        }
        mesh.triangles = std::move(b.triangles);
        if (!all_vn) {
            ++generated;
            mixed_normals += std::any_of(b.vertices.begin(), b.vertices.end(), [](const Corner& c) { return c.vn >= 0; });
            needs_normals.push_back(scene_.meshes.size());
            smoothing.push_back(MeshSmoothing{std::move(b.smoothing), {}});
        }
        scene_.meshes.push_back(std::move(mesh));
    }
    if (no_texcoord) warn(WarningCode::Substituted, fmt::format("{} face corners without a texcoord in meshes whose other corners have one: (0, 0)", no_texcoord));
    if (generated) {
        // Smooth normals within each s group (s off: flat), across meshes, as the IQE
        // specification's smoothing groups (docs/obj.md "Normals"); the meshes with vn keep theirs.
        Scene part;
        for (size_t i : needs_normals) part.meshes.push_back(std::move(scene_.meshes[i]));
        // generate_normals takes IQM's clockwise fronts: the corners are swapped around the call.
        auto swap_winding = [&part] {
            for (auto& m : part.meshes)
                for (auto& t : m.triangles) std::swap(t[1], t[2]);
        };
        swap_winding();
        generate_normals(part, smoothing);
        swap_winding();
        for (size_t k = 0; k < needs_normals.size(); ++k) scene_.meshes[needs_normals[k]] = std::move(part.meshes[k]);
        warn(WarningCode::Substituted, fmt::format("{} meshes without a vn on every face corner: smooth normals generated by their s groups{}", generated,
                                                   mixed_normals ? " (the vn some corners gave are replaced)" : ""));
    }
    if (builds_.empty() && !v_.empty())
        warn(WarningCode::Ignored, fmt::format("{} vertices and no faces (a point cloud): no mesh", v_.size()));
    return std::nullopt;
}

Expected<Scene> Parser::run() {
    scene_.meta.source_format = "obj";
    uint64_t lines_skipped = 0, points_skipped = 0;
    while (cur_.next_line()) {
        const std::string_view k = cur_.token();
        if (k.empty() || is_comment(k)) continue;
        double n[7] = {};
        size_t count = 0;
        std::optional<Error> e;
        if (k == "v") {
            if (!(e = limit(v_.size(), "'v' lines")) && !(e = numbers("v", 3, 7, n, count))) {
                v_.push_back(Vec3{float(n[0]), float(n[1]), float(n[2])});
                // x y z [w], or x y z r g b [a]: the vertex-colour extension (MeshLab, ZBrush, assimp).
                if (count >= 6) {
                    if (colors_.empty()) colors_.assign(v_.size() - 1, Vec4{1, 1, 1, 1});
                    Vec4 c{1, 1, 1, 1};
                    bool clamped = false;
                    for (size_t i = 3; i < count; ++i) {
                        const float x = std::clamp(float(n[i]), 0.0f, 1.0f);
                        clamped = clamped || x != float(n[i]);
                        c[i - 3] = x;
                    }
                    if (clamped) warn(WarningCode::ValueClamped, "vertex colours outside 0..1 clamped");
                    colors_.push_back(c);
                } else if (!colors_.empty()) {
                    colors_.push_back(Vec4{1, 1, 1, 1});
                    warn(WarningCode::Substituted, "'v' lines without a colour among coloured ones: white");
                }
                if (count == 5) warn(WarningCode::Ignored, "'v' lines with 5 numbers: the last two ignored (neither w nor a colour)");
            }
        } else if (k == "vt") {
            if (!(e = limit(vt_.size(), "'vt' lines")) && !(e = numbers("vt", 1, 3, n, count))) vt_.push_back(Vec2{float(n[0]), float(n[1])});
        } else if (k == "vn") {
            if (!(e = limit(vn_.size(), "'vn' lines")) && !(e = numbers("vn", 3, 3, n, count))) vn_.push_back(Vec3{float(n[0]), float(n[1]), float(n[2])});
        } else if (k == "f" || k == "fo") {
            e = face_line();
        } else if (k == "o") {
            object_.assign(rest_of_line());
            group_.clear();
            start_run_if_changed();
        } else if (k == "g") {
            group_.assign(rest_of_line());
            start_run_if_changed();
        } else if (k == "usemtl") {
            material_.assign(rest_of_line());
            start_run_if_changed();
        } else if (k == "mtllib") {
            mtllib_line();
        } else if (k == "s") {
            const std::string_view t = cur_.token();
            int64_t key = 0;
            if (t == "off" || (io::TextCursor::parse_integer(t, key) == Result::Ok && key == 0)) {
                smoothing_ = TriangleSmoothing{};
                smoothing_.angle_degrees = 0;  // flat: only faces of one direction share normals
            } else if (io::TextCursor::parse_integer(t, key) == Result::Ok) {
                if (!(e = limit(smoothing_groups_.size(), "smoothing groups"))) {
                    auto [it, added] = smoothing_groups_.try_emplace(key, int32_t(smoothing_groups_.size()));
                    smoothing_ = TriangleSmoothing{};
                    smoothing_.group = it->second;
                }
            } else {
                warn(WarningCode::Ignored, fmt::format("s '{}': neither a group number nor 'off'; ignored", shorten(t)));
            }
        } else if (k == "l") {
            ++lines_skipped;
        } else if (k == "p") {
            ++points_skipped;
        } else if (is_unread_keyword(k)) {
            warn(WarningCode::Ignored, fmt::format("'{}' lines ignored (free-form geometry and display attributes are not read)", k));
        } else {
            warn(WarningCode::UnknownCommand, fmt::format("unknown keyword '{}' ignored", shorten(k)));
        }
        if (e) return *e;
    }
    if (lines_skipped) warn(WarningCode::Ignored, fmt::format("{} 'l' polylines skipped (only faces become meshes)", lines_skipped));
    if (points_skipped) warn(WarningCode::Ignored, fmt::format("{} 'p' point elements skipped (only faces become meshes)", points_skipped));
    if (auto e = build()) return *e;
    // OBJ has no stated axes: Y up, right-handed, counter-clockwise front faces is what Maya,
    // Blender's and 3ds Max's exporters write and what glTF and assimp assume (docs/obj.md).
    Meta& meta = scene_.meta;
    meta.up = UpAxis::Y;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::CounterClockwise;
    // The scene's invariants are checked by load_bytes, once for every format (src/pipeline/load.cpp).
    return std::move(scene_);
}

}  // namespace detail

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    // LoadOptions::max_file_bytes: checked once by load_bytes and read_input, before any reader.
    return detail::Parser(bytes, options).run();
}

}  // namespace rigport::obj

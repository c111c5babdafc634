// SMD reader, triangles and vertexanimation (docs/smd.md): a material line and three vertex lines
// per triangle (parent bone, position, normal, UV, then Source's link count and bone/weight
// pairs), one mesh per material with identical corners shared; the vertexanimation blocks of a
// .vta as morph targets of its base vertices.
#include <algorithm>
#include <cstring>

#include "support/excerpt.hpp"
#include "formats/smd/smd_parser.hpp"

namespace rigport::smd::detail {

namespace {

// Image files GoldSrc names as materials; Source names a .vmt without its extension.
bool names_image(std::string_view name) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) return false;
    std::string ext(name.substr(dot + 1));
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext == "tga" || ext == "bmp" || ext == "png" || ext == "jpg" || ext == "jpeg" || ext == "dds" || ext == "pcx";
}

template <class T>
void append_bytes(std::string& key, const T& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

}  // namespace

std::optional<Error> Parser::triangles_section() {
    for (;;) {
        if (!next_line()) return error_here("'triangles' without its 'end'");
        if (is_end()) {
            rest_of_line("end");
            return std::nullopt;
        }
        // The material: the whole line (a GoldSrc texture file, or a Source material name).
        std::string_view material = cur_.line_text();
        while (!material.empty() && io::TextCursor::is_blank(material.front())) material.remove_prefix(1);
        while (!material.empty() && io::TextCursor::is_blank(material.back())) material.remove_suffix(1);
        auto [it, added] = mesh_of_material_.try_emplace(std::string(material), uint32_t(builds_.size()));
        if (added) {
            Material m;
            m.name.assign(material);
            if (names_image(material)) m.maps.push_back(TextureMap{TextureType::Diffuse, m.name, {}, -1});
            Mesh mesh;
            // Named as the reference compiler names it: the material without its extension.
            const size_t dot = material.rfind('.');
            mesh.name.assign(dot == std::string_view::npos || dot == 0 ? material : material.substr(0, dot));
            mesh.material = int32_t(scene_.materials.size());
            mesh.skin.offsets.push_back(0);
            mesh.texcoords.emplace_back();
            scene_.materials.push_back(std::move(m));
            scene_.meshes.push_back(std::move(mesh));
            builds_.push_back(MeshBuild{uint32_t(scene_.meshes.size() - 1), {}});
        }
        Triangle t{};
        for (int k = 0; k < 3; ++k) {
            if (!next_line()) return error_here(fmt::format("triangle: {} of its 3 vertex lines, then the end of the file", k));
            if (is_end()) return error_here(fmt::format("triangle: {} of its 3 vertex lines, then 'end'", k));
            if (auto e = vertex_line(it->second, t[size_t(k)])) return e;
        }
        Mesh& mesh = scene_.meshes[builds_[it->second].mesh];
        if (auto e = limit(mesh.triangles.size(), "triangles in a mesh")) return e;
        mesh.triangles.push_back(t);
    }
}

std::optional<Error> Parser::vertex_line(uint32_t mesh_slot, uint32_t& vertex) {
    if (auto e = limit(corners_++, "triangle corners")) return e;
    int64_t parent = 0;
    if (io::TextCursor::parse_integer(first_word_, parent) != Result::Ok)
        return error_here(fmt::format("vertex: expected the parent bone's id, found '{}'", rigport::detail::excerpt(first_word_)));
    if (parent < 0 || uint64_t(parent) >= nodes_.size()) return error_here(fmt::format("vertex: parent bone {} is out of range: {} nodes", parent, nodes_.size()));
    double v[8];
    static constexpr const char* fields[8] = {"position x", "position y", "position z", "normal x", "normal y", "normal z", "u", "v"};
    for (int c = 0; c < 8; ++c)
        if (auto e = number(fmt::format("vertex: {}", fields[c]), v[c])) return e;

    // Source's links: a count, then bone and weight pairs; GoldSrc lines end after the UV.
    std::vector<Influence> influences;
    double parent_weight = 0, total = 0;
    const std::string_view count_token = cur_.token();
    const bool goldsrc = count_token.empty() || count_token[0] == '#' || count_token[0] == ';' || count_token.substr(0, 2) == "//";
    if (goldsrc) {
        goldsrc_lines_ = true;
        parent_weight = 1;
    } else {
        source_lines_ = true;
        int64_t links = 0;
        const Result r = io::TextCursor::parse_integer(count_token, links);
        if (r != Result::Ok) return error_here(fmt::format("vertex: expected the link count, found '{}'", rigport::detail::excerpt(count_token)));
        if (links < 0 || uint64_t(links) > nodes_.size() * 4 + 4)
            return error_here(fmt::format("vertex: link count {} is out of range ({} nodes)", links, nodes_.size()));
        for (int64_t l = 0; l < links; ++l) {
            if (auto e = limit(links_total_++, "links")) return e;
            int64_t bone = 0;
            double weight = 0;
            if (auto e = integer(fmt::format("vertex: link {} of {}: bone", l, links), bone)) return e;
            if (bone < 0 || uint64_t(bone) >= nodes_.size())
                return error_here(fmt::format("vertex: link {} of {}: bone {} is out of range: {} nodes", l, links, bone, nodes_.size()));
            if (auto e = number(fmt::format("vertex: link {} of {}: weight", l, links), weight)) return e;
            if (weight < 0) {
                warn(WarningCode::ValueClamped, "negative link weights read as 0");
                weight = 0;
            }
            total += weight;
            if (bone == parent) {
                parent_weight += weight;
                continue;
            }
            const uint32_t joint = joint_of_id_[size_t(bone)];
            auto same = std::find_if(influences.begin(), influences.end(), [&](const Influence& i) { return i.joint == joint; });
            if (same != influences.end()) same->weight += float(weight);
            else influences.push_back(Influence{joint, float(weight)});
        }
        // Weights short of 1 leave the rest to the parent bone (studiomdl; the reference compiler
        // does so below exactly 1, assimp below 0.975): below 1 - 1e-5, past six-decimal rounding.
        if (total < 1 - 1e-5) parent_weight += 1 - total;
    }
    rest_of_line("vertex");
    if (parent_weight > 0) influences.push_back(Influence{joint_of_id_[size_t(parent)], float(parent_weight)});
    std::sort(influences.begin(), influences.end(), [](const Influence& a, const Influence& b) { return a.joint < b.joint; });

    // SMD's V runs up from the bottom of the image; the scene's (glTF's, IQM's) down from the top.
    const Vec3 position{float(v[0]), float(v[1]), float(v[2])}, normal{float(v[3]), float(v[4]), float(v[5])};
    const Vec2 uv{float(v[6]), float(1.0 - v[7])};
    std::string key;
    append_bytes(key, position), append_bytes(key, normal), append_bytes(key, uv);
    for (const Influence& i : influences) append_bytes(key, i.joint), append_bytes(key, i.weight);
    MeshBuild& build = builds_[mesh_slot];
    Mesh& mesh = scene_.meshes[build.mesh];
    auto [it, added] = build.corners.try_emplace(std::move(key), mesh.vertex_count());
    vertex = it->second;
    if (!added) return std::nullopt;
    mesh.positions.push_back(position);
    mesh.normals.push_back(normal);
    mesh.texcoords[0].push_back(uv);
    mesh.skin.influences.insert(mesh.skin.influences.end(), influences.begin(), influences.end());
    mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
    return std::nullopt;
}

std::optional<Error> Parser::flex_line(std::vector<FlexVertex>& out) {
    int64_t index = 0;
    if (io::TextCursor::parse_integer(first_word_, index) != Result::Ok)
        return error_here(fmt::format("vertexanimation: expected a vertex index or 'time', found '{}'", rigport::detail::excerpt(first_word_)));
    if (index < 0 || uint64_t(index) >= options_.max_elements)
        return error_here(fmt::format("vertexanimation: vertex index {} is out of range", index));
    FlexVertex f;
    f.index = uint32_t(index);
    f.line = cur_.line();
    static constexpr const char* fields[6] = {"position x", "position y", "position z", "normal x", "normal y", "normal z"};
    for (int c = 0; c < 6; ++c) {
        double v = 0;
        if (auto e = number(fmt::format("vertexanimation vertex {}: {}", index, fields[c]), v)) return e;
        (c < 3 ? f.position[size_t(c)] : f.normal[size_t(c - 3)]) = float(v);
    }
    rest_of_line("vertexanimation");
    out.push_back(f);
    return std::nullopt;
}

std::optional<Error> Parser::build_vertexanimation() {
    auto at_line = [](uint32_t line, std::string message, ErrorCode code = ErrorCode::Malformed) {
        Error e = make_error(code, std::move(message));
        e.line = std::max(1u, line);
        e.column = 1;
        return e;
    };
    if (flex_.empty() || flex_.front().empty()) return error_here("vertexanimation: no base vertices (its first time block is empty)");
    // The first block is the base: every vertex 0..n-1 once. Later blocks give the vertices a
    // shape moves, in place (studiomdl takes the difference to the base).
    const std::vector<FlexVertex>& base = flex_.front();
    const size_t n = base.size();
    Mesh mesh;
    mesh.name = "vertexanimation";
    mesh.positions.resize(n);
    mesh.normals.resize(n);
    std::vector<uint8_t> seen(n, 0);
    for (const FlexVertex& f : base) {
        if (f.index >= n) return at_line(f.line, fmt::format("vertexanimation: base vertex {} is out of range: the base has {} vertices, 0..{}", f.index, n, n - 1));
        if (seen[f.index]) return at_line(f.line, fmt::format("vertexanimation: base vertex {} is given twice", f.index));
        seen[f.index] = 1;
        mesh.positions[f.index] = f.position;
        mesh.normals[f.index] = f.normal;
    }
    const uint64_t targets = flex_.size() - 1;
    if (targets > 0 && targets > options_.max_elements / n)
        return at_line(flex_times_.back().line, fmt::format("{} shapes of {} vertices are more than {} values (LoadOptions::max_elements)", targets, n,
                                                            options_.max_elements), ErrorCode::LimitExceeded);
    for (size_t k = 1; k < flex_.size(); ++k) {
        MorphTarget t;
        // Named by the comment on its time line (Blender Source Tools: "time 1 # Key 1"), in
        // either section, else by its time.
        t.name = flex_times_[k].comment;
        for (const TimeBlock& s : times_)
            if (t.name.empty() && s.time == flex_times_[k].time) t.name = s.comment;
        if (t.name.empty()) t.name = fmt::format("time {}", flex_times_[k].time);
        t.position_deltas.assign(n, Vec3{0, 0, 0});
        t.normal_deltas.assign(n, Vec3{0, 0, 0});
        for (const FlexVertex& f : flex_[k]) {
            if (f.index >= n) return at_line(f.line, fmt::format("vertexanimation: vertex {} is out of range: the base has {} vertices", f.index, n));
            for (int c = 0; c < 3; ++c) {
                t.position_deltas[f.index][size_t(c)] = f.position[size_t(c)] - mesh.positions[f.index][size_t(c)];
                t.normal_deltas[f.index][size_t(c)] = f.normal[size_t(c)] - mesh.normals[f.index][size_t(c)];
            }
        }
        mesh.morph_targets.push_back(std::move(t));
    }
    scene_.meshes.push_back(std::move(mesh));
    if (std::any_of(times_.begin(), times_.end(), [](const TimeBlock& b) { return !b.bones.empty(); }))
        warn(WarningCode::Ignored, "skeleton frames of a .vta (its shapes are the vertexanimation blocks)");
    scene_.meta.dialect = "vta";
    return std::nullopt;
}

}  // namespace rigport::smd::detail

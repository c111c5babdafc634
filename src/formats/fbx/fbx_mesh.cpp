// FBX Geometry to rigport meshes (docs/fbx.md §2.3).
#include "formats/fbx/fbx_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

namespace rigport::fbx {

namespace {

enum class Mapping : uint8_t { ByPolygonVertex, ByControlPoint, ByPolygon, AllSame };

// One layer element (LayerElementNormal, ...UV, ...Color, ...Material) resolved per corner.
struct Layer {
    bool present = false;
    Mapping mapping = Mapping::ByPolygonVertex;
    std::vector<double> values;
    std::vector<int64_t> index;  // IndexToDirect; empty for Direct
    int components = 0;

    // The value index of corner c of polygon p at control point v; -1 when the file has none.
    int64_t at(size_t corner, size_t polygon, int64_t point) const {
        int64_t m = mapping == Mapping::ByPolygonVertex ? int64_t(corner) : mapping == Mapping::ByControlPoint ? point
                  : mapping == Mapping::ByPolygon       ? int64_t(polygon) : 0;
        if (!index.empty()) m = m >= 0 && size_t(m) < index.size() ? index[size_t(m)] : -1;
        return m >= 0 && uint64_t(m) < values.size() / components ? m : -1;
    }
};

Error error_at(const Node& node, std::string message) {
    Error e = make_error(ErrorCode::Malformed, std::move(message));
    if (node.line) e.line = node.line, e.column = 1;
    else e.offset = node.offset;
    return e;
}

std::string_view child_text(const Node& n, std::string_view name) {
    const Node* c = n.child(name);
    return c && !c->properties.empty() ? c->properties[0].text : std::string_view();
}

bool read_layer(const Node& element, std::string_view values_name, std::string_view index_name, int components, size_t corners, Layer& out, Error& error) {
    const std::string_view mapping = child_text(element, "MappingInformationType");
    const std::string_view reference = child_text(element, "ReferenceInformationType");
    if (mapping == "ByPolygonVertex") out.mapping = Mapping::ByPolygonVertex;
    else if (mapping == "ByVertice" || mapping == "ByVertex") out.mapping = Mapping::ByControlPoint;
    else if (mapping == "ByPolygon") out.mapping = Mapping::ByPolygon;
    else if (mapping == "AllSame") out.mapping = Mapping::AllSame;
    else return true;  // ByEdge (smoothing) and other mappings carry nothing rigport keeps
    const Node* values = element.child(values_name);
    if (!values) return true;
    out.components = components;
    if (!values->numbers_of(out.values)) {
        error = error_at(*values, fmt::format("{}: values that are not numbers", values_name));
        return false;
    }
    // IndexToDirect (or Index); 5.x's GeometryUVInfo says nothing and is indexed when it has an index.
    if (reference == "IndexToDirect" || reference == "Index" || reference.empty()) {
        if (const Node* index = element.child(index_name); index && !index->integers_of(out.index)) {
            error = error_at(*index, fmt::format("{}: indices that are not integers", index_name));
            return false;
        }
    }
    // Old exporters (3ds Max's 5.x UVs) say ByPolygon of values given per polygon corner: a
    // ByPolygon list as long as the corners is read by corner, as ufbx reads it.
    if (out.mapping == Mapping::ByPolygon && (out.index.empty() ? out.values.size() / size_t(components) : out.index.size()) == corners)
        out.mapping = Mapping::ByPolygonVertex;
    out.present = true;
    return true;
}

// 5.x keeps its normals in the geometry itself, without a layer element: by control point or by
// polygon corner as their count says; when both counts fit, by control point in 5.0 files and by
// corner in later ones (as ufbx reads them). Counts that fit neither: left out with a warning.
bool read_legacy_normals(const Object& geometry, const Node& normals, size_t points, size_t corners, uint32_t version, Layer& out, Scene& scene, Error& error) {
    std::vector<double> values;
    if (!normals.numbers_of(values)) {
        error = error_at(normals, fmt::format("geometry '{}': Normals: values that are not numbers", detail::excerpt(geometry.name)));
        return false;
    }
    const size_t count = values.size() / 3;
    const bool by_point = values.size() % 3 == 0 && count == points, by_corner = values.size() % 3 == 0 && count == corners;
    if (!by_point && !by_corner) {
        scene.warnings.add(WarningCode::Ignored, fmt::format("geometry '{}': {} Normals numbers fit neither its {} control points nor its {} polygon corners; "
                                                             "the normals are left out", detail::excerpt(geometry.name), values.size(), points, corners), normals.offset);
        return true;
    }
    out.present = true;
    out.components = 3;
    out.values = std::move(values);
    out.mapping = by_point && (!by_corner || version == 5000) ? Mapping::ByControlPoint : Mapping::ByPolygonVertex;
    return true;
}

// The layer elements of one kind in the order of their index (LayerElementUV: 0, 1, ...).
std::vector<const Node*> elements(const Node& geometry, std::string_view kind) {
    std::map<int64_t, const Node*> byindex;
    for (const Node& c : geometry.children)
        if (c.name == kind) byindex.emplace(c.properties.empty() ? 0 : c.properties[0].integer, &c);
    std::vector<const Node*> out;
    for (auto& [k, n] : byindex) out.push_back(n);
    return out;
}

std::array<double, 3> apply(const Mat4& m, const double* p, double w) {
    std::array<double, 3> r{};
    for (int k = 0; k < 3; ++k) r[k] = m[0][k] * p[0] + m[1][k] * p[1] + m[2][k] * p[2] + m[3][k] * w;
    return r;
}

// Corners of one output mesh: vertices by the corner's values, triangles fanned.
// A normal placed by the inverse's transpose, (M^-1)^T n, unit length (+Z when it has none).
Vec3 place_normal(const Mat4& inverse, const std::array<double, 3>& n) {
    std::array<double, 3> d{};
    for (int k = 0; k < 3; ++k) d[k] = inverse[k][0] * n[0] + inverse[k][1] * n[1] + inverse[k][2] * n[2];
    const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return len > 0 && std::isfinite(len) ? Vec3{float(d[0] / len), float(d[1] / len), float(d[2] / len)} : Vec3{0, 0, 1};
}

struct Builder {
    Mesh mesh;
    std::vector<int64_t> point_of;  // per vertex: its control point
    std::vector<std::array<double, 3>> raw_normal;  // per vertex: its normal as the file gives it
    // Corners with the same values (control point, normal, UV and colour indices) share a vertex:
    // each vertex's values, and an open-addressing table of vertex + 1 (0: empty) at most half
    // full, so a corner finds its vertex without an allocation.
    std::vector<int64_t> corner_values;
    std::vector<uint32_t> slots;

    // Room for about `vertices` vertices and `triangles` triangles, so the lists are not copied
    // as they grow (an estimate: the table and lists still grow past it).
    void reserve(size_t vertices, size_t triangles, size_t key_size, size_t uv_sets, size_t color_sets, bool normals, bool shaped) {
        mesh.positions.reserve(vertices);
        if (normals) mesh.normals.reserve(vertices);
        mesh.texcoords.resize(uv_sets);
        for (auto& t : mesh.texcoords) t.reserve(vertices);
        mesh.colors.resize(color_sets);
        for (auto& c : mesh.colors) c.reserve(vertices);
        mesh.triangles.reserve(triangles);
        if (shaped) {
            point_of.reserve(vertices);
            if (normals) raw_normal.reserve(vertices);
        }
        corner_values.reserve(vertices * key_size);
        size_t table = 64;
        while (table < (vertices + 1) * 2) table *= 2;
        slots.assign(table, 0);
    }
    static uint64_t hash(const int64_t* values, size_t n) {
        uint64_t h = 0;
        for (size_t i = 0; i < n; ++i) {
            h = (h ^ uint64_t(values[i])) * 0x9e3779b97f4a7c15ull;
            h ^= h >> 29;
        }
        return h;
    }
    void place_slot(uint32_t vertex, size_t n) {
        const size_t mask = slots.size() - 1;
        size_t i = hash(&corner_values[size_t(vertex) * n], n) & mask;
        while (slots[i]) i = (i + 1) & mask;
        slots[i] = vertex + 1;
    }
    // The vertex with these n corner values; `fresh` when it is made now (numbered next).
    uint32_t vertex_of(const int64_t* values, size_t n, bool& fresh) {
        const size_t made = corner_values.size() / n;
        if ((made + 1) * 2 > slots.size()) {
            slots.assign(std::max<size_t>(64, slots.size() * 2), 0);
            for (size_t v = 0; v < made; ++v) place_slot(uint32_t(v), n);
        }
        const size_t mask = slots.size() - 1;
        for (size_t i = hash(values, n) & mask;; i = (i + 1) & mask) {
            if (!slots[i]) {
                fresh = true;
                corner_values.insert(corner_values.end(), values, values + n);
                slots[i] = uint32_t(made) + 1;
                return uint32_t(made);
            }
            const uint32_t v = slots[i] - 1;
            if (std::equal(values, values + n, corner_values.begin() + std::ptrdiff_t(size_t(v) * n))) {
                fresh = false;
                return v;
            }
        }
    }
};

}  // namespace

bool read_mesh(const Object& geometry, const MeshPlacement& place, const LoadOptions& options, Scene& scene,
               std::vector<MorphBinding>& bindings, Error& error) {
    const Node& g = *geometry.node;
    std::vector<double> points;
    std::vector<int64_t> polygon_vertex;
    const Node* vertices = g.child("Vertices");
    const Node* indices = g.child("PolygonVertexIndex");
    if (!vertices || !indices) return true;  // a geometry without polygons (NURBS, lines): nothing to read
    if (!vertices->numbers_of(points) || points.size() % 3 != 0) {
        error = error_at(*vertices, fmt::format("geometry '{}': Vertices is not a list of x, y, z numbers", detail::excerpt(geometry.name)));
        return false;
    }
    if (!indices->integers_of(polygon_vertex)) {
        error = error_at(*indices, fmt::format("geometry '{}': PolygonVertexIndex is not a list of integers", detail::excerpt(geometry.name)));
        return false;
    }
    const int64_t point_count = int64_t(points.size() / 3);
    if (uint64_t(point_count) > options.max_elements || polygon_vertex.size() > options.max_elements) {
        error = make_error(ErrorCode::LimitExceeded, fmt::format("geometry '{}': {} control points, {} corners: more than {} (LoadOptions::max_elements)",
                                                                 detail::excerpt(geometry.name), point_count, polygon_vertex.size(), options.max_elements));
        return false;
    }

    Layer normals, material;
    std::vector<Layer> uvs, colors;
    const size_t corners = polygon_vertex.size();
    const std::vector<const Node*> normal_elements = elements(g, "LayerElementNormal"), uv_elements = elements(g, "LayerElementUV");
    for (const Node* e : normal_elements) {
        if (!read_layer(*e, "Normals", "NormalsIndex", 3, corners, normals, error)) return false;
        break;  // the first set: rigport keeps one normal per vertex
    }
    // 5.x: Normals, GeometryUVInfo (TextureUV, TextureUVVerticeIndex) and MaterialAssignation
    // with Materials stand in the geometry itself (docs/fbx.md §2.3).
    if (const Node* n = g.child("Normals"); normal_elements.empty() && n)
        if (!read_legacy_normals(geometry, *n, size_t(point_count), corners, place.version, normals, scene, error)) return false;
    for (const Node* e : uv_elements) {
        Layer l;
        if (!read_layer(*e, "UV", "UVIndex", 2, corners, l, error)) return false;
        if (l.present) uvs.push_back(std::move(l));
    }
    if (const Node* info = g.child("GeometryUVInfo"); uv_elements.empty() && info) {
        Layer l;
        if (!read_layer(*info, "TextureUV", "TextureUVVerticeIndex", 2, corners, l, error)) return false;
        if (l.present) uvs.push_back(std::move(l));
    }
    for (const Node* e : elements(g, "LayerElementColor")) {
        Layer l;
        if (!read_layer(*e, "Colors", "ColorIndex", 4, corners, l, error)) return false;
        if (l.present) colors.push_back(std::move(l));
    }
    const std::vector<const Node*> material_elements = elements(g, "LayerElementMaterial");
    const Node* assignment = material_elements.empty() ? g.child("MaterialAssignation") : nullptr;  // 5.x
    if (const Node* e = material_elements.empty() ? (assignment ? &g : nullptr) : material_elements[0]) {
        const Node* m = e->child("Materials");
        std::vector<int64_t> slots;
        if (m && !m->integers_of(slots)) {
            error = error_at(*m, "Materials: indices that are not integers");
            return false;
        }
        material.present = !slots.empty();
        const std::string_view mapping = assignment ? child_text(g, "MaterialAssignation") : child_text(*e, "MappingInformationType");
        material.mapping = mapping == "ByPolygon" ? Mapping::ByPolygon : Mapping::AllSame;
        material.components = 1;
        material.values.assign(slots.begin(), slots.end());
    }

    const Mat4& m = place.matrix;
    const Mat4 nm = inverse_affine(m);  // rows of its inverse = the normal matrix's columns
    const bool mirrored = m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
                              m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]) < 0;

    std::map<int32_t, Builder> by_material;  // scene material index -> mesh being built
    const size_t key_size = 2 + uvs.size() + colors.size();
    const bool shaped = !place.shapes.empty();  // morph targets need each vertex's point and file normal
    // A mesh per material slot has about its share of the control points as vertices; no more than
    // there are corners, and no more than 4M reserved ahead (a file of few distinct corners must
    // not make a large reservation).
    const size_t reserved_vertices = std::min({size_t(point_count) / std::max<size_t>(1, place.materials.size()), corners, size_t(1) << 22});
    size_t corner = 0, polygon = 0, dropped = 0, missing_values = 0;
    std::vector<uint32_t> poly;
    std::vector<int64_t> key;  // a corner's values: control point, normal, UV and colour indices
    while (corner < polygon_vertex.size()) {
        // One polygon: corners up to and including the negative (~index) one.
        const size_t first = corner;
        size_t end = first;
        while (end < polygon_vertex.size() && polygon_vertex[end] >= 0) ++end;
        if (end == polygon_vertex.size()) {
            error = error_at(*indices, fmt::format("geometry '{}': the last polygon (from corner {}) has no closing negative index", detail::excerpt(geometry.name), first));
            return false;
        }
        ++end;
        int32_t slot = 0;
        if (material.present) {
            const int64_t s = material.at(first, polygon, 0);
            // A slot is an index as the file wrote it (a double here): one outside int32 names no
            // material, like any other slot past the model's materials.
            const double m = s >= 0 ? material.values[size_t(s)] : 0.0;
            slot = m >= 0 && m < 2147483648.0 ? int32_t(m) : -1;
        }
        const int32_t scene_material = slot >= 0 && size_t(slot) < place.materials.size() ? place.materials[size_t(slot)] : -1;
        auto [built, created] = by_material.try_emplace(scene_material);
        Builder& b = built->second;
        if (created) b.reserve(reserved_vertices, corners / 3, key_size, uvs.size(), colors.size(), normals.present, shaped);
        poly.clear();
        for (size_t c = first; c < end; ++c) {
            const int64_t v = polygon_vertex[c] < 0 ? ~polygon_vertex[c] : polygon_vertex[c];
            if (v >= point_count) {
                error = error_at(*indices, fmt::format("geometry '{}': corner {} names control point {} of {}", detail::excerpt(geometry.name), c, v, point_count));
                return false;
            }
            // The corner's values, as the key that merges equal corners into one vertex.
            key.assign(1, v);
            auto add = [&](const Layer& l, size_t polygon_index) {
                const int64_t i = l.present ? l.at(c, polygon_index, v) : -1;
                if (l.present && i < 0) ++missing_values;
                key.push_back(i);
            };
            add(normals, polygon);
            for (auto& l : uvs) add(l, polygon);
            for (auto& l : colors) add(l, polygon);
            bool fresh = false;
            const uint32_t vertex = b.vertex_of(key.data(), key.size(), fresh);
            if (fresh) {
                Mesh& mesh = b.mesh;
                if (shaped) b.point_of.push_back(v);
                const auto p = apply(m, &points[size_t(v) * 3], 1);
                mesh.positions.push_back({float(p[0]), float(p[1]), float(p[2])});
                size_t at = 1;
                auto index_in_key = [&]() { return key[at++]; };
                const int64_t n = index_in_key();
                if (normals.present) {
                    std::array<double, 3> raw{};
                    if (n >= 0) raw = {normals.values[size_t(n) * 3], normals.values[size_t(n) * 3 + 1], normals.values[size_t(n) * 3 + 2]};
                    if (shaped) b.raw_normal.push_back(raw);
                    mesh.normals.push_back(place_normal(nm, raw));
                }
                mesh.texcoords.resize(uvs.size());
                for (size_t k = 0; k < uvs.size(); ++k) {
                    const int64_t i = index_in_key();
                    // FBX's V runs up from the bottom of the image; the scene's down from the top.
                    mesh.texcoords[k].push_back(i >= 0 ? Vec2{float(uvs[k].values[size_t(i) * 2]), float(1.0 - uvs[k].values[size_t(i) * 2 + 1])} : Vec2{0, 0});
                }
                mesh.colors.resize(colors.size());
                for (size_t k = 0; k < colors.size(); ++k) {
                    const int64_t i = index_in_key();
                    Vec4 col{1, 1, 1, 1};
                    if (i >= 0)
                        for (int q = 0; q < 4; ++q) col[q] = float(std::clamp(colors[k].values[size_t(i) * 4 + q], 0.0, 1.0));
                    mesh.colors[k].push_back(col);
                }
                if (place.skin) {
                    if (mesh.skin.offsets.empty()) mesh.skin.offsets.push_back(0);
                    const Influence* from = place.skin->begin(uint32_t(v));
                    mesh.skin.influences.insert(mesh.skin.influences.end(), from, from + place.skin->count(uint32_t(v)));
                    mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
                } else if (place.rigid_joint >= 0) {
                    if (mesh.skin.offsets.empty()) mesh.skin.offsets.push_back(0);
                    mesh.skin.influences.push_back({uint32_t(place.rigid_joint), 1.0f});
                    mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
                }
            }
            poly.push_back(vertex);
        }
        if (poly.size() < 3) ++dropped;
        for (size_t k = 1; k + 1 < poly.size(); ++k)
            b.mesh.triangles.push_back(mirrored ? Triangle{poly[0], poly[k + 1], poly[k]} : Triangle{poly[0], poly[k], poly[k + 1]});
        corner = end;
        ++polygon;
    }
    if (dropped)
        scene.warnings.add(WarningCode::Ignored, fmt::format("geometry '{}': {} polygons with fewer than 3 corners (points, lines) left out", detail::excerpt(geometry.name), dropped), g.offset);
    if (missing_values)
        scene.warnings.add(WarningCode::Substituted, fmt::format("geometry '{}': {} corner values missing from their layer (index out of range or -1); zeros used", detail::excerpt(geometry.name), missing_values), g.offset);
    // Blend shapes: each vertex moves by its control point's delta (the placement's linear part
    // turns the deltas as it turns the points).
    // Every shape moves every vertex in the targets: bounded like any other count.
    if (uint64_t(place.shapes.size()) * uint64_t(std::max<int64_t>(point_count, int64_t(polygon_vertex.size()))) > options.max_elements) {
        error = make_error(ErrorCode::LimitExceeded, fmt::format("geometry '{}': {} blend shapes x {} control points: more than {} (LoadOptions::max_elements)",
                                                                 detail::excerpt(geometry.name), place.shapes.size(), point_count, options.max_elements));
        return false;
    }
    std::vector<std::vector<double>> per_point(place.shapes.size()), normal_per_point(place.shapes.size());
    for (size_t k = 0; k < place.shapes.size(); ++k) {
        const ShapeInput& shape = place.shapes[k];
        if (shape.deltas.size() != shape.indexes.size() * 3) {
            error = error_at(g, fmt::format("geometry '{}': shape '{}' has {} indexes and {} delta numbers", detail::excerpt(geometry.name), detail::excerpt(shape.name),
                                            shape.indexes.size(), shape.deltas.size()));
            return false;
        }
        if (!shape.normals.empty() && shape.normals.size() != shape.deltas.size()) {
            error = error_at(g, fmt::format("geometry '{}': shape '{}' has {} delta numbers and {} normal numbers", detail::excerpt(geometry.name), detail::excerpt(shape.name),
                                            shape.deltas.size(), shape.normals.size()));
            return false;
        }
        per_point[k].assign(size_t(point_count) * 3, 0.0);
        if (std::any_of(shape.normals.begin(), shape.normals.end(), [](double x) { return x != 0; })) normal_per_point[k].assign(size_t(point_count) * 3, 0.0);
        for (size_t i = 0; i < shape.indexes.size(); ++i) {
            const int64_t point = shape.indexes[i];
            if (point < 0 || point >= point_count) {
                error = error_at(g, fmt::format("geometry '{}': shape '{}' moves control point {} of {}", detail::excerpt(geometry.name), detail::excerpt(shape.name), point, point_count));
                return false;
            }
            const auto d = apply(m, &shape.deltas[i * 3], 0);
            for (int c = 0; c < 3; ++c) per_point[k][size_t(point) * 3 + size_t(c)] += d[size_t(c)];
            if (!normal_per_point[k].empty())
                for (int c = 0; c < 3; ++c) normal_per_point[k][size_t(point) * 3 + size_t(c)] += shape.normals[i * 3 + size_t(c)];
        }
    }
    for (auto& [mat, b] : by_material) {
        if (b.mesh.triangles.empty()) continue;
        b.mesh.material = mat;
        b.mesh.name = by_material.size() > 1 && mat >= 0 ? fmt::format("{}_{}", place.name, scene.materials[size_t(mat)].name) : place.name;
        for (size_t k = 0; k < place.shapes.size(); ++k) {
            MorphTarget t;
            t.name = place.shapes[k].name;
            t.default_weight = place.shapes[k].default_weight;
            t.position_deltas.reserve(b.point_of.size());
            for (int64_t point : b.point_of) {
                const double* d = &per_point[k][size_t(point) * 3];
                t.position_deltas.push_back({float(d[0]), float(d[1]), float(d[2])});
            }
            // Shape normals are offsets from the mesh's normals by control point (zeros: none):
            // the target's normal delta is the offset normal placed, less the vertex's normal.
            if (!normal_per_point[k].empty() && b.raw_normal.size() == b.point_of.size())
                for (size_t i = 0; i < b.point_of.size(); ++i) {
                    const double* d = &normal_per_point[k][size_t(b.point_of[i]) * 3];
                    const std::array<double, 3> moved{b.raw_normal[i][0] + d[0], b.raw_normal[i][1] + d[1], b.raw_normal[i][2] + d[2]};
                    const Vec3 n = place_normal(nm, moved), base = b.mesh.normals[i];
                    t.normal_deltas.push_back({n[0] - base[0], n[1] - base[1], n[2] - base[2]});
                }
            bindings.push_back({uint32_t(scene.meshes.size()), uint32_t(b.mesh.morph_targets.size()), place.shapes[k].channel, place.shapes[k].shape,
                                place.shapes[k].full_weights, place.shapes[k].percent});
            b.mesh.morph_targets.push_back(std::move(t));
        }
        scene.meshes.push_back(std::move(b.mesh));
    }
    return true;
}

double shape_weight(const std::vector<double>& full_weights, size_t shape, double percent) {
    const size_t n = full_weights.size();
    if (shape >= n) return 0;
    // The span [x(j-1), x(j)] holding the percent (x(-1) = 0), the first or last one beyond them.
    const size_t j = std::min<size_t>(size_t(std::lower_bound(full_weights.begin(), full_weights.end(), percent) - full_weights.begin()), n - 1);
    const double lo = j == 0 ? 0 : full_weights[j - 1], hi = full_weights[j];
    const double a = hi > lo ? (percent - lo) / (hi - lo) : 1;
    return shape == j ? a : shape + 1 == j ? 1 - a : 0;
}

}  // namespace rigport::fbx

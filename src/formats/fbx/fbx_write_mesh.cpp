// FBX meshes (docs/fbx.md "Writing FBX", §2.3 for how they are read): a Mesh Model at the origin
// and a Geometry per scene mesh. Each vertex is a control point, each triangle a polygon; normals,
// every UV set and every colour set are layer elements by polygon vertex, indexed (IndexToDirect)
// by the corner's vertex, so a reader's corners with equal indices are the scene's vertices again.
#include "formats/fbx/fbx_write.hpp"

namespace rigport::fbx::out {

namespace {

// A layer element mapped ByPolygonVertex through an index of each corner's vertex.
void layer_element(Node& geometry, const char* kind, int64_t index, const std::string& name, const char* values_name,
                   std::vector<double> values, const char* index_name, const std::vector<int32_t>& corners, int64_t version = 101) {
    Node& e = geometry.add(kind, {i32(index)});
    e.add("Version", {i32(version)});
    e.add("Name", {str(name)});
    e.add("MappingInformationType", {str("ByPolygonVertex")});
    e.add("ReferenceInformationType", {str("IndexToDirect")});
    e.add(values_name, {doubles(std::move(values))});
    e.add(index_name, {ints(corners)});
}

void layer_entry(Node& layer, const char* type, int64_t typed_index) {
    Node& e = layer.add("LayerElement");
    e.add("Type", {str(type)});
    e.add("TypedIndex", {i32(typed_index)});
}

}  // namespace

void write_meshes(Document& doc) {
    const Scene& scene = doc.scene;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const std::string name = name_or(mesh.name, "mesh", m);
        const int64_t geometry = doc.id("Geometry", m), model = doc.id("Model/mesh", m);
        doc.mesh_geometries.push_back(geometry);
        doc.mesh_models.push_back(model);
        add_model_properties(doc.object("Model", model, name, "Model", "Mesh"), Transform{});
        doc.connect(model, 0);
        doc.connect(geometry, model);
        if (mesh.material >= 0 && size_t(mesh.material) < doc.materials.size()) doc.connect(doc.materials[size_t(mesh.material)], model);

        Node& g = doc.object("Geometry", geometry, name, "Geometry", "Mesh");
        g.add("Properties70");
        g.add("GeometryVersion", {i32(124)});
        std::vector<double> points;
        points.reserve(size_t(mesh.vertex_count()) * 3);
        for (const Vec3& p : mesh.positions) points.insert(points.end(), {p[0], p[1], p[2]});
        g.add("Vertices", {doubles(std::move(points))});
        // Corners in order; a polygon's last index is stored bitwise negated (~i).
        std::vector<int32_t> corners, polygon_vertex;
        corners.reserve(mesh.triangles.size() * 3);
        for (const Triangle& t : mesh.triangles) corners.insert(corners.end(), {int32_t(t[0]), int32_t(t[1]), int32_t(t[2])});
        polygon_vertex = corners;
        for (size_t c = 2; c < polygon_vertex.size(); c += 3) polygon_vertex[c] = ~polygon_vertex[c];
        g.add("PolygonVertexIndex", {ints(std::move(polygon_vertex))});

        Node layer0{"Layer", {i32(0)}, {}};
        layer0.add("Version", {i32(100)});
        if (!mesh.normals.empty()) {
            std::vector<double> v;
            for (const Vec3& n : mesh.normals) v.insert(v.end(), {n[0], n[1], n[2]});
            layer_element(g, "LayerElementNormal", 0, "", "Normals", std::move(v), "NormalsIndex", corners, 102);
            layer_entry(layer0, "LayerElementNormal", 0);
        }
        std::vector<Node> layers;
        const size_t sets = std::max(mesh.texcoords.size(), mesh.colors.size());
        for (size_t k = 0; k < sets; ++k) {
            Node& layer = k == 0 ? layer0 : layers.emplace_back(Node{"Layer", {i32(int64_t(k))}, {}});
            if (k > 0) layer.add("Version", {i32(100)});
            if (k < mesh.texcoords.size()) {
                // FBX's V runs up the image, rigport's down (as OBJ's: §2.3).
                std::vector<double> v;
                for (const Vec2& t : mesh.texcoords[k]) v.insert(v.end(), {t[0], 1.0 - double(t[1])});
                layer_element(g, "LayerElementUV", int64_t(k), k == 0 ? "UVMap" : "UVMap" + std::to_string(k), "UV", std::move(v), "UVIndex", corners);
                layer_entry(layer, "LayerElementUV", int64_t(k));
            }
            if (k < mesh.colors.size()) {
                std::vector<double> v;
                for (const Vec4& c : mesh.colors[k]) v.insert(v.end(), {c[0], c[1], c[2], c[3]});
                layer_element(g, "LayerElementColor", int64_t(k), "Col" + (k ? std::to_string(k) : std::string()), "Colors", std::move(v), "ColorIndex",
                              corners);
                layer_entry(layer, "LayerElementColor", int64_t(k));
            }
        }
        if (mesh.material >= 0 && size_t(mesh.material) < doc.materials.size()) {
            Node& e = g.add("LayerElementMaterial", {i32(0)});
            e.add("Version", {i32(101)});
            e.add("Name", {str("")});
            e.add("MappingInformationType", {str("AllSame")});
            e.add("ReferenceInformationType", {str("IndexToDirect")});
            e.add("Materials", {ints({0})});
            layer_entry(layer0, "LayerElementMaterial", 0);
        }
        // The Layer nodes come after the elements they name (assimp finds elements through them).
        g.children.push_back(std::move(layer0));
        for (auto& l : layers) g.children.push_back(std::move(l));
    }
}

}  // namespace rigport::fbx::out

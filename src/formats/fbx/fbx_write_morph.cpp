// FBX blend shapes (docs/fbx.md "Writing FBX", §2.7 for how they are read): per mesh with morph
// targets a BlendShape deformer on its Geometry, and per target a BlendShapeChannel (its default
// weight as DeformPercent) holding one Shape: the control points it moves and their offsets.
#include "formats/fbx/fbx_write.hpp"

namespace rigport::fbx::out {

void write_morphs(Document& doc) {
    const Scene& scene = doc.scene;
    doc.morph_channels.assign(scene.meshes.size(), {});
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        if (mesh.morph_targets.empty()) continue;
        const int64_t blend = doc.id("Deformer/blendshape", m);
        Node& b = doc.object("Deformer", blend, name_or(mesh.name, "mesh", m), "Deformer", "BlendShape");
        b.add("Version", {i32(100)});
        doc.connect(blend, doc.mesh_geometries[m]);
        for (size_t k = 0; k < mesh.morph_targets.size(); ++k) {
            const MorphTarget& t = mesh.morph_targets[k];
            const std::string name = name_or(t.name, "shape", k);
            // The points the target moves: those with a position or normal offset. Normals are
            // offsets from the mesh's normals, as the reader takes them (§2.7).
            std::vector<int32_t> indexes;
            std::vector<double> offsets, normals;
            const bool has_normals = !t.normal_deltas.empty() && !mesh.normals.empty();
            for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                const Vec3 d = t.position_deltas.empty() ? Vec3{0, 0, 0} : t.position_deltas[v];
                const Vec3 n = has_normals ? t.normal_deltas[v] : Vec3{0, 0, 0};
                if (d == Vec3{0, 0, 0} && n == Vec3{0, 0, 0}) continue;
                indexes.push_back(int32_t(v));
                offsets.insert(offsets.end(), {d[0], d[1], d[2]});
                normals.insert(normals.end(), {n[0], n[1], n[2]});
            }
            const int64_t channel = doc.id("Deformer/channel", m, k), shape = doc.id("Geometry/shape", m, k);
            Node& c = doc.object("Deformer", channel, name, "SubDeformer", "BlendShapeChannel");
            c.add("Version", {i32(100)});
            c.add("DeformPercent", {f64(double(t.default_weight) * 100.0)});
            c.add("FullWeights", {doubles({100.0})});
            property(c.add("Properties70"), "DeformPercent", "Number", "", "A", {f64(double(t.default_weight) * 100.0)});
            Node& s = doc.object("Geometry", shape, name, "Geometry", "Shape");
            s.add("Version", {i32(100)});
            s.add("Indexes", {ints(std::move(indexes))});
            s.add("Vertices", {doubles(std::move(offsets))});
            if (has_normals) s.add("Normals", {doubles(std::move(normals))});
            doc.connect(channel, blend);
            doc.connect(shape, channel);
            doc.morph_channels[m].push_back(channel);
        }
    }
}

}  // namespace rigport::fbx::out

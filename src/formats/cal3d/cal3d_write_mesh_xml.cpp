// XMF writer: SUBMESH records as XML in the IMVU 919 HEADER form or the 1100 / 1301 root form, with
// shortest round-trip floats (docs/cal3d.md §3.1, §3.5, §3.8).
#include <fmt/format.h>

#include "formats/cal3d/cal3d_write_mesh.hpp"

namespace rigport::cal3d {

std::vector<uint8_t> write_xmf_bytes(const std::vector<SubmeshOut>& submeshes, Dialect dialect) {
    XmlWriter x;
    const std::string root = x.header(FileType::Mesh, dialect);
    x.open("MESH", root + fmt::format(" NUMSUBMESH=\"{}\"", submeshes.size()));
    for (const SubmeshOut& sm : submeshes) {
        const Mesh& m = *sm.mesh;
        const uint32_t n = m.vertex_count();
        const bool springs = !m.springs.empty();
        std::string attrs = fmt::format(" NUMVERTICES=\"{}\" NUMFACES=\"{}\" MATERIAL=\"{}\" NUMLODSTEPS=\"{}\" NUMSPRINGS=\"{}\"", n,
                                        m.triangles.size(), sm.material, m.lod_steps, m.springs.size());
        if (sm.morphs) attrs += fmt::format(" NUMMORPHS=\"{}\"", sm.targets.size());
        attrs += fmt::format(" NUMTEXCOORDS=\"{}\"", m.texcoords.size());
        x.open("SUBMESH", attrs);
        for (uint32_t v = 0; v < n; ++v) {
            const uint32_t first = m.skin.empty() ? 0 : m.skin.offsets[v];
            const uint32_t last = m.skin.empty() ? 0 : m.skin.offsets[v + 1];
            x.open("VERTEX", fmt::format(" ID=\"{}\" NUMINFLUENCES=\"{}\"", v, last - first));
            x.leaf("POS", {}, xml_floats(m.positions[v].data(), 3));
            x.leaf("NORM", {}, xml_floats(sm.normals[v].data(), 3));
            if (sm.colors) x.leaf("COLOR", {}, xml_floats(sm.color[v].data(), 3));
            // Writers omit both when there is no collapse (§3.5); written when either is set.
            if (!m.lod.empty() && (m.lod[v].collapse_id != -1 || m.lod[v].face_collapse_count != 0)) {
                x.leaf("COLLAPSEID", {}, std::to_string(m.lod[v].collapse_id));
                x.leaf("COLLAPSECOUNT", {}, std::to_string(m.lod[v].face_collapse_count));
            }
            for (auto& set : m.texcoords) x.leaf("TEXCOORD", {}, xml_floats(set[v].data(), 2));
            for (uint32_t i = first; i < last; ++i)
                x.leaf("INFLUENCE", fmt::format(" ID=\"{}\"", sm.bones[i]), xml_float(m.skin.influences[i].weight));
            if (springs) x.leaf("PHYSIQUE", {}, xml_float(sm.physique[v]));
            x.close("VERTEX");
        }
        for (auto& s : m.springs)
            x.empty("SPRING", fmt::format(" VERTEXID=\"{} {}\" COEF=\"{}\" LENGTH=\"{}\"", s.vertex0, s.vertex1, xml_float(s.coefficient),
                                          xml_float(s.idle_length)));
        for (size_t t = 0; t < sm.targets.size(); ++t) {
            const MorphOut& morph = sm.targets[t];
            x.open("MORPH", xml_attr("NAME", morph.name) + fmt::format(" NUMBLENDVERTS=\"{}\" MORPHID=\"{}\"", morph.vertices.size(), t));
            for (const BlendVertexOut& bv : morph.vertices) {
                // IM writes POSDIFF = |POSITION - base| with its absolute targets (§3.8).
                std::string bv_attrs = fmt::format(" VERTEXID=\"{}\"", bv.id);
                if (dialect == Dialect::Imvu919) bv_attrs += fmt::format(" POSDIFF=\"{}\"", xml_float(bv.position_diff));
                x.open("BLENDVERTEX", bv_attrs);
                x.leaf("POSITION", {}, xml_floats(bv.position.data(), 3));
                x.leaf("NORMAL", {}, xml_floats(bv.normal.data(), 3));
                // Every blend vertex carries NUMTEXCOORDS TEXCOORDs: UP's loader rejects one without (§6).
                for (auto& set : m.texcoords) x.leaf("TEXCOORD", {}, xml_floats(set[size_t(bv.id)].data(), 2));
                x.close("BLENDVERTEX");
            }
            x.close("MORPH");
        }
        for (auto& f : m.triangles) x.empty("FACE", fmt::format(" VERTEXID=\"{} {} {}\"", f[0], f[1], f[2]));
        x.close("SUBMESH");
    }
    x.close("MESH");
    return std::vector<uint8_t>(x.text.begin(), x.text.end());
}

}  // namespace rigport::cal3d

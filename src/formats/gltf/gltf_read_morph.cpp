// glTF reader: morph targets of a primitive (glTF 2.0 §3.7.2.2): POSITION / NORMAL / TANGENT
// displacements, names from mesh.extras.targetNames, default weights from mesh.weights.
#include <fmt/format.h>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

bool read_targets(Reader& r, uint32_t mesh, uint32_t primitive, const Json& prim, Mesh& out) {
    const std::string mesh_path = fmt::format("/meshes/{}", mesh);
    const std::string path = fmt::format("{}/primitives/{}", mesh_path, primitive);
    const Json* targets = r.array(prim, "targets", path);
    if (!r.ok()) return false;
    if (!targets || targets->empty()) return true;
    const uint64_t n = out.vertex_count();
    if (!r.spend(n * targets->size(), path + "/targets")) return false;

    const Json* m = r.item("meshes", mesh);
    const Json* weights = m ? r.array(*m, "weights", mesh_path) : nullptr;
    const Json* extras = m ? r.object(*m, "extras", mesh_path) : nullptr;
    const Json* names = extras ? r.array(*extras, "targetNames", mesh_path + "/extras") : nullptr;
    if (!r.ok()) return false;
    if (weights && weights->size() != targets->size())
        r.warn(WarningCode::CountMismatch, fmt::format("{}/weights: {} weights for {} morph targets; defaults taken as 0", mesh_path, weights->size(), targets->size()));
    if (names && names->size() != targets->size())
        r.warn(WarningCode::CountMismatch, fmt::format("{}/extras/targetNames: {} names for {} morph targets; ignored", mesh_path, names->size(), targets->size()));

    for (size_t t = 0; t < targets->size(); ++t) {
        const std::string at = fmt::format("{}/targets/{}", path, t);
        const Json& target = (*targets)[t];
        if (!target.is_object()) return r.malformed(at, "expected an object");
        MorphTarget mt;
        if (names && names->size() == targets->size() && (*names)[t].is_string()) mt.name = (*names)[t].string();
        if (weights && weights->size() == targets->size()) {
            const Json& w = (*weights)[t];
            const float f = w.is_number() ? float(w.number()) : NAN;
            if (!std::isfinite(f)) return r.malformed(fmt::format("{}/weights/{}", mesh_path, t), "not a finite number");
            mt.default_weight = f;
        }
        for (auto it = target.begin(); it != target.end(); ++it) {
            const std::string name(it->key());
            std::vector<Vec3>* deltas = name == "POSITION" ? &mt.position_deltas : name == "NORMAL" ? &mt.normal_deltas
                                        : name == "TANGENT" ? &mt.tangent_deltas : nullptr;
            if (!deltas) {
                r.warn(WarningCode::DroppedData, fmt::format("morph target attribute {} is not read (only POSITION, NORMAL, TANGENT)", detail::excerpt(name)));
                continue;
            }
            uint32_t index = 0;
            if (!r.index_value(*it, at + "/" + name, index, "accessors", r.count("accessors"))) return false;
            const Accessor* a = r.accessor(index);
            if (!a) return false;
            // An accessor stored once and named by many targets makes n values each time: every
            // use after the first is unbacked (100,000 targets naming one accessor).
            if (r.morph_used.size() <= index) r.morph_used.resize(size_t(index) + 1, false);
            if (r.morph_used[index] && !r.spend_unbacked(n * 3, at + "/" + name)) return false;
            r.morph_used[index] = true;
            if (a->components != 3 || a->count != n)
                return r.malformed(at + "/" + name, fmt::format("accessor {} is {} x {}, expected VEC3 x {} (the vertex count)", index, a->type, a->count, n));
            deltas->resize(n);
            for (uint64_t v = 0; v < n; ++v)
                for (uint32_t c = 0; c < 3; ++c) (*deltas)[v][c] = float(a->value(v, c));
        }
        out.morph_targets.push_back(std::move(mt));
    }
    return true;
}

}  // namespace rigport::gltf::read_detail

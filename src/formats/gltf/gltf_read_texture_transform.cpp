// glTF reader: KHR_texture_transform (docs/gltf.md §7.1) applied to a primitive's texture
// coordinates. rigport's Material has no place for a transform, so the texcoords are moved where
// the transform puts them: uv' = offset + R(rotation) * (scale * uv), as the extension's matrix
// T * R * S gives. gltfpack stores quantised texcoords with such a transform, so without this step
// its files would map textures wrongly.
#include <fmt/format.h>

#include <cmath>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

void apply_texture_transforms(Reader& r, const std::string& path, Mesh& mesh) {
    if (mesh.material < 0 || size_t(mesh.material) >= r.texture_transforms.size()) return;
    const auto& transforms = r.texture_transforms[size_t(mesh.material)];
    for (uint32_t set = 0; set < mesh.texcoords.size(); ++set) {
        const TextureTransform* first = nullptr;
        bool differ = false;
        for (const TextureTransform& t : transforms) {
            if (t.set != set) continue;
            if (!first) first = &t;
            else differ = differ || !first->same(t);
        }
        if (!first) continue;
        // Maps on one set with different transforms cannot all be kept: the first map's (the base
        // colour's, when it has one) wins.
        const double c = std::cos(double(first->rotation)), s = std::sin(double(first->rotation));
        for (auto& uv : mesh.texcoords[set]) {
            const double u = double(uv[0]) * first->scale[0], v = double(uv[1]) * first->scale[1];
            uv = {float(c * u + s * v + first->offset[0]), float(-s * u + c * v + first->offset[1])};
        }
        r.warn(WarningCode::Tolerated,
               fmt::format("{}: TEXCOORD_{} moved by the KHR_texture_transform of {} (the scene keeps no texture transform){}", path, set, first->slot,
                           differ ? "; other maps of the material on this set have other transforms, which are lost" : ""));
    }
}

}  // namespace rigport::gltf::read_detail

// What a written file loses, said once for every format from its registry row (docs/architecture.md
// "What the front door does for every row"), so that writers do not each word it their own way.
#include "pipeline/cannot_hold.hpp"

#include <fmt/format.h>

#include "formats/common/text_names.hpp"
#include "support/excerpt.hpp"

namespace rigport::detail {

void warn_what_cannot_be_held(const Scene& scene, const FormatInfo& format, Warnings& warnings) {
    const FormatHolds& h = format.holds;
    const std::string_view name = format.name;
    auto lost = [&](std::string what) { warnings.add(WarningCode::DroppedData, fmt::format("{} not written ({} holds none)", what, name)); };
    auto mesh_name = [](const Mesh& m) { return excerpt(m.name); };

    const bool whole = !h.one_part;
    if (whole && !h.meshes && !scene.meshes.empty()) lost(fmt::format("{} meshes", scene.meshes.size()));
    const bool baked = h.vertex_frames;  // skins, joint animation and morphs become vertex frames
    if (whole && !h.skeleton && !scene.skeleton.joints.empty())
        lost(fmt::format("the skeleton ({} joints{})", scene.skeleton.joints.size(), baked ? "; its animation is baked into vertex frames" : ""));
    if ((h.skeleton || h.animation) && !h.joint_scales && has_joint_scale(scene)) lost("joint scales");
    uint64_t animated = 0;
    for (const Animation& a : scene.animations) animated += !a.tracks.empty();
    if (whole && !h.animation && !baked && animated) lost(fmt::format("{} joint animations", animated));
    if (whole && !h.morph_animation && !baked)
        for (const Animation& a : scene.animations)
            if (!a.morph_tracks.empty()) lost(fmt::format("animation '{}': morph weight tracks", excerpt(a.name)));

    for (const Mesh& m : scene.meshes) {
        if (!h.meshes) continue;
        if (!h.skin && !baked && !m.skin.empty()) lost(fmt::format("mesh '{}': skin influences", mesh_name(m)));
        if (!h.morphs && !baked && !m.morph_targets.empty()) lost(fmt::format("mesh '{}': {} morph targets", mesh_name(m), m.morph_targets.size()));
        if (!h.normals && !m.normals.empty()) lost(fmt::format("mesh '{}': normals", mesh_name(m)));
        if (!h.tangents && !m.tangents.empty()) lost(fmt::format("mesh '{}': tangents", mesh_name(m)));
        if (h.uv_sets == 0 && !m.texcoords.empty()) lost(fmt::format("mesh '{}': texture coordinates", mesh_name(m)));
        else if (m.texcoords.size() > h.uv_sets) lost(fmt::format("mesh '{}': texture coordinate sets after the first {}", mesh_name(m), h.uv_sets));
        if (!h.colours && !m.colors.empty()) lost(fmt::format("mesh '{}': vertex colours", mesh_name(m)));
        else if (h.colours && m.colors.size() > h.colour_sets)
            lost(fmt::format("mesh '{}': vertex colour sets after the first {}", mesh_name(m), h.colour_sets));
        if (!h.custom_arrays && !m.custom.empty()) lost(fmt::format("mesh '{}': {} custom vertex arrays", mesh_name(m), m.custom.size()));
        if (!h.cloth && (!m.springs.empty() || !m.spring_weights.empty() || m.has_lod())) {
            const std::string what = m.cloth_and_lod_names();
            lost(fmt::format("mesh '{}': {}", mesh_name(m), what.empty() ? "cloth weights" : what));
        }
    }

    if (whole && !h.materials && !scene.materials.empty()) lost(fmt::format("{} materials", scene.materials.size()));
}

}  // namespace rigport::detail

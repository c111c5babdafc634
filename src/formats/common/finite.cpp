// The writers' common guard: every float a writer would write is finite (src/formats/common/finite.hpp).
#include "formats/common/finite.hpp"

#include <fmt/format.h>

#include <cmath>

namespace rigport::detail {

namespace {

template <class V>
std::optional<size_t> first_non_finite(const std::vector<V>& items) {
    for (size_t i = 0; i < items.size(); ++i)
        for (float v : items[i])
            if (!std::isfinite(v)) return i;
    return std::nullopt;
}

std::optional<size_t> first_non_finite(const std::vector<float>& values) {
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return i;
    return std::nullopt;
}

Error not_finite(std::string what) {
    return make_error(ErrorCode::Malformed, what + " is not finite; no output format can hold NaN or infinity");
}

}  // namespace

Status check_finite_for_writing(const Scene& scene, bool normal_fallback) {
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const std::string at = fmt::format("mesh {} '{}'", m, mesh.name);
        auto vertex = [&](const char* stream, std::optional<size_t> v) { return not_finite(fmt::format("{}: {} of vertex {}", at, stream, *v)); };
        if (auto v = first_non_finite(mesh.positions)) return vertex("position", v);
        if (!normal_fallback) {
            if (auto v = first_non_finite(mesh.normals)) return vertex("normal", v);
            if (auto v = first_non_finite(mesh.tangents)) return vertex("tangent", v);
        }
        for (auto& set : mesh.texcoords)
            if (auto v = first_non_finite(set)) return vertex("texcoord", v);
        for (auto& set : mesh.colors)
            if (auto v = first_non_finite(set)) return vertex("color", v);
        for (size_t i = 0; i < mesh.skin.influences.size(); ++i)
            if (!std::isfinite(mesh.skin.influences[i].weight)) return not_finite(fmt::format("{}: influence {} weight", at, i));
        for (auto& c : mesh.custom)
            for (size_t i = 0; i < c.values.size(); ++i)
                if (!std::isfinite(c.values[i])) return not_finite(fmt::format("{}: custom array '{}' value {}", at, c.name, i));
        for (size_t t = 0; t < mesh.morph_targets.size(); ++t) {
            const MorphTarget& mt = mesh.morph_targets[t];
            const std::string target = fmt::format("{}: morph target {} '{}'", at, t, mt.name);
            if (auto v = first_non_finite(mt.position_deltas)) return not_finite(fmt::format("{}: position delta of vertex {}", target, *v));
            if (auto v = first_non_finite(mt.normal_deltas)) return not_finite(fmt::format("{}: normal delta of vertex {}", target, *v));
            if (auto v = first_non_finite(mt.tangent_deltas)) return not_finite(fmt::format("{}: tangent delta of vertex {}", target, *v));
            if (!std::isfinite(mt.default_weight)) return not_finite(target + ": default weight");
        }
        for (size_t s = 0; s < mesh.springs.size(); ++s)
            if (!std::isfinite(mesh.springs[s].coefficient) || !std::isfinite(mesh.springs[s].idle_length))
                return not_finite(fmt::format("{}: spring {}", at, s));
        if (auto v = first_non_finite(mesh.spring_weights)) return not_finite(fmt::format("{}: spring weight of vertex {}", at, *v));
    }
    for (size_t j = 0; j < scene.skeleton.joints.size(); ++j) {
        const Transform& b = scene.skeleton.joints[j].bind;
        for (float v : b.translate) if (!std::isfinite(v)) return not_finite(fmt::format("joint {} '{}': bind translation", j, scene.skeleton.joints[j].name));
        for (float v : b.rotate) if (!std::isfinite(v)) return not_finite(fmt::format("joint {} '{}': bind rotation", j, scene.skeleton.joints[j].name));
        for (float v : b.scale) if (!std::isfinite(v)) return not_finite(fmt::format("joint {} '{}': bind scale", j, scene.skeleton.joints[j].name));
    }
    for (size_t a = 0; a < scene.animations.size(); ++a) {
        const Animation& anim = scene.animations[a];
        const std::string at = fmt::format("animation {} '{}'", a, anim.name);
        if (!std::isfinite(anim.frame_rate)) return not_finite(at + ": frame rate");
        if (!std::isfinite(anim.stated_duration)) return not_finite(at + ": duration");
        for (size_t t = 0; t < anim.tracks.size(); ++t) {
            if (auto k = first_non_finite(anim.tracks[t].times)) return not_finite(fmt::format("{}: track {} time of key {}", at, t, *k));
            if (auto k = first_non_finite(anim.tracks[t].values)) return not_finite(fmt::format("{}: track {} value {}", at, t, *k));
        }
        for (size_t t = 0; t < anim.morph_tracks.size(); ++t) {
            if (auto k = first_non_finite(anim.morph_tracks[t].times)) return not_finite(fmt::format("{}: morph track {} time of key {}", at, t, *k));
            if (auto k = first_non_finite(anim.morph_tracks[t].weights)) return not_finite(fmt::format("{}: morph track {} weight {}", at, t, *k));
        }
    }
    return Ok{};
}

}  // namespace rigport::detail

#include "formats/common/vertex_frames.hpp"

#include <fmt/format.h>

#include <map>

namespace rigport::detail {

std::string_view frame_name_prefix(std::string_view name) {
    name = name.substr(0, name.find('\0'));
    size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
    return end == 0 ? name : name.substr(0, end);
}

std::vector<FrameGroup> group_frames_by_name(const std::vector<std::string>& frame_names) {
    std::vector<FrameGroup> groups;
    std::map<std::string, uint32_t, std::less<>> seen;
    for (uint32_t f = 0; f < frame_names.size(); ++f) {
        const std::string_view prefix = frame_name_prefix(frame_names[f]);
        if (!groups.empty() && f > 0 && frame_name_prefix(frame_names[f - 1]) == prefix) {
            ++groups.back().count;
            continue;
        }
        const uint32_t n = ++seen[std::string(prefix)];
        groups.push_back({n == 1 ? std::string(prefix) : fmt::format("{}_{}", prefix, n), f, 1});
    }
    return groups;
}

void add_frame_targets(Mesh& mesh, const std::vector<std::string>& frame_names, std::span<const std::vector<Vec3>> positions,
                       std::span<const std::vector<Vec3>> normals) {
    const size_t vertices = mesh.positions.size();
    const bool with_normals = !normals.empty() && mesh.normals.size() == vertices;
    for (size_t f = 1; f < frame_names.size(); ++f) {
        MorphTarget target;
        target.name = frame_names[f].substr(0, frame_names[f].find('\0'));
        target.position_deltas.resize(vertices);
        for (size_t v = 0; v < vertices; ++v)
            for (int k = 0; k < 3; ++k) target.position_deltas[v][k] = positions[f][v][k] - mesh.positions[v][k];
        if (with_normals) {
            target.normal_deltas.resize(vertices);
            for (size_t v = 0; v < vertices; ++v)
                for (int k = 0; k < 3; ++k) target.normal_deltas[v][k] = normals[f][v][k] - mesh.normals[v][k];
        }
        mesh.morph_targets.push_back(std::move(target));
    }
}

void add_frame_animations(Scene& scene, const std::vector<FrameGroup>& groups, uint32_t frame_count, float frame_rate) {
    if (frame_count < 2) return;
    const uint32_t targets = frame_count - 1;
    for (const FrameGroup& g : groups) {
        Animation a;
        a.name = g.name;
        a.frame_rate = frame_rate;
        a.frame_count = g.count;
        for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
            if (scene.meshes[m].morph_targets.size() != targets) continue;
            MorphWeightTrack track;
            track.mesh = m;
            track.interpolation = Interpolation::Linear;
            track.times.resize(g.count);
            track.weights.assign(size_t(g.count) * targets, 0.0f);
            for (uint32_t k = 0; k < g.count; ++k) {
                track.times[k] = float(k) / frame_rate;
                const uint32_t frame = g.first + k;
                if (frame > 0) track.weights[size_t(k) * targets + (frame - 1)] = 1.0f;
            }
            a.morph_tracks.push_back(std::move(track));
        }
        scene.animations.push_back(std::move(a));
    }
}

std::string numbered_frame_name(const std::string& clip, uint32_t number, uint32_t count, size_t room, bool& truncated) {
    const size_t digits = std::to_string(count).size();
    const size_t keep = room > digits ? room - digits : 0;
    truncated = truncated || clip.size() > keep;
    return clip.substr(0, keep) + std::to_string(number);
}

Expected<BakedFrames> bake_within_frame_limit(const Scene& scene, float frame_rate, uint32_t max_frames, std::string_view engine,
                                              std::string_view per, std::string_view limit) {
    BakeOptions bake;
    bake.frame_rate = frame_rate;
    bake.max_frames = max_frames;  // a longer animation is refused here, with the engine's limit named
    auto baked = bake_frames(scene, bake);
    if (!baked) {
        if (baked.error().code != ErrorCode::LimitExceeded) return baked.error();
        return make_error(ErrorCode::Unsupported, fmt::format("the animations need more than {} frames at {} per second: {} loads at most {} per {} ({}); {}",
                                                              max_frames, frame_rate, engine, max_frames, per, limit, baked.error().message));
    }
    if (baked->frames.size() > max_frames)
        return make_error(ErrorCode::Unsupported, fmt::format("{} frames at {} per second: {} loads at most {} per {} ({})", baked->frames.size(),
                                                              frame_rate, engine, max_frames, per, limit));
    return baked;
}

}  // namespace rigport::detail

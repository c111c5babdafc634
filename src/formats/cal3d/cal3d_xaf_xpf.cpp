// XAF XML skeletal animation and XPF XML morph animation (both dialects) readers (docs/cal3d.md §3.4, §3.7).
#include <fmt/format.h>

#include "formats/cal3d/cal3d_xml.hpp"

namespace rigport::cal3d {

namespace {

std::optional<Error> read_duration(const xml::Document& d, float& duration, Warnings& w) {
    if (auto e = xml::float_attribute(d, d.body, "DURATION", duration, w)) return e;
    if (!(duration > 0)) return xml::error_at(d, d.body, fmt::format("DURATION {} is not > 0", duration));
    return std::nullopt;
}

}  // namespace

Expected<Scene> read_xaf(std::span<const uint8_t> bytes, const LoadOptions& options) { return read_xaf(bytes, options, Ids::Placeholders); }

Expected<Scene> read_xaf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids) {
    Scene scene;
    auto& w = scene.warnings;
    xml::Document d;
    if (auto e = xml::parse(bytes, FileType::Animation, d, w, options.max_depth)) return *e;
    float duration = 0;
    if (auto e = read_duration(d, duration, w)) return *e;
    std::vector<Track> tracks;
    uint64_t keys = 0, missing_translation = 0;
    for (auto node = xml::child(d.body, "TRACK"); node; node = xml::next(node, "TRACK")) {
        Track t;
        t.offset = uint64_t(node.offset_debug());
        if (auto e = xml::int_attribute(d, node, "BONEID", t.bone)) return *e;
        if (t.bone < 0 || t.bone > max_bone_id) return xml::error_at(d, node, fmt::format("BONEID {} not in [0, {}]", t.bone, max_bone_id));
        for (auto k = xml::child(node, "KEYFRAME"); k; k = xml::next(k, "KEYFRAME")) {
            if (++keys > options.max_elements) return xml::error_at(d, k, "too many keyframes");
            Key key;
            if (auto e = xml::float_attribute(d, k, "TIME", key.time, w)) return *e;
            bool found = false;
            if (auto e = xml::element_floats(d, k, "TRANSLATION", key.translation.data(), 3, w, false, &found)) return *e;
            // 2012 rule (§3.4): a key without TRANSLATION keeps the bone's bind translation.
            key.has_translation = found;
            missing_translation += !found;
            if (auto e = xml::element_floats(d, k, "ROTATION", key.rotation.data(), 4, w)) return *e;
            t.keys.push_back(key);
        }
        if (t.keys.empty()) return xml::error_at(d, node, "a TRACK without KEYFRAME");
        tracks.push_back(std::move(t));
    }
    if (tracks.empty()) return xml::error_at(d, d.body, "no TRACK");
    if (missing_translation && d.version < 1300)
        w.add(WarningCode::ReaderDifference, fmt::format("{} keys without TRANSLATION in a VERSION {} file (upstream before 1300 rejects it)",
                                              missing_translation, d.version));
    if (auto st = finish_animation(duration, tracks, scene, ids); !st) return st.error();
    set_meta(scene, FileType::Animation, false, d.version);
    return scene;
}

Expected<Scene> read_xpf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    auto& w = scene.warnings;
    xml::Document d;
    if (auto e = xml::parse(bytes, FileType::MorphAnimation, d, w, options.max_depth)) return *e;
    float duration = 0;
    if (auto e = read_duration(d, duration, w)) return *e;
    std::vector<MorphTrack> tracks;
    uint64_t keys = 0, by_name = 0, by_id = 0;
    for (auto node = xml::child(d.body, "TRACK"); node; node = xml::next(node, "TRACK")) {
        MorphTrack t;
        if (const char* name = xml::attribute(node, "MORPHNAME")) {  // IMVU: bound by name
            t.morph_name = name;
            ++by_name;
        } else {  // upstream: (mesh index in the .cfg, submesh ids, morph index)
            if (auto e = xml::int_attribute(d, node, "MORPHID", t.morph_id)) return *e;
            if (auto e = xml::int_attribute(d, node, "MESHID", t.mesh_id)) return *e;
            if (t.morph_id < 0 || t.mesh_id < 0) return xml::error_at(d, node, "negative MORPHID or MESHID");
            for (auto s = xml::child(node, "SUBMESH"); s; s = xml::next(s, "SUBMESH")) {
                int32_t id = 0;
                if (auto e = xml::int_attribute(d, s, "ID", id)) return *e;
                if (t.submeshes.size() >= 4096) return xml::error_at(d, s, "too many SUBMESH");
                t.submeshes.push_back(id);
            }
            ++by_id;
        }
        for (auto k = xml::child(node, "KEYFRAME"); k; k = xml::next(k, "KEYFRAME")) {
            if (++keys > options.max_elements) return xml::error_at(d, k, "too many keyframes");
            float time = 0, weight = 0;
            if (auto e = xml::float_attribute(d, k, "TIME", time, w)) return *e;
            if (auto e = xml::element_floats(d, k, "WEIGHT", &weight, 1, w)) return *e;
            t.times.push_back(time);
            t.weights.push_back(weight);
        }
        tracks.push_back(std::move(t));
    }
    if (by_name && by_id) w.add(WarningCode::Tolerated, "XPF mixes MORPHNAME and MORPHID tracks");
    scene.meta.comment = by_id ? "XPF dialect: upstream (MORPHID/MESHID)" : "XPF dialect: IMVU (MORPHNAME)";
    finish_morph_animation(duration, tracks, scene);
    set_meta(scene, FileType::MorphAnimation, false, d.version);
    return scene;
}

}  // namespace rigport::cal3d

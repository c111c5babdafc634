// Cal3D morph animation writers, CPF and XPF in the IMVU 919 (by name) and trunk 1301 (by id) dialects (docs/cal3d.md §2.5, §3.7, §5 step 7).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/process.hpp"

namespace rigport::cal3d {

namespace {

// One Cal3D morph track: what it binds to and its keys.
struct OutMorphTrack {
    MorphTrack binding;  // morph_name (IMVU) or morph_id / mesh_id / submeshes (1301)
    std::vector<float> times, weights;
};

bool parse_int(std::string_view& s, int32_t& out) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (r.ec != std::errc() || out < 0) return false;
    s.remove_prefix(size_t(r.ptr - s.data()));
    return true;
}
bool take(std::string_view& s, std::string_view prefix) {
    if (!s.starts_with(prefix)) return false;
    s.remove_prefix(prefix.size());
    return true;
}

// The inverse of morph_track_name for upstream tracks read alone ("mesh 19 submesh 0,2 morph 16"):
// a scene read from an upstream XPF / CPF keeps its ids when written again.
bool parse_upstream_name(std::string_view s, MorphTrack& t) {
    t.submeshes.clear();
    if (!take(s, "mesh ") || !parse_int(s, t.mesh_id) || !take(s, " submesh ")) return false;
    while (!s.starts_with(" morph ")) {
        int32_t sub = 0;
        if (!t.submeshes.empty() && !take(s, ",")) return false;
        if (!parse_int(s, sub)) return false;
        t.submeshes.push_back(sub);
    }
    return take(s, " morph ") && parse_int(s, t.morph_id) && s.empty();
}

}  // namespace

Expected<std::vector<uint8_t>> write_morph_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options) {
    const Dialect dialect = options.cal3d.dialect;
    if (dialect == Dialect::Classic1100)
        return make_error(ErrorCode::Unsupported,
                          "the classic 1100 Cal3D dialect has no morph animation files (XPF / CPF exist in IMVU 919 and trunk 1301 only)");
    if (animation >= scene.animations.size())
        return make_error(ErrorCode::InvalidArgument, fmt::format("animation {} of {}", animation, scene.animations.size()));
    const Animation& anim = scene.animations[animation];
    Warnings* w = options.warnings;
    const bool imvu = dialect == Dialect::Imvu919;
    std::vector<OutMorphTrack> tracks;
    uint64_t unnamed = 0, no_targets = 0, lost_binding = 0;
    for (auto& mt : anim.morph_tracks) {
        if (mt.mesh >= scene.meshes.size())
            return make_error(ErrorCode::InvalidArgument, fmt::format("a morph weight track drives mesh {} of {}", mt.mesh, scene.meshes.size()));
        const Mesh& mesh = scene.meshes[mt.mesh];
        const size_t n = mesh.morph_targets.size();
        if (n == 0) {
            ++no_targets;
            continue;
        }
        if (mt.weights.size() != mt.times.size() * n)
            return make_error(ErrorCode::InvalidArgument, fmt::format("mesh {}: {} morph weights for {} keys x {} targets", mt.mesh,
                                                                      mt.weights.size(), mt.times.size(), n));
        for (size_t t = 0; t < n; ++t) {
            OutMorphTrack o;
            const std::string& name = mesh.morph_targets[t].name;
            if (imvu) {
                o.binding.morph_name = name;
                unnamed += name.empty();
            } else if (!parse_upstream_name(name, o.binding)) {
                o.binding.morph_id = int32_t(t);
                o.binding.mesh_id = 0;
                o.binding.submeshes = {int32_t(mt.mesh)};
            }
            // Binary 1301 holds the morph id only (§2.5: UP's reader); mesh and submesh are lost.
            if (!imvu && binary && (o.binding.mesh_id != 0 || !o.binding.submeshes.empty())) ++lost_binding;
            for (size_t k = 0; k < mt.times.size(); ++k) {
                const float weight = mt.weights[k * n + t];
                // STEP: a key one float step before each change holds the previous weight.
                if (mt.interpolation == Interpolation::Step && k > 0 && weight != o.weights.back()) {
                    const float before = std::nextafter(mt.times[k], -std::numeric_limits<float>::infinity());
                    if (before > o.times.back()) {
                        o.times.push_back(before);
                        o.weights.push_back(o.weights.back());
                    }
                }
                o.times.push_back(mt.times[k]);
                o.weights.push_back(weight);
            }
            tracks.push_back(std::move(o));
        }
    }
    if (tracks.empty())
        return make_error(ErrorCode::InvalidArgument,
                          fmt::format("animation {} '{}' has no morph weight tracks on meshes with morph targets", animation, anim.name));
    if (tracks.size() > uint64_t(INT32_MAX)) return make_error(ErrorCode::LimitExceeded, fmt::format("{} morph tracks", tracks.size()));
    if (w && no_targets) w->add(WarningCode::DroppedData, fmt::format("{} morph weight tracks drive meshes without morph targets; not written", no_targets));
    if (w && unnamed) w->add(WarningCode::ReaderDifference, fmt::format("{} morph targets have no name; IMVU binds morph tracks by name", unnamed));
    if (w && lost_binding)
        w->add(WarningCode::DroppedData,
               fmt::format("binary 1301 CPF tracks hold a MORPHID only: the MESHID / SUBMESH of {} tracks are not written", lost_binding));
    if (w && !anim.tracks.empty()) w->add(WarningCode::DroppedData, "joint tracks are not written to a morph animation (they go to a CAF / XAF)");

    float last = 0;
    for (auto& t : tracks)
        if (!t.times.empty()) last = std::max(last, *std::max_element(t.times.begin(), t.times.end()));
    float duration = std::max(anim.stated_duration, last);
    if (!(duration > 0)) {
        duration = 1.0f / (anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate);
        if (w) w->add(WarningCode::KeysAdjusted, fmt::format("all keys at time 0: DURATION {} written (Cal3D needs > 0)", duration));
    }

    if (binary) {
        ByteWriter b;
        b.magic(FileType::MorphAnimation);
        b.i32(version_of(dialect));
        b.f32(duration);
        b.i32(int32_t(tracks.size()));
        for (auto& t : tracks) {
            if (imvu) b.string(t.binding.morph_name);
            else b.i32(t.binding.morph_id);
            b.i32(int32_t(t.times.size()));
            for (size_t k = 0; k < t.times.size(); ++k) {
                b.f32(t.times[k]);
                b.f32(t.weights[k]);
            }
        }
        return std::move(b.bytes);
    }

    XmlWriter x;
    const std::string root = x.header(FileType::MorphAnimation, dialect);
    if (imvu)
        x.open("ANIMATION", fmt::format(" NUMTRACKS=\"{}\" DURATION=\"{}\"", tracks.size(), xml_float(duration)));
    else
        x.open("ANIMATION", root + fmt::format(" DURATION=\"{}\" NUMTRACKS=\"{}\"", xml_float(duration), tracks.size()));
    for (auto& t : tracks) {
        if (imvu) {
            x.open("TRACK", fmt::format(" NUMKEYFRAMES=\"{}\"", t.times.size()) + xml_attr("MORPHNAME", t.binding.morph_name));
        } else {
            x.open("TRACK", fmt::format(" MORPHID=\"{}\" MESHID=\"{}\" NUMKEYFRAMES=\"{}\" NUMSUBTARGET=\"{}\"", t.binding.morph_id,
                                        t.binding.mesh_id, t.times.size(), t.binding.submeshes.size()));
            for (int32_t s : t.binding.submeshes) x.empty("SUBMESH", fmt::format(" ID=\"{}\"", s));
        }
        for (size_t k = 0; k < t.times.size(); ++k) {
            x.open("KEYFRAME", fmt::format(" TIME=\"{}\"", xml_float(t.times[k])));
            x.leaf("WEIGHT", {}, xml_float(t.weights[k]));
            x.close("KEYFRAME");
        }
        x.close("TRACK");
    }
    x.close("ANIMATION");
    return std::vector<uint8_t>(x.text.begin(), x.text.end());
}

namespace {

Expected<Output> write_morph_file(const Scene& scene, bool binary, const SaveOptions& options) {
    const std::optional<Scene> copy = z_up_ccw_copy(scene);
    const Scene& s = copy ? *copy : scene;
    const auto chosen = choose_animation(s, [](const Animation& a) { return !a.morph_tracks.empty(); },
                                         {binary ? "morph weight tracks to write as a Cal3D CPF" : "morph weight tracks to write as a Cal3D XPF",
                                          "a Cal3D morph animation file", "other morph animations"},
                                         options);
    if (!chosen) return chosen.error();
    auto bytes = write_morph_animation(s, *chosen, binary, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

}  // namespace

Expected<Output> write_cpf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_morph_file(scene, true, options); }
Expected<Output> write_xpf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_morph_file(scene, false, options); }

}  // namespace rigport::cal3d

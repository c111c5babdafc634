// convert --target's fixes (docs/targets.md "Fixing"): what an engine profile allows changing so
// the model fits, each reported, and the skinned displacement of those that move vertices.
#include "pipeline/target_fix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::detail {

namespace {

const TargetLimit* limit_of(const TargetProfile& profile, TargetMeasure measure) {
    for (const TargetLimit& l : profile.limits)
        if (l.measure == measure) return &l;
    return nullptr;
}

// Joint `j` and every later index moved up by one: a new joint 0 goes in front (parent-first
// order is kept, since the new joint has no parent and every old root becomes its child).
void insert_root(Scene& scene, const std::string& name) {
    auto& joints = scene.skeleton.joints;
    for (Joint& j : joints) j.parent = j.parent < 0 ? 0 : j.parent + 1;
    joints.insert(joints.begin(), Joint{name, -1, Transform{}});
    for (Mesh& mesh : scene.meshes)
        for (Influence& in : mesh.skin.influences) ++in.joint;
    for (Animation& a : scene.animations)
        for (JointTrack& t : a.tracks) ++t.joint;
    auto& ids = scene.skeleton.source_ids;
    if (!ids.empty()) ids.insert(ids.begin(), *std::max_element(ids.begin(), ids.end()) + 1);
}

// `name` cut to `most` bytes (at a UTF-8 character's start) and made unique among `taken` by a
// "_2", "_3" ... suffix inside the limit.
std::string cut_name(const std::string& name, size_t most, std::set<std::string>& taken) {
    auto cut = [](std::string s, size_t n) {
        if (s.size() <= n) return s;
        size_t end = n;
        while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
        return s.substr(0, end);
    };
    std::string out = cut(name, most);
    for (int k = 2; taken.count(out); ++k) {
        const std::string suffix = fmt::format("_{}", k);
        out = cut(name, most > suffix.size() ? most - suffix.size() : 0) + suffix;
    }
    taken.insert(out);
    return out;
}

// `name` with each character the rule does not take (a UTF-8 sequence counted as one) made '_'.
std::string clean_name(const std::string& name, TargetProfile::NameCharacters rule) {
    std::string out;
    for (size_t i = 0; i < name.size();) {
        const auto c = static_cast<unsigned char>(name[i]);
        size_t n = 1;
        if (c >= 0xC0)
            while (i + n < name.size() && (static_cast<unsigned char>(name[i + n]) & 0xC0) == 0x80) ++n;
        bool allowed = true;
        for (size_t k = 0; k < n; ++k) allowed = allowed && name_character_allowed(rule, static_cast<unsigned char>(name[i + k]));
        if (allowed) out.append(name, i, n);
        else out += '_';
        i += n;
    }
    return out;
}

// Names of one kind with the characters the profile's rule does not take replaced, kept unique;
// the message, or empty when every name was fine.
template <class Items, class NameOf>
std::string clean_names(Items& items, NameOf name_of, const TargetProfile& profile, const char* kind) {
    auto fine = [&](const std::string& name) {
        return std::all_of(name.begin(), name.end(), [&](char c) { return name_character_allowed(profile.name_characters, static_cast<unsigned char>(c)); });
    };
    std::set<std::string> taken;
    for (auto& item : items)
        if (fine(name_of(item))) taken.insert(name_of(item));
    size_t changed = 0;
    std::string first;
    for (auto& item : items) {
        std::string& name = name_of(item);
        if (fine(name)) continue;
        const std::string was = name;
        name = cut_name(clean_name(was, profile.name_characters), std::string::npos, taken);
        if (changed++ == 0) first = fmt::format("'{}' -> '{}'", was, name);
    }
    if (!changed) return {};
    return fmt::format("{} {} name{} with characters replaced by '_' ({}{}), as {}", changed, kind, changed == 1 ? "" : "s", first,
                       changed > 1 ? ", ..." : "", profile.name_characters_source);
}

// Names of one kind cut to the profile's byte limit; the message, or empty when none was longer.
template <class Items, class NameOf>
std::string cut_names(Items& items, NameOf name_of, const TargetLimit* limit, const char* kind) {
    if (!limit) return {};
    std::set<std::string> taken;
    for (auto& item : items)
        if (name_of(item).size() <= limit->most) taken.insert(name_of(item));
    size_t cut = 0;
    std::string first;
    for (auto& item : items) {
        std::string& name = name_of(item);
        if (name.size() <= limit->most) continue;
        const std::string was = name;
        name = cut_name(was, size_t(limit->most), taken);
        if (cut++ == 0) first = fmt::format("'{}' -> '{}'", was, name);
    }
    if (!cut) return {};
    return fmt::format("{} {} name{} cut to {} bytes ({}{}), as {}", cut, kind, cut == 1 ? "" : "s", limit->most, first, cut > 1 ? ", ..." : "",
                       limit->source);
}

}  // namespace

Expected<Displacement> skinned_displacement(const Scene& before, const Scene& after) {
    auto a = bake_frames(before);
    if (!a) return a.error();
    auto b = bake_frames(after);
    if (!b) return b.error();
    Displacement d;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t f = 0; f < a->frames.size() && f < b->frames.size(); ++f)
        for (size_t m = 0; m < a->frames[f].positions.size() && m < b->frames[f].positions.size(); ++m) {
            const auto& pa = a->frames[f].positions[m];
            const auto& pb = b->frames[f].positions[m];
            for (size_t v = 0; v < pa.size() && v < pb.size(); ++v) {
                double e = 0;
                for (int k = 0; k < 3; ++k) {
                    e += (double(pa[v][k]) - pb[v][k]) * (double(pa[v][k]) - pb[v][k]);
                    lo[k] = std::min(lo[k], double(pa[v][k])), hi[k] = std::max(hi[k], double(pa[v][k]));
                }
                d.largest = std::max(d.largest, std::sqrt(e));
            }
        }
    if (lo[0] <= hi[0]) d.size = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return d;
}

Status fit_to_target(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes) {
    // Geometry first: the fixes after it then work on the fewer vertices it leaves.
    if (auto st = fit_geometry(scene, profile, max_error, fixes); !st) return st;
    // The engine's rate: a clip at another is sampled at it (its keys stay, its frames are taken
    // at the engine's step), so the frames the engine plays at its fixed step keep the clip's
    // timing. The Quake writers bake at that rate anyway; here every output and the check agree.
    if (profile.frame_rate > 0) {
        uint64_t resampled = 0;
        float from = 0;
        for (Animation& a : scene.animations) {
            const float rate = sampling_rate(a);
            if (a.tracks.empty() && a.morph_tracks.empty()) continue;
            if (rate == float(profile.frame_rate) && a.frame_rate == rate) continue;
            if (rate != float(profile.frame_rate) && resampled++ == 0) from = rate;
            a.frame_rate = float(profile.frame_rate), a.frame_count = 0;
        }
        if (resampled)
            fixes.push_back(fmt::format("frame rate: {} animation{} resampled from {:g}{} to {:g} frames per second ({})", resampled,
                                        resampled == 1 ? "" : "s", from, resampled > 1 ? " (the first)" : "", profile.frame_rate,
                                        profile.frame_rate_source));
    }
    // Influences: the lightest dropped, the rest renormalised (GoldSrc's 1: each vertex bound to
    // its heaviest joint). The only fix here that moves vertices, so the only one measured.
    if (const TargetLimit* l = limit_of(profile, TargetMeasure::Influences)) {
        uint64_t over = 0;
        for (const Mesh& mesh : scene.meshes)
            if (!mesh.skin.empty())
                for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                    uint64_t n = 0;
                    for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) n += in->weight != 0;
                    over += n > l->most;
                }
        if (over) {
            const Scene before = scene;
            limit_weights(scene, uint32_t(l->most));
            auto moved = skinned_displacement(before, scene);
            if (!moved) return moved.error();
            fixes.push_back(fmt::format("influences: {} {} more than {}; the lightest dropped and the rest renormalised ({}): moved "
                                        "vertices by at most {:.3g}% of the model's size ({:.4g} units), at rest and over every frame of {} "
                                        "animation{}",
                                        over, over == 1 ? "vertex had" : "vertices had", l->most, l->source, moved->fraction() * 100, moved->largest, scene.animations.size(),
                                        scene.animations.size() == 1 ? "" : "s"));
            if (max_error >= 0 && moved->fraction() > max_error)
                return make_error(ErrorCode::Unsupported,
                                  fmt::format("--target {}: cutting influences to {} moves vertices by {:.3g}% of the model's size, more than "
                                              "--max-error {:.3g}%",
                                              profile.name, l->most, moved->fraction() * 100, max_error * 100));
        }
    }
    // Unweighted vertices of skinned meshes: each bound to the joint nearest it in the bind pose
    // (weight 1), so it follows that part of the body instead of staying behind.
    const auto unweighted = [](const Mesh& mesh) {
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            double sum = 0;
            for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) sum += in->weight;
            if (!(sum > 0)) return true;
        }
        return false;
    };
    // The copy the figure is measured against is made only when some vertex needs binding.
    if (profile.weighted_vertices && !scene.skeleton.joints.empty() &&
        std::any_of(scene.meshes.begin(), scene.meshes.end(), [&](const Mesh& m) { return !m.skin.empty() && unweighted(m); })) {
        std::vector<Transform> bind;
        for (const Joint& j : scene.skeleton.joints) bind.push_back(j.bind);
        const std::vector<Mat4> world = world_matrices(scene.skeleton, bind);
        const Scene before = scene;
        uint64_t bound = 0;
        for (Mesh& mesh : scene.meshes) {
            if (mesh.skin.empty()) continue;
            SkinInfluences skin;
            skin.offsets.push_back(0);
            for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                double sum = 0;
                for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) {
                    sum += in->weight;
                    skin.influences.push_back(*in);
                }
                if (!(sum > 0)) {
                    uint32_t nearest = 0;
                    double best = INFINITY;
                    for (uint32_t j = 0; j < world.size(); ++j) {
                        double d = 0;
                        for (int k = 0; k < 3; ++k) d += (double(world[j][3][size_t(k)]) - mesh.positions[v][k]) * (double(world[j][3][size_t(k)]) - mesh.positions[v][k]);
                        if (d < best) best = d, nearest = j;
                    }
                    skin.influences.resize(skin.offsets.back());  // its zero weights go
                    skin.influences.push_back({nearest, 1.0f});
                    ++bound;
                }
                skin.offsets.push_back(uint32_t(skin.influences.size()));
            }
            mesh.skin = std::move(skin);
        }
        if (bound) {
            auto moved = skinned_displacement(before, scene);
            if (!moved) return moved.error();
            fixes.push_back(fmt::format("unweighted: {} {} of skinned meshes bound to the nearest joint: moved vertices by at most {:.3g}% of the "
                                        "model's size ({:.4g} units), at rest and over every frame",
                                        bound, bound == 1 ? "vertex" : "vertices", moved->fraction() * 100, moved->largest));
            if (max_error >= 0 && moved->fraction() > max_error)
                return make_error(ErrorCode::Unsupported, fmt::format("--target {}: binding unweighted vertices moves vertices by {:.3g}% of the "
                                                                      "model's size, more than --max-error {:.3g}%",
                                                                      profile.name, moved->fraction() * 100, max_error * 100));
        }
    }
    // Roots: every root under one new joint at the origin (named as the engine wants), which
    // moves nothing.
    if (!scene.skeleton.joints.empty()) {
        size_t roots = 0;
        std::string root;
        for (const Joint& j : scene.skeleton.joints)
            if (j.parent < 0) ++roots, root = j.name;
        const TargetLimit* one = limit_of(profile, TargetMeasure::Roots);
        const bool misnamed = !profile.root_name.empty() && (roots != 1 || root != profile.root_name);
        if (misnamed || (one && roots > one->most)) {
            std::string name = profile.root_name.empty() ? std::string("root") : std::string(profile.root_name);
            std::set<std::string> taken;
            for (const Joint& j : scene.skeleton.joints) taken.insert(j.name);
            name = cut_name(name, name.size() + 8, taken);
            insert_root(scene, name);
            fixes.push_back(fmt::format("roots: {} root joint{} put under a new root '{}' at the origin (no vertex moves){}", roots,
                                        roots == 1 ? "" : "s", name, misnamed ? fmt::format(" ({})", profile.root_name_source) : ""));
        }
    }
    // Characters the engine's tools cannot take replaced, then names cut to the byte limits, kept unique.
    if (profile.name_characters != TargetProfile::NameCharacters::Any) {
        std::vector<std::string> messages;
        if (!profile.only_animation_names) {
            messages.push_back(clean_names(scene.skeleton.joints, [](Joint& j) -> std::string& { return j.name; }, profile, "joint"));
            messages.push_back(clean_names(scene.meshes, [](Mesh& m) -> std::string& { return m.name; }, profile, "mesh"));
            messages.push_back(clean_names(scene.materials, [](Material& m) -> std::string& { return m.name; }, profile, "material"));
        }
        messages.push_back(clean_names(scene.animations, [](Animation& a) -> std::string& { return a.name; }, profile, "animation"));
        for (const std::string& message : messages)
            if (!message.empty()) fixes.push_back("names: " + message);
    }
    for (const std::string& message :
         {cut_names(scene.skeleton.joints, [](Joint& j) -> std::string& { return j.name; }, limit_of(profile, TargetMeasure::JointNameBytes), "joint"),
          cut_names(scene.meshes, [](Mesh& m) -> std::string& { return m.name; }, limit_of(profile, TargetMeasure::MeshNameBytes), "mesh"),
          cut_names(scene.animations, [](Animation& a) -> std::string& { return a.name; }, limit_of(profile, TargetMeasure::AnimationNameBytes),
                    "animation")})
        if (!message.empty()) fixes.push_back("names: " + message);
    // What no fix reaches is refused, naming it: nothing is written.
    const ValidationReport left = check_target(scene, profile);
    if (!left.findings.empty()) {
        std::string what;
        for (size_t i = 0; i < left.findings.size() && i < 3; ++i) what += (i ? "; " : "") + left.findings[i].message;
        if (left.findings.size() > 3) what += fmt::format("; and {} more", left.findings.size() - 3);
        return make_error(ErrorCode::Unsupported, fmt::format("--target {}: the model does not fit after the fixes rigport makes: {}", profile.name, what));
    }
    return Ok{};
}

bool name_character_allowed(TargetProfile::NameCharacters rule, unsigned char c) {
    switch (rule) {
        case TargetProfile::NameCharacters::Any: return true;
        case TargetProfile::NameCharacters::NoQuotes: return c != '"' && c >= 0x20 && c != 0x7F;
        case TargetProfile::NameCharacters::Identifier:
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
    return true;
}

}  // namespace rigport::detail

// Cal3D records -> scene parts: meshes with morph deltas, keyed tracks, morph weight tracks (docs/cal3d.md §4.4, §4.7, §5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "formats/cal3d/cal3d.hpp"

namespace rigport::cal3d {

namespace {

double length(const Vec3& v) { return std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]); }
Vec3 minus(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// §4.7: the version does not decide. Absolute targets lie near their base vertices (|P - base|
// small next to |P|); deltas are small next to the mesh and their "normals" are not unit length.
bool is_absolute(const Morph& morph, const Mesh& mesh) {
    std::vector<double> to_base, magnitude, normal_error;
    for (auto& bv : morph.vertices) {
        to_base.push_back(length(minus(bv.position, mesh.positions[bv.id])));
        magnitude.push_back(length(bv.position));
        normal_error.push_back(std::abs(length(bv.normal) - 1.0));
    }
    if (to_base.empty()) return false;
    const double near_base = median(to_base), size = median(magnitude);
    if (near_base < size) return true;
    if (near_base > size) return false;
    return median(normal_error) < 1e-2;  // a tie (both zero): unit normals say absolute
}

}  // namespace

Status finish_meshes(std::vector<Submesh>& submeshes, Scene& scene, Ids ids) {
    int32_t max_bone = -1, max_thread = -1;
    uint64_t absolute = 0, delta = 0;
    for (size_t s = 0; s < submeshes.size(); ++s) {
        Submesh& sm = submeshes[s];
        Mesh& mesh = sm.mesh;
        mesh.name = fmt::format("submesh {}", s);
        // IM's rule (hasNonWhiteVertexColors): all-white COLOR is no colour. IMVU files always
        // carry COLOR and UP 1301 writes "1 1 1" by default, so such a set says nothing.
        if (!mesh.colors.empty() && std::all_of(mesh.colors[0].begin(), mesh.colors[0].end(), [](const Vec4& c) {
                return c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 1;
            }))
            mesh.colors.clear();
        for (auto& inf : mesh.skin.influences) max_bone = std::max(max_bone, int32_t(inf.joint));
        if (sm.material_thread > max_material_thread)
            return make_error(ErrorCode::LimitExceeded, fmt::format("submesh {}: MATERIAL {} > {}", s, sm.material_thread, max_material_thread));
        max_thread = std::max(max_thread, sm.material_thread);
        mesh.material = sm.material_thread < 0 ? -1 : sm.material_thread;
        for (auto& morph : sm.morphs) {
            MorphTarget t;
            t.name = morph.name;
            const bool abs = is_absolute(morph, mesh);
            (abs ? absolute : delta) += !morph.vertices.empty();
            t.position_deltas.assign(mesh.positions.size(), Vec3{0, 0, 0});
            if (!mesh.normals.empty()) t.normal_deltas.assign(mesh.positions.size(), Vec3{0, 0, 0});
            for (auto& bv : morph.vertices) {
                t.position_deltas[bv.id] = abs ? minus(bv.position, mesh.positions[bv.id]) : bv.position;
                if (!mesh.normals.empty()) t.normal_deltas[bv.id] = abs ? minus(bv.normal, mesh.normals[bv.id]) : bv.normal;
            }
            mesh.morph_targets.push_back(std::move(t));
        }
        scene.meshes.push_back(std::move(mesh));
    }
    if (absolute + delta > 0)
        scene.warnings.add(WarningCode::Interpreted, fmt::format("morph targets: {} absolute, {} delta (§4.7 heuristic); stored as deltas", absolute, delta));
    // Placeholders keep the ids (joint i = bone id i, material i = thread i) of a file read alone.
    if (ids == Ids::AsGiven) return Ok{};
    if (max_bone >= 0) {
        scene.skeleton.animation_only = true;
        scene.skeleton.joints.resize(size_t(max_bone) + 1);
        scene.skeleton.source_ids.resize(size_t(max_bone) + 1);
        for (int32_t i = 0; i <= max_bone; ++i) scene.skeleton.source_ids[size_t(i)] = i;
    }
    scene.materials.reserve(size_t(max_thread + 1));  // one allocation: growing by push_back fragmented the heap
    for (int32_t i = 0; i <= max_thread; ++i) {
        Material m;
        m.name = fmt::format("material thread {}", i);
        scene.materials.push_back(std::move(m));
    }
    return Ok{};
}

Status finish_animation(float duration, std::vector<Track>& tracks, Scene& scene, Ids ids) {
    Animation anim;
    int32_t max_bone = -1;
    uint64_t unsorted = 0, filled = 0;
    for (auto& tr : tracks) {
        max_bone = std::max(max_bone, tr.bone);
        if (!std::is_sorted(tr.keys.begin(), tr.keys.end(), [](const Key& a, const Key& b) { return a.time < b.time; })) {
            ++unsorted;
            std::stable_sort(tr.keys.begin(), tr.keys.end(), [](const Key& a, const Key& b) { return a.time < b.time; });
        }
        JointTrack rot, tra;
        rot.joint = tra.joint = uint32_t(tr.bone);
        rot.channel = Channel::Rotation;
        tra.channel = Channel::Translation;
        bool any_translation = false;
        for (auto& k : tr.keys) any_translation |= k.has_translation;
        const Key* last_with = nullptr;
        for (size_t i = 0; i < tr.keys.size(); ++i) {
            const Key& k = tr.keys[i];
            rot.times.push_back(k.time);
            Quat q = to_standard(k.rotation);
            const double n2 = double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
            double n = std::sqrt(n2);
            if (!std::isfinite(n) || n < 1e-12) q = {0, 0, 0, 1}, n = 1;
            // Unit to float rounding (|n² − 1| <= 1e-6): kept bit for bit, so a file read and
            // written again keeps its keys (the writers use the same test).
            if (std::fabs(n2 - 1.0) <= 1e-6) n = 1;
            for (float c : q) rot.values.push_back(float(c / n));
            if (!any_translation) continue;
            tra.times.push_back(k.time);
            if (k.has_translation) last_with = &k;
            const Key* src = last_with;
            if (!src) {  // before the first translated key: the next one
                for (size_t j = i; j < tr.keys.size() && !src; ++j)
                    if (tr.keys[j].has_translation) src = &tr.keys[j];
            }
            if (!k.has_translation) ++filled;
            tra.values.insert(tra.values.end(), src->translation.begin(), src->translation.end());
        }
        if (any_translation) anim.tracks.push_back(std::move(tra));
        anim.tracks.push_back(std::move(rot));
    }
    if (unsorted) scene.warnings.add(WarningCode::KeysAdjusted, fmt::format("{} tracks had keys out of time order; sorted", unsorted));
    if (filled)
        scene.warnings.add(WarningCode::KeysAdjusted,
                           fmt::format("{} keys without a translation in tracks that have some; the neighbouring key's is used", filled));
    float last = 0;
    for (auto& t : anim.tracks)
        if (!t.times.empty()) last = std::max(last, t.times.back());
    if (last > duration * 1.0001f)
        scene.warnings.add(WarningCode::Tolerated, fmt::format("keys up to {} s beyond DURATION {} s", last, duration));
    anim.loop = true;  // Cal3D cycles wrap with fmod(t, duration) (§4.4)
    if (duration != last) anim.stated_duration = duration;  // DURATION past (or before) the last key
    if (max_bone >= 0 && ids == Ids::Placeholders) {
        scene.skeleton.animation_only = true;
        scene.skeleton.joints.resize(size_t(max_bone) + 1);
        scene.skeleton.source_ids.resize(size_t(max_bone) + 1);
        for (int32_t i = 0; i <= max_bone; ++i) scene.skeleton.source_ids[size_t(i)] = i;
    }
    scene.animations.push_back(std::move(anim));
    return Ok{};
}

std::string morph_track_name(const MorphTrack& t) {
    if (!t.morph_name.empty() || t.mesh_id < 0) return t.morph_name;
    std::string subs;
    for (size_t i = 0; i < t.submeshes.size(); ++i) {
        if (i) subs += ',';
        subs += std::to_string(t.submeshes[i]);
    }
    return fmt::format("mesh {} submesh {} morph {}", t.mesh_id, subs, t.morph_id);
}

void finish_morph_animation(float duration, std::vector<MorphTrack>& tracks, Scene& scene) {
    Animation anim;
    anim.loop = true;
    float last = 0;
    for (auto& t : tracks)
        if (!t.times.empty()) last = std::max(last, *std::max_element(t.times.begin(), t.times.end()));
    if (duration != last) anim.stated_duration = duration;
    for (auto& t : tracks) {
        Mesh m;
        m.name = morph_track_name(t);
        m.morph_targets.push_back(MorphTarget{m.name, {}, {}, {}, 0.0f});
        MorphWeightTrack mt;
        mt.mesh = uint32_t(scene.meshes.size());
        mt.times = t.times;
        mt.weights = t.weights;
        scene.meshes.push_back(std::move(m));
        anim.morph_tracks.push_back(std::move(mt));
    }
    scene.animations.push_back(std::move(anim));
}

}  // namespace rigport::cal3d

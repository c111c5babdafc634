// Mesh / material comparison for the Cal3D mesh and material writer tests: what a scene written in a
// dialect must read back as (docs/cal3d.md §1.1, §2.3, §3.5, §4.7).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/scene.hpp"

namespace rigport::test::cal3d_mesh {

using cal3d::Dialect;

inline const char* dialect_label(Dialect d) { return d == Dialect::Imvu919 ? "919" : d == Dialect::Classic1100 ? "1100" : "1301"; }

// What the target can hold of a mesh.
struct Expect {
    bool colors = true;   // vertex colour set 0 (rgb) comes back
    bool morphs = true;   // morph targets come back
    bool absolute = false;  // morphs went through absolute POSITION (base + delta - base: not bit-exact)
    // 0: every float bit for bit; else the relative tolerance of every float (oracle's 6-digit XML).
    double tolerance = 0;
    // Influence joint of the source -> joint index read back (the bone id of a mesh read alone).
    std::vector<int32_t> joint_to_bone;
};

inline bool close(float a, float b, double tolerance) {
    if (tolerance == 0) return std::memcmp(&a, &b, 4) == 0 || (a == 0 && b == 0);
    return std::fabs(double(a) - b) <= tolerance * std::max(1.0, std::fabs(double(a)));
}

#define RIGPORT_EXPECT_CLOSE(a, b, tol, what) EXPECT_TRUE(close((a), (b), (tol))) << what << ": " << (a) << " vs " << (b)

inline Vec3 delta_at(const std::vector<Vec3>& d, size_t v) { return v < d.size() ? d[v] : Vec3{0, 0, 0}; }

// IMVU targets are written absolute (base + delta, rounded to float) and read back as
// POSITION - base (rounded again): two roundings of numbers of magnitude |base| + |delta|, so each
// component may move by up to 2 * 2^-24 * (|base| + |delta|) (we allow 1.2e-7 * that).
inline void expect_delta(const Vec3& a, const Vec3& b, const Vec3& base, const Expect& e, const std::string& what) {
    for (int k = 0; k < 3; ++k) {
        if (e.absolute) {
            const double magnitude = std::fabs(double(base[k])) + std::fabs(double(a[k]));
            const double bound = 1.2e-7 * magnitude + e.tolerance * std::max(1.0, magnitude);
            EXPECT_LE(std::fabs(double(a[k]) - b[k]), bound) << what << " component " << k << ": " << a[k] << " vs " << b[k];
        } else {
            RIGPORT_EXPECT_CLOSE(a[k], b[k], e.tolerance, what);
        }
    }
}

inline void expect_same_mesh(const Mesh& a, const Mesh& b, const Expect& e) {
    const uint32_t n = a.vertex_count();
    ASSERT_EQ(n, b.vertex_count());
    EXPECT_EQ(a.material, b.material);
    EXPECT_EQ(a.triangles, b.triangles);
    for (uint32_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            RIGPORT_EXPECT_CLOSE(a.positions[v][k], b.positions[v][k], e.tolerance, "position " << v);
            if (!a.normals.empty()) {
                RIGPORT_EXPECT_CLOSE(a.normals[v][k], b.normals[v][k], e.tolerance, "normal " << v);
            }
        }
    ASSERT_EQ(a.texcoords.size(), b.texcoords.size());
    for (size_t s = 0; s < a.texcoords.size(); ++s)
        for (uint32_t v = 0; v < n; ++v)
            for (int k = 0; k < 2; ++k) RIGPORT_EXPECT_CLOSE(a.texcoords[s][v][k], b.texcoords[s][v][k], e.tolerance, "texcoord " << s << " " << v);
    // Colours: set 0 rgb when the dialect holds it (the readers drop an all-white set, IM's rule).
    if (e.colors && !a.colors.empty()) {
        ASSERT_EQ(b.colors.size(), 1u);
        for (uint32_t v = 0; v < n; ++v)
            for (int k = 0; k < 3; ++k) RIGPORT_EXPECT_CLOSE(a.colors[0][v][k], b.colors[0][v][k], e.tolerance, "colour " << v);
    } else {
        EXPECT_TRUE(b.colors.empty());
    }
    ASSERT_EQ(a.skin.empty(), b.skin.empty());
    if (!a.skin.empty()) {
        EXPECT_EQ(a.skin.offsets, b.skin.offsets);
        ASSERT_EQ(a.skin.influences.size(), b.skin.influences.size());
        for (size_t i = 0; i < a.skin.influences.size(); ++i) {
            const uint32_t joint = a.skin.influences[i].joint;
            const uint32_t bone = e.joint_to_bone.empty() ? joint : uint32_t(e.joint_to_bone.at(joint));
            EXPECT_EQ(bone, b.skin.influences[i].joint) << "influence " << i;
            RIGPORT_EXPECT_CLOSE(a.skin.influences[i].weight, b.skin.influences[i].weight, e.tolerance, "weight " << i);
        }
    }
    EXPECT_EQ(a.lod_steps, b.lod_steps);
    ASSERT_EQ(a.lod.size(), b.lod.size());
    for (size_t v = 0; v < a.lod.size(); ++v) {
        EXPECT_EQ(a.lod[v].collapse_id, b.lod[v].collapse_id) << "lod " << v;
        EXPECT_EQ(a.lod[v].face_collapse_count, b.lod[v].face_collapse_count) << "lod " << v;
    }
    ASSERT_EQ(a.springs.size(), b.springs.size());
    for (size_t s = 0; s < a.springs.size(); ++s) {
        EXPECT_EQ(a.springs[s].vertex0, b.springs[s].vertex0);
        EXPECT_EQ(a.springs[s].vertex1, b.springs[s].vertex1);
        RIGPORT_EXPECT_CLOSE(a.springs[s].coefficient, b.springs[s].coefficient, e.tolerance, "spring " << s);
        RIGPORT_EXPECT_CLOSE(a.springs[s].idle_length, b.springs[s].idle_length, e.tolerance, "spring " << s);
    }
    if (!a.springs.empty()) {
        ASSERT_EQ(b.spring_weights.size(), n);
        for (uint32_t v = 0; v < n; ++v) {
            const float w = a.spring_weights.empty() ? a.physique_weight : a.spring_weights[v];
            RIGPORT_EXPECT_CLOSE(w, b.spring_weights[v], e.tolerance, "physique " << v);
        }
    }
    if (!e.morphs) {
        EXPECT_TRUE(b.morph_targets.empty());
        return;
    }
    ASSERT_EQ(a.morph_targets.size(), b.morph_targets.size());
    for (size_t t = 0; t < a.morph_targets.size(); ++t) {
        const MorphTarget &x = a.morph_targets[t], &y = b.morph_targets[t];
        EXPECT_EQ(x.name, y.name);
        for (uint32_t v = 0; v < n; ++v) {
            const std::string what = x.name + " vertex " + std::to_string(v);
            expect_delta(delta_at(x.position_deltas, v), delta_at(y.position_deltas, v), a.positions[v], e, what + " position");
            if (!a.normals.empty()) expect_delta(delta_at(x.normal_deltas, v), delta_at(y.normal_deltas, v), a.normals[v], e, what + " normal");
        }
    }
}

inline void expect_same_meshes(const Scene& a, const Scene& b, const Expect& e) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) {
        SCOPED_TRACE("mesh " + std::to_string(m));
        expect_same_mesh(a.meshes[m], b.meshes[m], e);
    }
}

// Materials: colours are bytes (compared as 0..255 after rounding), shininess and map files exact;
// map types only where the dialect has them (1100 reads every map as an untyped diffuse map).
inline void expect_same_material(const Material& a, const Material& b, bool typed, double tolerance = 0) {
    const Vec4 *x[3] = {&a.ambient, &a.diffuse, &a.specular}, *y[3] = {&b.ambient, &b.diffuse, &b.specular};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 4; ++k) EXPECT_EQ(std::lround((*x[c])[k] * 255), std::lround((*y[c])[k] * 255)) << "colour " << c << " " << k;
    RIGPORT_EXPECT_CLOSE(a.shininess, b.shininess, tolerance, "shininess");
    ASSERT_EQ(a.maps.size(), b.maps.size());
    for (size_t i = 0; i < a.maps.size(); ++i) {
        EXPECT_EQ(a.maps[i].uri, b.maps[i].uri);
        if (typed) {
            EXPECT_EQ(a.maps[i].type, b.maps[i].type) << a.maps[i].uri;
            if (!a.maps[i].type_name.empty()) {
                EXPECT_EQ(a.maps[i].type_name, b.maps[i].type_name);
            }
        } else {
            EXPECT_EQ(b.maps[i].type, TextureType::Diffuse);
            EXPECT_EQ(b.maps[i].type_name, "");
        }
    }
}

}  // namespace rigport::test::cal3d_mesh

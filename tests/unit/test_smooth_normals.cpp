// Normal generation by the IQE smoothing rules (docs/iqm.md §3.2 step 3), with regressions for
// the reference compiler's bugs 3 (smoothangle) and 4 (vs); expectations computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "process/smooth_normals.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

Vec3 sub(Vec3 a, Vec3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(Vec3 a, Vec3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
Vec3 add(Vec3 a, Vec3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 unit(Vec3 v) {
    float l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return {v[0] / l, v[1] / l, v[2] / l};
}
// Clockwise front faces: the outward normal is (p2 - p0) x (p1 - p0), its length twice the area.
Vec3 face_normal(Vec3 p0, Vec3 p1, Vec3 p2) { return cross(sub(p2, p0), sub(p1, p0)); }

void expect_near(Vec3 got, Vec3 want, const char* what) {
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << what << " component " << i;
}

// Two triangles on the shared edge E0=(0,0,0) E1=(1,0,0): A lies in z=0 (normal +z), B is folded
// up by `fold` degrees about the x axis, so their normals are `fold` degrees apart. Each triangle
// has its own three vertices: A = 0,1,2 (E0, E1, a), B = 3,4,5 (E1, E0, b). With two meshes, B is
// mesh 1's vertices 0,1,2.
struct Fold {
    Scene scene;
    Vec3 area_a, area_b;  // unnormalized face normals
    Vec3 apart_a() const { return unit(area_a); }
    Vec3 apart_b() const { return unit(area_b); }
    Vec3 smoothed() const { return unit(add(area_a, area_b)); }
};

Fold make_fold(double fold_degrees, bool two_meshes = false, float a_depth = 1.0f) {
    const double r = fold_degrees * std::numbers::pi / 180;
    const Vec3 e0{0, 0, 0}, e1{1, 0, 0}, a{0.5f, -a_depth, 0}, b{0.5f, float(std::cos(r)), float(std::sin(r))};
    Fold f;
    f.scene.meshes.resize(two_meshes ? 2 : 1);
    Mesh& ma = f.scene.meshes[0];
    Mesh& mb = f.scene.meshes.back();
    ma.positions = {e0, e1, a};
    ma.triangles = {{0, 1, 2}};
    uint32_t base = mb.vertex_count();
    mb.positions.insert(mb.positions.end(), {e1, e0, b});
    mb.triangles.push_back({base, base + 1, base + 2});
    f.area_a = face_normal(e0, e1, a);
    f.area_b = face_normal(e1, e0, b);
    return f;
}

// The normals at the shared edge: A's E0 and E1, B's E1 and E0.
struct EdgeNormals {
    Vec3 a0, a1, b1, b0;
};
EdgeNormals edge_normals(const Scene& s) {
    const Mesh& ma = s.meshes[0];
    const Mesh& mb = s.meshes.back();
    uint32_t base = s.meshes.size() == 1 ? 3 : 0;
    return {ma.normals[0], ma.normals[1], mb.normals[base], mb.normals[base + 1]};
}

void expect_smoothed(const Fold& f, const char* what) {
    ASSERT_TRUE(check_invariants(f.scene)) << what;
    auto e = edge_normals(f.scene);
    for (Vec3 n : {e.a0, e.a1, e.b1, e.b0}) expect_near(n, f.smoothed(), what);
    expect_near(f.scene.meshes[0].normals[2], f.apart_a(), what);  // a alone: its own face
}

void expect_apart(const Fold& f, const char* what) {
    ASSERT_TRUE(check_invariants(f.scene)) << what;
    auto e = edge_normals(f.scene);
    expect_near(e.a0, f.apart_a(), what);
    expect_near(e.a1, f.apart_a(), what);
    expect_near(e.b0, f.apart_b(), what);
    expect_near(e.b1, f.apart_b(), what);
}

MeshSmoothing two_states(TriangleSmoothing a, TriangleSmoothing b) {
    MeshSmoothing m;
    m.triangles = {a, b};
    return m;
}

TEST(SmoothNormals, DefaultSmoothsAcrossFold) {
    Fold f = make_fold(60);
    generate_normals(f.scene, {});
    expect_smoothed(f, "default state");
}

TEST(SmoothNormals, DefaultOverwritesSuppliedNormals) {
    Fold f = make_fold(60);
    f.scene.meshes[0].normals.assign(6, Vec3{1, 0, 0});
    generate_normals(f.scene, {});
    expect_smoothed(f, "overwritten");
}

TEST(SmoothNormals, SmoothgroupKeysSeparate) {
    TriangleSmoothing g1, g2;
    g1.group = 1;
    g2.group = 2;
    Fold apart = make_fold(60);
    generate_normals(apart.scene, {two_states(g1, g2)});
    expect_apart(apart, "groups 1 and 2");

    Fold same = make_fold(60);
    generate_normals(same.scene, {two_states(g2, g2)});
    expect_smoothed(same, "groups 2 and 2");

    Fold keyed_vs_default = make_fold(60);
    generate_normals(keyed_vs_default.scene, {two_states(TriangleSmoothing{}, g1)});
    expect_apart(keyed_vs_default, "default group -1 and group 1");
}

TEST(SmoothNormals, SmoothUvSplitsAtUvSeams) {
    auto with_uvs = [](bool seam) {
        Fold f = make_fold(60);
        // A's edge corners at u=0, B's at u=0 too, or at u=0.5 across a seam.
        float bu = seam ? 0.5f : 0.0f;
        f.scene.meshes[0].texcoords = {{{0, 0}, {0, 1}, {1, 0}, {bu, 1}, {bu, 0}, {1, 1}}};
        return f;
    };
    TriangleSmoothing uv;
    uv.smooth_uv = true;

    Fold seam = with_uvs(true);
    generate_normals(seam.scene, {two_states(uv, uv)});
    expect_apart(seam, "smoothuv across a seam");

    Fold one_side = with_uvs(true);
    generate_normals(one_side.scene, {two_states(TriangleSmoothing{}, uv)});
    expect_apart(one_side, "smoothuv on in one of the two states");

    Fold no_seam = with_uvs(false);
    generate_normals(no_seam.scene, {two_states(uv, uv)});
    expect_smoothed(no_seam, "smoothuv with equal uvs");

    Fold off = with_uvs(true);
    generate_normals(off.scene, {two_states(TriangleSmoothing{}, TriangleSmoothing{})});
    expect_smoothed(off, "seam without smoothuv");
}

// Bug 3: the reference compiler stores |cos(angle)|, so 180/150/130 do not smooth a 60° fold.
TEST(SmoothNormals, SmoothAngleIsSignedBug3) {
    for (float angle : {180.0f, 150.0f, 130.0f, 110.0f, 70.0f, 50.0f, 0.0f}) {
        Fold f = make_fold(60);
        TriangleSmoothing st;
        st.angle_degrees = angle;
        generate_normals(f.scene, {two_states(st, st)});
        std::string what = "smoothangle " + std::to_string(angle);
        if (angle > 60)
            expect_smoothed(f, what.c_str());
        else
            expect_apart(f, what.c_str());
    }
    // Two different angles: both must accept the fold.
    Fold mixed = make_fold(60);
    TriangleSmoothing wide, narrow;
    wide.angle_degrees = 150;
    narrow.angle_degrees = 50;
    generate_normals(mixed.scene, {two_states(wide, narrow)});
    expect_apart(mixed, "smoothangle 150 against 50");
    // A fold beyond 90 degrees still smooths at 180 (|cos| would compare 0.5 against 1).
    Fold sharp = make_fold(120);
    generate_normals(sharp.scene, {two_states(TriangleSmoothing{}, TriangleSmoothing{})});
    expect_smoothed(sharp, "120 degree fold at smoothangle 180");
}

TEST(SmoothNormals, EdgeFlagsGateTheSharedEdge) {
    // A = (E0, E1, a): edge 0 is the shared edge. B = (E1, E0, b): edge 0 is the shared edge too.
    auto flagged = [](bool a_shared, bool b_shared) {
        TriangleSmoothing a, b;
        a.has_edge_flags = b.has_edge_flags = true;
        a.smooth_edge = {a_shared, true, true};
        b.smooth_edge = {b_shared, true, true};
        return two_states(a, b);
    };
    Fold hard = make_fold(60);
    generate_normals(hard.scene, {flagged(false, false)});
    expect_apart(hard, "fs: shared edge sharp in both");

    Fold either = make_fold(60);
    generate_normals(either.scene, {flagged(false, true)});
    expect_smoothed(either, "fs: shared edge smooth in one");

    Fold both = make_fold(60);
    generate_normals(both.scene, {flagged(true, true)});
    expect_smoothed(both, "fs: shared edge smooth in both");

    // Sharp edges that are not shared change nothing.
    TriangleSmoothing a, b;
    a.has_edge_flags = b.has_edge_flags = true;
    a.smooth_edge = {true, false, false};
    b.smooth_edge = {true, false, false};
    Fold other = make_fold(60);
    generate_normals(other.scene, {two_states(a, b)});
    expect_smoothed(other, "fs: only unshared edges sharp");
}

// Bug 4: the reference compiler compares the vs of file vertices 0..2 (by corner number). Here
// A = vertices 0,1,2 and B = vertices 3,4,5; B's E1 is its corner 0 and its E0 its corner 1.
TEST(SmoothNormals, VsComparesEachCornersOwnVertexBug4) {
    // Own vertices: A's E0 (v0) = 1, B's E0 (v4) = 2 -> apart; A's E1 (v1) = 1, B's E1 (v3) = 2.
    // The faulty comparison would see corner 0 vs corner 1 of file vertices 0..2: vs[0]=1 against
    // vs[1]=1 at E0 and smooth it.
    Fold differ = make_fold(60);
    MeshSmoothing m = two_states({}, {});
    m.vertex_index = {1, 1, 9, 2, 2, 9};
    generate_normals(differ.scene, {m});
    expect_apart(differ, "vs 1 against 2");

    // Own vertices equal (E0: 5 and 5, E1: 7 and 7): smoothed. The faulty comparison would compare
    // vs[1]=7 (A's E1 is its corner 1) against vs[0]=5 (B's E1 is its corner 0) and keep E1 apart.
    Fold equal = make_fold(60);
    m.vertex_index = {5, 7, 9, 7, 5, 8};
    generate_normals(equal.scene, {m});
    expect_smoothed(equal, "equal vs on each shared position");
}

TEST(SmoothNormals, SmoothsAcrossMeshBoundaries) {
    Fold f = make_fold(60, true);
    ASSERT_EQ(f.scene.meshes.size(), 2u);
    generate_normals(f.scene, {});
    expect_smoothed(f, "two meshes");
    expect_near(f.scene.meshes[1].normals[2], f.apart_b(), "b alone");

    Fold g = make_fold(60, true);
    TriangleSmoothing g1, g2;
    g1.group = 1;
    g2.group = 2;
    MeshSmoothing m0, m1;
    m0.triangles = {g1};
    m1.triangles = {g2};
    generate_normals(g.scene, {m0, m1});
    expect_apart(g, "two meshes, two groups");
}

TEST(SmoothNormals, AreaWeighted) {
    Fold f = make_fold(60, false, 3.0f);  // A has three times B's area
    generate_normals(f.scene, {});
    expect_smoothed(f, "area weighted");
    // The plain average of the unit normals is a different direction, so the test can fail.
    Vec3 plain = unit(add(f.apart_a(), f.apart_b()));
    EXPECT_GT(std::fabs(plain[1] - f.smoothed()[1]), 0.05f);
}

TEST(SmoothNormals, SplitsVerticesUsedByDifferentGroups) {
    // One shared quad fold: vertices E0, E1, a, b; A = (0,1,2), B = (1,0,3).
    Fold f = make_fold(60);
    Mesh& m = f.scene.meshes[0];
    Vec3 b = m.positions[5];
    m.positions = {{0, 0, 0}, {1, 0, 0}, m.positions[2], b};
    m.texcoords = {{{0, 0}, {1, 0}, {0.5f, 1}, {0.5f, -1}}};
    m.custom = {CustomArray{"id", ComponentType::Float32, 1, {10, 11, 12, 13}}};
    m.triangles = {{0, 1, 2}, {1, 0, 3}};

    Scene same = f.scene;
    generate_normals(same, {});
    ASSERT_TRUE(check_invariants(same));
    EXPECT_EQ(same.meshes[0].vertex_count(), 4u);
    expect_near(same.meshes[0].normals[0], f.smoothed(), "unsplit E0");

    TriangleSmoothing g1, g2;
    g1.group = 1;
    g2.group = 2;
    generate_normals(f.scene, {two_states(g1, g2)});
    ASSERT_TRUE(check_invariants(f.scene));
    ASSERT_EQ(m.vertex_count(), 6u);
    EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 2}));  // the first user keeps the vertex
    const Triangle tb = m.triangles[1];
    EXPECT_GE(tb[0], 4u);
    EXPECT_GE(tb[1], 4u);
    EXPECT_EQ(tb[2], 3u);
    const uint32_t was[3] = {1, 0, 3};
    for (int k = 0; k < 3; ++k) {  // copies carry every attribute of their vertex
        EXPECT_EQ(m.positions[tb[k]], m.positions[was[k]]);
        EXPECT_EQ(m.texcoords[0][tb[k]], m.texcoords[0][was[k]]);
        EXPECT_EQ(m.custom[0].values[tb[k]], 10.0 + was[k]);
        expect_near(m.normals[tb[k]], f.apart_b(), "B's corners");
    }
    for (uint32_t v : m.triangles[0]) expect_near(m.normals[v], f.apart_a(), "A's corners");
}

}  // namespace
}  // namespace rigport

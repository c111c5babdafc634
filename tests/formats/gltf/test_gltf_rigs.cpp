// Rigs as Blender exports them reach every format placed and bound as three.js shows
// them. The fixture (written here) has two armatures, each with its own skin and a skinned mesh
// parented to the armature (Blender's layout: one skin per armature-parented mesh), the second
// armature turned 90 degrees about Y, and a rigid mesh (a "hat") parented to a bone node, as
// weapons and hats are attached. One animation bends both tips. For each route glTF -> X -> glb,
// three.js poses the original and the final file at the bind pose and at four times, and every
// vertex must lie within 1e-4 of the bounding-box diagonal of a vertex of the other (point sets:
// IQE and Cal3D routes may reorder vertices). JOE is static geometry: bind pose only.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gltf_oracle.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Accessors appended to one buffer, each in its own 4-byte aligned bufferView.
class BufferBuilder {
public:
    template <class T>
    int add(const std::vector<T>& values, int component_type, const char* type, size_t count, bool min_max = false) {
        while (bytes_.size() % 4) bytes_.push_back(0);
        const size_t offset = bytes_.size();
        bytes_.resize(offset + values.size() * sizeof(T));
        std::memcpy(bytes_.data() + offset, values.data(), values.size() * sizeof(T));
        views_.push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", values.size() * sizeof(T)}});
        json a = {{"bufferView", views_.size() - 1}, {"componentType", component_type}, {"count", count}, {"type", type}};
        if (min_max) {
            const size_t n = values.size() / count;
            json lo = json::array(), hi = json::array();
            for (size_t c = 0; c < n; ++c) {
                T l = values[c], h = values[c];
                for (size_t i = c; i < values.size(); i += n) l = std::min(l, values[i]), h = std::max(h, values[i]);
                lo.push_back(l), hi.push_back(h);
            }
            a["min"] = lo, a["max"] = hi;
        }
        accessors_.push_back(a);
        return int(accessors_.size() - 1);
    }
    const std::vector<uint8_t>& bytes() const { return bytes_; }
    const json& views() const { return views_; }
    const json& accessors() const { return accessors_; }

private:
    std::vector<uint8_t> bytes_;
    json views_ = json::array(), accessors_ = json::array();
};

constexpr int FLOAT = 5126, UBYTE = 5121, USHORT = 5123;

// A strip of two quads rising from y = 0 to 2 between (x0, z0) and (x1, z1): rows at y 0, 1, 2
// bound to the root joint, 0.6 root / 0.4 tip (exact in IQM's ubyte weights), and the tip joint.
json strip(BufferBuilder& b, float x0, float z0, float x1, float z1, bool skinned) {
    std::vector<float> pos;
    for (float y : {0.0f, 1.0f, 2.0f}) pos.insert(pos.end(), {x0, y, z0, x1, y, z1});
    json attributes = {{"POSITION", b.add(pos, FLOAT, "VEC3", 6, true)}};
    if (skinned) {
        attributes["JOINTS_0"] = b.add(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, UBYTE, "VEC4", 6);
        attributes["WEIGHTS_0"] = b.add(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, .6f, .4f, 0, 0, .6f, .4f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, FLOAT, "VEC4", 6);
    }
    const int indices = b.add(std::vector<uint16_t>{0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4}, USHORT, "SCALAR", 12);
    return {{"primitives", json::array({{{"attributes", attributes}, {"indices", indices}}})}};
}

// Column-major inverse of a bind matrix T(t) * R, R a rotation about Y by 90 degrees or none.
std::vector<float> inverse_bind(float tx, float ty, float tz, bool turned) {
    if (!turned) return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -tx, -ty, -tz, 1};
    // R maps x -> -z, z -> x; inverse = R^T * T(-t), R^T maps x -> z, z -> -x.
    return {0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, tz, -ty, -tx, 1};
}

fs::path write_rig(const fs::path& dir) {
    BufferBuilder b;
    json meshes = json::array({strip(b, -2.5f, 0, -1.5f, 0, true), strip(b, 2, 0.5f, 2, -0.5f, true)});
    const int hat_positions = b.add(std::vector<float>{-0.2f, 0, 0, 0.2f, 0, 0, 0, 0.3f, 0.1f}, FLOAT, "VEC3", 3, true);
    const int hat_indices = b.add(std::vector<uint16_t>{0, 1, 2, 0}, USHORT, "SCALAR", 3);
    meshes.push_back({{"primitives", json::array({{{"attributes", {{"POSITION", hat_positions}}}, {"indices", hat_indices}}})}});
    std::vector<float> ibm_a = inverse_bind(-2, 0, 0, false), tip_a = inverse_bind(-2, 1, 0, false);
    ibm_a.insert(ibm_a.end(), tip_a.begin(), tip_a.end());
    std::vector<float> ibm_b = inverse_bind(2, 0, 0, true), tip_b = inverse_bind(2, 1, 0, true);
    ibm_b.insert(ibm_b.end(), tip_b.begin(), tip_b.end());
    const int ibm_a_at = b.add(ibm_a, FLOAT, "MAT4", 2), ibm_b_at = b.add(ibm_b, FLOAT, "MAT4", 2);
    const float h = float(std::sqrt(0.5));
    auto about_z = [](float a) { return std::vector<float>{0, 0, std::sin(a / 2), std::cos(a / 2)}; };
    std::vector<float> bend_a, bend_b;
    for (float a : {0.0f, 0.4f, 0.8f}) for (float c : about_z(a)) bend_a.push_back(c);
    for (float a : {0.0f, -0.3f, -0.6f}) for (float c : about_z(a)) bend_b.push_back(c);
    const int times = b.add(std::vector<float>{0, 0.5f, 1}, FLOAT, "SCALAR", 3, true);
    const int out_a = b.add(bend_a, FLOAT, "VEC4", 3), out_b = b.add(bend_b, FLOAT, "VEC4", 3);

    json doc = {
        {"asset", {{"version", "2.0"}}},
        {"scene", 0},
        {"scenes", json::array({{{"nodes", {0, 3}}}})},
        {"nodes", json::array({
                      {{"name", "ArmatureA"}, {"translation", {-2, 0, 0}}, {"children", {1, 6}}},
                      {{"name", "A_root"}, {"children", {2}}},
                      {{"name", "A_tip"}, {"translation", {0, 1, 0}}, {"children", {7}}},
                      {{"name", "ArmatureB"}, {"translation", {2, 0, 0}}, {"rotation", {0, h, 0, h}}, {"children", {4, 8}}},
                      {{"name", "B_root"}, {"children", {5}}},
                      {{"name", "B_tip"}, {"translation", {0, 1, 0}}},
                      {{"name", "BodyA"}, {"mesh", 0}, {"skin", 0}},
                      {{"name", "Hat"}, {"mesh", 2}, {"translation", {0, 1.2, 0}}},
                      {{"name", "BodyB"}, {"mesh", 1}, {"skin", 1}},
                  })},
        {"meshes", meshes},
        {"skins", json::array({{{"joints", {1, 2}}, {"inverseBindMatrices", ibm_a_at}, {"skeleton", 1}},
                               {{"joints", {4, 5}}, {"inverseBindMatrices", ibm_b_at}, {"skeleton", 4}}})},
        {"animations", json::array({{{"name", "bend"},
                                     {"samplers", json::array({{{"input", times}, {"output", out_a}}, {{"input", times}, {"output", out_b}}})},
                                     {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}},
                                                               {{"sampler", 1}, {"target", {{"node", 5}, {"path", "rotation"}}}}})}}})},
        {"accessors", b.accessors()},
        {"bufferViews", b.views()},
        {"buffers", json::array({{{"byteLength", b.bytes().size()}, {"uri", "rig.bin"}}})},
    };
    write_bytes(dir / "rig.bin", b.bytes());
    const std::string text = doc.dump();
    write_bytes(dir / "rig.gltf", std::vector<uint8_t>(text.begin(), text.end()));
    return dir / "rig.gltf";
}

// The largest distance from a vertex of one pose to the nearest vertex of the other, both ways,
// over every mesh of the scene.
double point_set_distance(const ThreeSkinning& a, const ThreeSkinning& b, size_t frame) {
    auto points = [frame](const ThreeSkinning& s) {
        std::vector<std::array<double, 3>> out;
        for (auto& m : s.meshes) out.insert(out.end(), m.frames[frame].positions.begin(), m.frames[frame].positions.end());
        return out;
    };
    const auto pa = points(a), pb = points(b);
    auto one_way = [](const auto& from, const auto& to) {
        double worst = from.empty() != to.empty() ? INFINITY : 0;
        for (auto& p : from) {
            double best = INFINITY;
            for (auto& q : to) best = std::min(best, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
            worst = std::max(worst, best);
        }
        return worst;
    };
    return std::max(one_way(pa, pb), one_way(pb, pa));
}

TEST(GltfRigs, SeveralSkinsAndBoneParentedMeshesReachEveryFormatAsThreeJsPlacesThem) {
    RIGPORT_REQUIRE_JS();
    const fs::path dir = temp_dir();
    const fs::path source = write_rig(dir);
    const ValidatorReport report = validate_gltf(source);
    ASSERT_TRUE(report.ran()) << report.error;
    ASSERT_EQ(report.errors, 0) << report.summary();

    std::vector<SkinRequest> requests = {SkinRequest::bind_pose()};
    for (double t : {0.0, 0.25, 0.5, 1.0}) requests.push_back(SkinRequest::at(0, t));
    const ThreeSkinning original = three_skin(source, requests);
    ASSERT_TRUE(original.ran()) << original.error;
    ASSERT_EQ(original.meshes.size(), 3u);
    const double tolerance = 1e-4 * 5.0;  // the rig spans about 5 units

    for (const char* route : {"iqm", "iqe", "cfg", "joe"}) {
        SCOPED_TRACE(route);
        const fs::path out = dir / route / (std::string("rig.") + route), back = dir / route / "back.glb";
        fs::create_directories(out.parent_path());
        RunResult r = run_cli({"convert", source.string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        r = run_cli({"convert", out.string(), "-o", back.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const bool posed = std::string(route) != "joe";
        const std::vector<SkinRequest> asked(requests.begin(), posed ? requests.end() : requests.begin() + 1);
        const ThreeSkinning final = three_skin(back, asked);
        ASSERT_TRUE(final.ran()) << final.error;
        double worst = 0;
        for (size_t f = 0; f < asked.size(); ++f) {
            const double d = point_set_distance(original, final, f);
            EXPECT_LE(d, tolerance) << "pose " << f;
            worst = std::max(worst, d);
        }
        std::cout << "[ measured ] two skins + a bone-parented mesh -> " << route << " -> glb, three.js vs three.js: max " << worst << " over "
                  << asked.size() << " poses\n";
        if (!posed) continue;
        // The rigid hat is bound to the bone it hangs from, with its full weight.
        auto scene = std::string(route) == "cfg" ? load_cal3d_character({out.string()}) : load(out.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        EXPECT_EQ(scene->skeleton.joints.size(), 4u);
        bool hat = false;
        for (auto& m : scene->meshes) {
            if (m.name.find("Hat") == std::string::npos) continue;
            hat = true;
            ASSERT_FALSE(m.skin.empty());
            for (auto& inf : m.skin.influences) {
                EXPECT_EQ(scene->skeleton.joints[inf.joint].name, "A_tip");
                EXPECT_NEAR(inf.weight, 1.0f, 1e-6);
            }
        }
        EXPECT_TRUE(hat) << "no mesh named Hat";
    }
}

}  // namespace
}  // namespace rigport::test

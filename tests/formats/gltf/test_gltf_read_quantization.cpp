// KHR_mesh_quantization read in every form the extension allows (docs/gltf.md §7.1, §8.4): each
// attribute (positions, normals, tangents, texcoords, weights, morph deltas) in each component type
// it lists, normalized or not, decodes to the stored integer or to glTF's normalization of it
// (signed max(c / (2^(n-1) - 1), -1), unsigned c / (2^n - 1)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

using nlohmann::json;

struct Form {
    uint32_t type;  // 5120 BYTE ... 5126 FLOAT
    bool normalized;
};

const char* type_name(uint32_t t) {
    switch (t) {
        case 5120: return "BYTE";
        case 5121: return "UNSIGNED_BYTE";
        case 5122: return "SHORT";
        case 5123: return "UNSIGNED_SHORT";
        default: return "FLOAT";
    }
}

// Raw values spanning the type (its ends, 0, small ones), n of them.
std::vector<double> raw_values(uint32_t type, size_t n) {
    std::vector<double> pick;
    switch (type) {
        case 5120: pick = {-128, 127, 0, -1, 1, 64, -64}; break;
        case 5121: pick = {0, 255, 1, 128, 77, 254, 3}; break;
        case 5122: pick = {-32768, 32767, 0, -1, 1, 16384, -12345}; break;
        case 5123: pick = {0, 65535, 1, 32768, 12345, 65534, 7}; break;
        default: pick = {0.25, -1.5, 3, 0, 0.125, -0.75, 2}; break;
    }
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = pick[(i * 3 + i / 7) % pick.size()];
    return out;
}

double decoded(double raw, const Form& f) {
    if (!f.normalized || f.type == 5126) return raw;
    switch (f.type) {
        case 5120: return std::max(raw / 127.0, -1.0);
        case 5121: return raw / 255.0;
        case 5122: return std::max(raw / 32767.0, -1.0);
        default: return raw / 65535.0;
    }
}

// An accessor of `values` stored as `f` (components per element from `type`).
uint32_t stored(GltfFixture& fx, const std::vector<double>& values, const Form& f, const std::string& type) {
    std::vector<uint8_t> bytes;
    const uint32_t size = f.type == 5126 ? 4 : f.type >= 5122 ? 2 : 1;
    for (double v : values) {
        uint8_t b[4];
        if (f.type == 5126) {
            const float x = float(v);
            std::memcpy(b, &x, 4);
        } else {
            const int32_t i = int32_t(v);
            std::memcpy(b, &i, 4);  // little-endian low bytes
        }
        bytes.insert(bytes.end(), b, b + size);
    }
    const uint32_t view = fx.view(bytes.data(), bytes.size());
    json a = {{"bufferView", view}, {"componentType", f.type}, {"count", values.size() / GltfFixture::components(type)}, {"type", type}};
    if (f.normalized) a["normalized"] = true;
    return fx.push("accessors", a);
}

struct Case {
    std::string attribute;  // "POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "target POSITION" ...
    Form form;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    const std::vector<Form> any = {{5126, false}, {5120, false}, {5120, true}, {5121, false}, {5121, true},
                                   {5122, false}, {5122, true},  {5123, false}, {5123, true}};
    const std::vector<Form> unit = {{5126, false}, {5120, true}, {5122, true}};
    const std::vector<Form> delta = {{5126, false}, {5120, false}, {5120, true}, {5122, false}, {5122, true}};
    for (auto& f : any) out.push_back({"POSITION", f}), out.push_back({"TEXCOORD_0", f});
    for (auto& f : unit) out.push_back({"NORMAL", f}), out.push_back({"TANGENT", f}), out.push_back({"target NORMAL", f}), out.push_back({"target TANGENT", f});
    for (auto& f : delta) out.push_back({"target POSITION", f});
    for (auto& f : std::vector<Form>{{5126, false}, {5121, true}, {5123, true}}) out.push_back({"WEIGHTS_0", f});
    return out;
}

class GltfReadQuantization : public ::testing::TestWithParam<Case> {};

TEST_P(GltfReadQuantization, DecodesAsTheExtensionSays) {
    const Case c = GetParam();
    GltfFixture fx;
    fx.doc["extensionsUsed"] = {"KHR_mesh_quantization"};
    fx.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
    const bool target = c.attribute.rfind("target ", 0) == 0;
    const std::string name = target ? c.attribute.substr(7) : c.attribute;
    const std::string type = name == "TEXCOORD_0" ? "VEC2" : (name == "TANGENT" && !target) || name == "WEIGHTS_0" ? "VEC4" : "VEC3";
    const uint32_t n = GltfFixture::components(type);
    std::vector<double> raw = raw_values(c.form.type, 3 * n);
    if (name == "WEIGHTS_0")  // two joints per vertex, both weighted
        for (size_t v = 0; v < 3; ++v) raw[v * 4] = std::max(raw[v * 4], 1.0), raw[v * 4 + 1] = std::max(raw[v * 4 + 1], 1.0), raw[v * 4 + 2] = raw[v * 4 + 3] = 0;
    json attributes = {{"POSITION", name == "POSITION" && !target ? stored(fx, raw, c.form, type) : fx.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3")}};
    json targets = json::array();
    json node_extra = json::object();
    if (target) {
        if (name != "POSITION") attributes[name] = name == "NORMAL" ? fx.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3") : fx.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4");
        targets.push_back({{name, stored(fx, raw, c.form, type)}});
    } else if (name == "WEIGHTS_0") {
        attributes["JOINTS_0"] = fx.accessor(std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, 5121, "VEC4");
        attributes["WEIGHTS_0"] = stored(fx, raw, c.form, type);
        node_extra["skin"] = 0;
    } else if (name != "POSITION") {
        attributes[name] = stored(fx, raw, c.form, type);
    }
    const uint32_t node = fx.mesh_node(attributes, -1, 4, node_extra);
    if (target) fx.doc["meshes"][0]["primitives"][0]["targets"] = targets;
    if (name == "WEIGHTS_0") {
        fx.doc["nodes"][node]["children"] = json::array();
        const uint32_t a = fx.push("nodes", {{"name", "a"}}), b = fx.push("nodes", {{"name", "b"}, {"translation", {0, 0, 0}}});
        fx.doc["nodes"][a]["children"] = {b};
        fx.push("skins", {{"joints", {a, b}}});
    }
    auto s = fx.load();
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_FALSE(s->warnings.has(WarningCode::NonStandardFormat)) << "KHR_mesh_quantization allows this form";
    const Mesh& m = s->meshes.at(0);
    for (size_t v = 0; v < 3; ++v)
        for (uint32_t k = 0; k < n; ++k) {
            const double want = float(decoded(raw[v * n + k], c.form));
            double got = 0;
            if (target) {
                const MorphTarget& t = m.morph_targets.at(0);
                got = name == "POSITION" ? t.position_deltas.at(v)[k] : name == "NORMAL" ? t.normal_deltas.at(v)[k] : t.tangent_deltas.at(v)[k];
            } else if (name == "POSITION") {
                got = m.positions[v][k];
            } else if (name == "NORMAL") {
                got = m.normals.at(v)[k];
            } else if (name == "TANGENT") {
                got = m.tangents.at(v)[k];
            } else if (name == "TEXCOORD_0") {
                got = m.texcoords.at(0).at(v)[k];
            } else {  // weights: the two influences' ratio, whatever normalization follows
                if (k > 0) continue;
                const auto first = m.skin.influences.begin() + m.skin.offsets.at(v);
                ASSERT_EQ(m.skin.offsets.at(v + 1) - m.skin.offsets.at(v), 2u);
                const double w0 = decoded(raw[v * 4], c.form), w1 = decoded(raw[v * 4 + 1], c.form);
                EXPECT_NEAR(first[0].weight / (first[0].weight + first[1].weight), w0 / (w0 + w1), 1e-6) << "vertex " << v;
                continue;
            }
            EXPECT_EQ(got, want) << c.attribute << " " << type_name(c.form.type) << (c.form.normalized ? " normalized" : "") << " vertex " << v << " component " << k;
        }
}

INSTANTIATE_TEST_SUITE_P(Forms, GltfReadQuantization, ::testing::ValuesIn(cases()), [](const ::testing::TestParamInfo<Case>& info) {
    std::string n = info.param.attribute + "_" + type_name(info.param.form.type) + (info.param.form.normalized ? "_normalized" : "");
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});

}  // namespace
}  // namespace rigport::test

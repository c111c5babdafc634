// Test helper: parses our glTF output independently of the writer (nlohmann-json for the JSON, our
// own GLB / data: URI / accessor decoding), so tests can compare decoded data with the scene.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {

// A glTF file's JSON (a .glb's JSON chunk), read independently of the reader under test; null or
// discarded when it is not there.
inline nlohmann::json file_json(const std::filesystem::path& path) {
    const std::vector<uint8_t> b = read_bytes(path);
    if (path.extension() != ".glb") return nlohmann::json::parse(b.begin(), b.end(), nullptr, false);
    if (b.size() < 20) return nullptr;
    uint32_t length = 0;
    std::memcpy(&length, b.data() + 12, 4);
    if (length > b.size() - 20) return nullptr;
    return nlohmann::json::parse(b.begin() + 20, b.begin() + 20 + length, nullptr, false);
}

struct ParsedGltf {
    nlohmann::json json;
    std::vector<uint8_t> bin;

    const nlohmann::json& accessor_json(size_t a) const { return json["accessors"][a]; }
    size_t components(size_t a) const {
        const std::string t = accessor_json(a)["type"];
        return t == "SCALAR" ? 1 : t == "VEC2" ? 2 : t == "VEC3" ? 3 : t == "VEC4" ? 4 : t == "MAT4" ? 16 : 0;
    }
    // Every component of every element, as double (integers exact, floats as stored).
    std::vector<double> accessor(size_t a) const {
        const auto& acc = accessor_json(a);
        const auto& view = json["bufferViews"][acc["bufferView"].get<size_t>()];
        const uint32_t type = acc["componentType"];
        const size_t size = type == 5120 || type == 5121 ? 1 : type == 5122 || type == 5123 ? 2 : 4;
        const size_t n = components(a), count = acc["count"];
        const size_t stride = view.value("byteStride", size_t(n * size));
        const size_t start = view.value("byteOffset", size_t(0)) + acc.value("byteOffset", size_t(0));
        std::vector<double> out;
        for (size_t e = 0; e < count; ++e)
            for (size_t c = 0; c < n; ++c) {
                const size_t at = start + e * stride + c * size;
                if (at + size > bin.size()) {
                    ADD_FAILURE() << "accessor " << a << " reads past the buffer";
                    return out;
                }
                uint32_t u = 0;
                for (size_t k = 0; k < size; ++k) u |= uint32_t(bin[at + k]) << (8 * k);
                double v = 0;
                switch (type) {
                    case 5120: v = int8_t(u); break;
                    case 5121: v = uint8_t(u); break;
                    case 5122: v = int16_t(u); break;
                    case 5123: v = uint16_t(u); break;
                    case 5125: v = u; break;
                    default: {
                        float f;
                        std::memcpy(&f, &u, 4);
                        v = f;
                    }
                }
                out.push_back(v);
            }
        return out;
    }
    // Accessor `attribute` of mesh m's first primitive, or -1.
    int attribute(size_t m, const std::string& name) const {
        const auto& attrs = json["meshes"][m]["primitives"][0]["attributes"];
        return attrs.contains(name) ? attrs[name].get<int>() : -1;
    }
    // The node's local TRS (defaults for missing fields).
    Transform node_trs(size_t n) const {
        const auto& node = json["nodes"][n];
        Transform t;
        if (node.contains("translation")) t.translate = node["translation"].get<Vec3>();
        if (node.contains("rotation")) t.rotate = node["rotation"].get<Quat>();
        if (node.contains("scale")) t.scale = node["scale"].get<Vec3>();
        return t;
    }
    // Parent node of every node (-1 for scene roots).
    std::vector<int> parents() const {
        std::vector<int> p(json["nodes"].size(), -1);
        for (size_t n = 0; n < p.size(); ++n)
            for (auto& c : json["nodes"][n].value("children", nlohmann::json::array())) p[c.get<size_t>()] = int(n);
        return p;
    }
    // World matrices of all nodes from the given local transforms.
    std::vector<Mat4> world(const std::vector<Transform>& local) const {
        const std::vector<int> parent = parents();
        std::vector<Mat4> w(local.size());
        std::vector<bool> done(local.size(), false);
        for (size_t pass = 0; pass < local.size(); ++pass)
            for (size_t n = 0; n < local.size(); ++n)
                if (!done[n] && (parent[n] < 0 || done[parent[n]])) {
                    w[n] = parent[n] < 0 ? transform_matrix(local[n]) : multiply(w[parent[n]], transform_matrix(local[n]));
                    done[n] = true;
                }
        return w;
    }
};

inline uint32_t glb_u32(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

inline std::vector<uint8_t> decode_base64(const std::string& text) {
    std::vector<uint8_t> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char ch : text) {
        const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char* p = std::strchr(digits, ch);
        if (ch == '=' || !p || !ch) break;
        acc = acc << 6 | uint32_t(p - digits);
        bits += 6;
        if (bits >= 8) out.push_back(uint8_t(acc >> (bits -= 8)));
    }
    return out;
}

// A .glb: header and chunks checked on the way (failures are reported, the parse goes on).
inline ParsedGltf parse_glb(const std::vector<uint8_t>& b) {
    ParsedGltf g;
    if (b.size() < 20) {
        ADD_FAILURE() << "GLB too short: " << b.size();
        return g;
    }
    EXPECT_EQ(glb_u32(b, 0), 0x46546C67u);
    EXPECT_EQ(glb_u32(b, 4), 2u);
    EXPECT_EQ(glb_u32(b, 8), b.size());
    const uint32_t json_length = glb_u32(b, 12);
    EXPECT_EQ(glb_u32(b, 16), 0x4E4F534Au);
    EXPECT_EQ(json_length % 4, 0u);
    g.json = nlohmann::json::parse(b.begin() + 20, b.begin() + 20 + json_length);
    const size_t bin_at = 20 + json_length;
    if (bin_at < b.size()) {
        const uint32_t bin_length = glb_u32(b, bin_at);
        EXPECT_EQ(glb_u32(b, bin_at + 4), 0x004E4942u);
        EXPECT_EQ(bin_length % 4, 0u);
        EXPECT_EQ(bin_at + 8 + bin_length, b.size());
        g.bin.assign(b.begin() + bin_at + 8, b.begin() + bin_at + 8 + bin_length);
    }
    return g;
}

// A .gltf: the buffer from a data: URI, else from `bin` (the side file's bytes).
inline ParsedGltf parse_gltf(const std::vector<uint8_t>& text, const std::vector<uint8_t>& bin = {}) {
    ParsedGltf g;
    g.json = nlohmann::json::parse(text.begin(), text.end());
    g.bin = bin;
    if (g.json.contains("buffers")) {
        const std::string uri = g.json["buffers"][0].value("uri", "");
        const std::string prefix = "data:application/octet-stream;base64,";
        if (uri.rfind(prefix, 0) == 0) g.bin = decode_base64(uri.substr(prefix.size()));
    }
    return g;
}

// A scene written as GLB in memory and parsed back (a failed write fails the test).
inline ParsedGltf write_glb(const Scene& s, const SaveOptions& o = {}) {
    auto out = save_output(s, "out.glb", o);
    EXPECT_TRUE(out) << out.error().to_string();
    return out ? parse_glb(out->bytes) : ParsedGltf{};
}

}  // namespace rigport::test

// Test helper: small glTF 2.0 documents built in code (nlohmann-json + one binary buffer), written as
// .gltf with a base64 data: URI, as .gltf + external .bin, or as GLB, for the reader's tests.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "rigport/io.hpp"

namespace rigport::test {

class GltfFixture {
public:
    nlohmann::json doc = {{"asset", {{"version", "2.0"}}}};
    std::vector<uint8_t> bin;
    // Buffers after buffer 0 (the one `bin` fills), written as given: an EXT_meshopt_compression
    // fallback buffer, for example.
    std::vector<nlohmann::json> more_buffers;

    // Raw bytes appended 4-aligned as a new bufferView of buffer 0; its index.
    uint32_t view(const void* data, size_t size, uint32_t stride = 0) {
        while (bin.size() % 4) bin.push_back(0);
        const size_t at = bin.size();
        bin.resize(at + size);
        if (size) std::memcpy(bin.data() + at, data, size);
        nlohmann::json v = {{"buffer", 0}, {"byteOffset", at}, {"byteLength", size}};
        if (stride) v["byteStride"] = stride;
        return push("bufferViews", v);
    }
    // An accessor over values stored as T (component_type must match T), tightly packed.
    template <class T>
    uint32_t accessor(const std::vector<T>& values, uint32_t component_type, const std::string& type, bool normalized = false) {
        const uint32_t n = components(type);
        const uint32_t v = view(values.data(), values.size() * sizeof(T));
        nlohmann::json a = {{"bufferView", v}, {"componentType", component_type}, {"count", values.size() / n}, {"type", type}};
        if (normalized) a["normalized"] = true;
        return push("accessors", a);
    }
    uint32_t floats(const std::vector<float>& values, const std::string& type) { return accessor(values, 5126, type); }
    uint32_t indices(const std::vector<uint16_t>& values) { return accessor(values, 5123, "SCALAR"); }

    // A mesh with one primitive (attributes name -> accessor) and a node carrying it; the node's index.
    uint32_t mesh_node(const nlohmann::json& attributes, int indices = -1, int mode = 4, const nlohmann::json& node_extra = nlohmann::json::object()) {
        nlohmann::json prim = {{"attributes", attributes}, {"mode", mode}};
        if (indices >= 0) prim["indices"] = indices;
        const uint32_t mesh = push("meshes", {{"primitives", nlohmann::json::array({prim})}});
        nlohmann::json node = node_extra;
        node["mesh"] = mesh;
        return push("nodes", node);
    }
    uint32_t push(const char* list, const nlohmann::json& item) {
        if (!doc.contains(list)) doc[list] = nlohmann::json::array();
        doc[list].push_back(item);
        return uint32_t(doc[list].size() - 1);
    }
    // Scene 0 lists every node no node has as a child.
    void finish_scene() {
        if (doc.contains("scenes") || !doc.contains("nodes")) return;
        std::vector<bool> child(doc["nodes"].size(), false);
        for (auto& n : doc["nodes"])
            if (n.contains("children"))
                for (auto& c : n["children"]) child[c.get<size_t>()] = true;
        nlohmann::json roots = nlohmann::json::array();
        for (size_t i = 0; i < child.size(); ++i)
            if (!child[i]) roots.push_back(i);
        doc["scenes"] = nlohmann::json::array({{{"nodes", roots}}});
        doc["scene"] = 0;
    }

    static std::string base64(const std::vector<uint8_t>& bytes) {
        static const char d[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string out;
        for (size_t i = 0; i < bytes.size(); i += 3) {
            uint32_t v = uint32_t(bytes[i]) << 16 | (i + 1 < bytes.size() ? uint32_t(bytes[i + 1]) << 8 : 0) | (i + 2 < bytes.size() ? bytes[i + 2] : 0);
            out += d[v >> 18 & 63];
            out += d[v >> 12 & 63];
            out += i + 1 < bytes.size() ? d[v >> 6 & 63] : '=';
            out += i + 2 < bytes.size() ? d[v & 63] : '=';
        }
        return out;
    }
    // .gltf text; the buffer inline (data: URI) or named by `uri`.
    std::vector<uint8_t> gltf(const std::string& uri = "") {
        finish_scene();
        nlohmann::json d = doc;
        if (!bin.empty()) d["buffers"] = nlohmann::json::array({{{"byteLength", bin.size()}, {"uri", uri.empty() ? "data:application/octet-stream;base64," + base64(bin) : uri}}});
        for (auto& b : more_buffers) d["buffers"].push_back(b);
        const std::string text = d.dump();
        return {text.begin(), text.end()};
    }
    std::vector<uint8_t> glb() {
        finish_scene();
        nlohmann::json d = doc;
        if (!bin.empty()) d["buffers"] = nlohmann::json::array({{{"byteLength", bin.size()}}});
        for (auto& b : more_buffers) d["buffers"].push_back(b);
        std::string text = d.dump();
        while (text.size() % 4) text += ' ';
        std::vector<uint8_t> b = bin;
        while (b.size() % 4) b.push_back(0);
        std::vector<uint8_t> out;
        auto u32 = [&](uint32_t v) {
            for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
        };
        u32(0x46546C67), u32(2), u32(uint32_t(12 + 8 + text.size() + (b.empty() ? 0 : 8 + b.size())));
        u32(uint32_t(text.size())), u32(0x4E4F534A);
        out.insert(out.end(), text.begin(), text.end());
        if (!b.empty()) {
            u32(uint32_t(b.size())), u32(0x004E4942);
            out.insert(out.end(), b.begin(), b.end());
        }
        return out;
    }
    Expected<Scene> load(const LoadOptions& options = {}) { return load_bytes(gltf(), "fixture.gltf", options); }

    static uint32_t components(const std::string& type) {
        return type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : type == "VEC4" ? 4 : type == "MAT2" ? 4 : type == "MAT3" ? 9 : 16;
    }
};

}  // namespace rigport::test

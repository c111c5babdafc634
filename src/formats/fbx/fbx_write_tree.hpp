// The node tree the FBX writer builds before it is stored as binary or ASCII 7.x text (docs/fbx.md
// "Writing FBX"): the reader's tree points into a file's bytes, this one owns its values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rigport::fbx::out {

// One value with FBX's binary type letters: C (bool), I (int32), L (int64), D (double), S
// (string), R (raw bytes); arrays i (int32), l (int64), f (float), d (double). 'N' is an object's
// name and class, stored as "Name\0\1Class" in binary files and "Class::Name" in ASCII ones.
struct Value {
    char type = 'I';
    int64_t integer = 0;
    double number = 0;
    std::string text{}, object_class{};
    std::vector<int32_t> ints{};
    std::vector<int64_t> longs{};
    std::vector<float> floats{};
    std::vector<double> doubles{};
};

inline Value boolean(bool v) { return {.type = 'C', .integer = v ? 1 : 0}; }
inline Value i32(int64_t v) { return {.type = 'I', .integer = v}; }
inline Value i64(int64_t v) { return {.type = 'L', .integer = v}; }
inline Value f64(double v) { return {.type = 'D', .number = v}; }
inline Value str(std::string v) { return {.type = 'S', .text = std::move(v)}; }
inline Value raw(std::string v) { return {.type = 'R', .text = std::move(v)}; }
inline Value object_name(std::string name, std::string cls) { return {.type = 'N', .text = std::move(name), .object_class = std::move(cls)}; }
inline Value ints(std::vector<int32_t> v) { return {.type = 'i', .ints = std::move(v)}; }
inline Value longs(std::vector<int64_t> v) { return {.type = 'l', .longs = std::move(v)}; }
inline Value floats(std::vector<float> v) { return {.type = 'f', .floats = std::move(v)}; }
inline Value doubles(std::vector<double> v) { return {.type = 'd', .doubles = std::move(v)}; }

struct Node {
    std::string name;
    std::vector<Value> values;
    std::vector<Node> children;
    // Written as a scope ({ } in ASCII, a null record in binary) even without children: every
    // object is one, and readers such as assimp refuse an object without it (an empty layer).
    bool scope = false;

    // A child with these values, returned for its own children (a reference valid until the
    // next add on this node).
    Node& add(std::string child_name, std::vector<Value> child_values = {}) {
        children.push_back(Node{std::move(child_name), std::move(child_values), {}, false});
        return children.back();
    }
};

// A Properties70 "P" entry: name, type, label, flags, then its values.
inline void property(Node& properties70, std::string name, std::string type, std::string label, std::string flags, std::vector<Value> values) {
    std::vector<Value> v{str(std::move(name)), str(std::move(type)), str(std::move(label)), str(std::move(flags))};
    for (auto& x : values) v.push_back(std::move(x));
    properties70.add("P", std::move(v));
}
inline void property_int(Node& p, std::string name, int64_t v) { property(p, std::move(name), "int", "Integer", "", {i32(v)}); }
inline void property_enum(Node& p, std::string name, int64_t v) { property(p, std::move(name), "enum", "", "", {i32(v)}); }
inline void property_bool(Node& p, std::string name, bool v) { property(p, std::move(name), "bool", "", "", {i32(v ? 1 : 0)}); }
inline void property_double(Node& p, std::string name, double v) { property(p, std::move(name), "double", "Number", "", {f64(v)}); }
inline void property_number(Node& p, std::string name, double v, bool animatable) {
    property(p, std::move(name), "Number", "", animatable ? "A" : "", {f64(v)});
}
inline void property_time(Node& p, std::string name, int64_t ticks) { property(p, std::move(name), "KTime", "Time", "", {i64(ticks)}); }
inline void property_string(Node& p, std::string name, std::string v) { property(p, std::move(name), "KString", "", "", {str(std::move(v))}); }
inline void property_vector(Node& p, std::string name, std::string type, std::string label, std::string flags, const double (&v)[3]) {
    property(p, std::move(name), std::move(type), std::move(label), std::move(flags), {f64(v[0]), f64(v[1]), f64(v[2])});
}

// What the two encodings need to know: the version (7400, 7500, 7700) and, for binary files,
// from how many bytes an array is deflated.
struct Encoding {
    uint32_t version = 7400;
    size_t deflate_from_bytes = 128;
};

// The top-level nodes as a binary FBX file (header, records, the footer the FBX SDK expects).
std::vector<uint8_t> encode_binary(const std::vector<Node>& top, const Encoding& encoding);
// The same as ASCII FBX text.
std::vector<uint8_t> encode_ascii(const std::vector<Node>& top, const Encoding& encoding);

}  // namespace rigport::fbx::out

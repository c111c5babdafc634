// The glTF reader's JSON tree: read-only values built from simdjson's DOM, with the meaning the
// reader had from nlohmann-json (object keys sorted, a repeated key's last value wins).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simdjson::dom {
class parser;
}

namespace rigport::gltf::read_detail {

// One JSON value. Containers point at their children, stored contiguously in the tree's arena;
// strings and keys view the parser's string buffer. Valid while the JsonTree lives.
class Json {
public:
    enum class Kind : uint8_t { Null, Boolean, Unsigned, Integer, Float, String, Array, Object };

    Kind kind = Kind::Null;
    bool flag = false;        // Boolean
    uint32_t count = 0;       // Array / Object: children
    union {
        uint64_t u = 0;       // Unsigned (any number >= 0 written without fraction or exponent)
        int64_t i;            // Integer (a negative one)
        double d;             // Float
    };
    std::string_view text;    // String
    std::string_view name;    // the key, when this value is an object member
    const Json* items = nullptr;

    bool is_null() const { return kind == Kind::Null; }
    bool is_object() const { return kind == Kind::Object; }
    bool is_array() const { return kind == Kind::Array; }
    bool is_string() const { return kind == Kind::String; }
    bool is_boolean() const { return kind == Kind::Boolean; }
    bool is_number() const { return kind == Kind::Unsigned || kind == Kind::Integer || kind == Kind::Float; }

    // Array items or object members (members in key order, each key once).
    size_t size() const { return count; }
    bool empty() const { return count == 0; }
    const Json& operator[](size_t index) const { return items[index]; }
    const Json* begin() const { return items; }
    const Json* end() const { return items + count; }
    std::string_view key() const { return name; }
    // The member named key of an object, or null.
    const Json* find(std::string_view key) const;

    double number() const { return kind == Kind::Float ? d : kind == Kind::Integer ? double(i) : double(u); }
    std::string string() const { return std::string(text); }
    // "object", "array", "string", "boolean", "number" or "null", as error messages name them.
    const char* type_name() const;
    // The value as compact JSON text, as nlohmann-json's dump() writes it (error messages only).
    std::string dump() const;
};

// A parsed document: the root, the arena of values and the parser whose strings they view.
class JsonTree {
public:
    JsonTree();
    JsonTree(JsonTree&&) noexcept;
    JsonTree& operator=(JsonTree&&) noexcept;
    ~JsonTree();

    const Json& root() const { return *root_; }

    // Room for n contiguous values (never moved later).
    Json* allocate(size_t n);
    // Text copied into the tree (values built from nlohmann-json in the fallback path).
    std::string_view keep(std::string_view text);

    std::unique_ptr<simdjson::dom::parser> parser;
    const Json* root_ = nullptr;

private:
    std::vector<std::unique_ptr<Json[]>> chunks_;
    size_t used_ = 0, left_ = 0;  // values taken and free in the last chunk
    std::vector<std::unique_ptr<std::string>> strings_;
};

}  // namespace rigport::gltf::read_detail

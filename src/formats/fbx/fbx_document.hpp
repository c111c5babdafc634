// The FBX node tree (docs/fbx.md §1): what binary (6.1-7.7, 32/64-bit records, zlib arrays, big
// endian) and ASCII files both hold, before any meaning is given to it. Strings and raw arrays
// point into the file's bytes, which must outlive the Document; other arrays are decoded
// (inflated, byte-swapped) copies.
// Nodes, values and arrays live in the Document's arena (docs/fbx.md §1.3): one bump allocation
// each instead of a malloc and a free, and the whole tree released at once.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "support/excerpt.hpp"
#include "rigport/error.hpp"
#include "rigport/io.hpp"

namespace rigport::fbx {

// One value of a node, with FBX's binary type codes: Y (int16), C (bool), I (int32), F (float),
// D (double), L (int64), S (string), R (raw bytes); arrays f, d (numbers), i, l, b, c (integers;
// b and c are bytes: booleans, or assimp's 'c' byte arrays).
// ASCII values get S for "strings", W for bare words (Y, T, *24), L or D for numbers.
// 48 bytes and trivially copied: a file holds tens of thousands of values, and what a value
// weighs is most of what the tree weighs (docs/fbx.md §1.3).
struct Property {
    char type = 0;
    uint32_t count = 0;            // arrays: how many elements
    int64_t integer = 0;           // Y C I L; a number's value truncated
    double number = 0;             // F D; an integer's value as a double
    std::string_view text;         // S R W, and binary C's byte; into the file's bytes, or (ASCII strings with
                                   // &quot; &cr; &lf;) into Document::decoded
    // An array's elements, each as wide as its type stores it (f, i: 4 bytes; d, l: 8; b, c: 1), in
    // the machine's byte order and not necessarily aligned: the file's own bytes where the file
    // stores them raw in that order, else a decoded (inflated, byte-swapped) copy in the document's
    // arena. Read through number_at / integer_at, or Node::numbers_of / integers_of.
    const uint8_t* data = nullptr;

    bool is_array() const { return type == 'f' || type == 'd' || type == 'i' || type == 'l' || type == 'b' || type == 'c'; }
    bool is_integer_array() const { return type == 'i' || type == 'l' || type == 'b' || type == 'c'; }
    bool is_number() const { return type == 'Y' || type == 'C' || type == 'I' || type == 'F' || type == 'D' || type == 'L'; }
    size_t array_size() const { return count; }
    // The bytes one element of array type t takes (0 for other types).
    static constexpr unsigned element_size(char t) {
        return t == 'd' || t == 'l' ? 8 : t == 'f' || t == 'i' ? 4 : t == 'b' || t == 'c' ? 1 : 0;
    }
    // Element i (< count) of an array as a number, and as an integer (numbers truncated).
    double number_at(size_t i) const {
        switch (type) {
            case 'f': return load<float>(i);
            case 'd': return load<double>(i);
            case 'i': return load<int32_t>(i);
            case 'l': return double(load<int64_t>(i));
            default: return data[i];
        }
    }
    int64_t integer_at(size_t i) const {
        switch (type) {
            case 'i': return load<int32_t>(i);
            case 'l': return load<int64_t>(i);
            case 'b': case 'c': return data[i];
            default: {
                const double d = number_at(i);
                return d >= -9.2e18 && d <= 9.2e18 ? int64_t(d) : 0;
            }
        }
    }

private:
    template <typename T>
    T load(size_t i) const {
        T v;
        std::memcpy(&v, data + i * sizeof(T), sizeof(T));
        return v;
    }
};
static_assert(sizeof(Property) <= 48);

// A node record: its name, values and children. Plain data that points into the file's bytes and
// the Document's arena (docs/fbx.md §1.3): copied by memcpy and never destroyed one by one, so a
// tree of tens of thousands of nodes costs its bytes and nothing more.
struct Node {
    std::string_view name;
    std::span<Property> properties;
    std::span<Node> children;
    uint64_t offset = 0;  // binary: the record's byte offset; ASCII: the name's byte offset
    uint32_t line = 0;    // ASCII: the name's line (1-based); 0 in binary files

    // The first child named so, or null.
    const Node* child(std::string_view child_name) const;
    // The node's numbers as one array: its array property, or all its number properties (6.x
    // ASCII writes arrays as plain value lists). False when another kind of value is present.
    bool numbers_of(std::vector<double>& out) const;
    // How many numbers numbers_of gives (0 when it would fail), without making the copy.
    size_t number_count() const;
    bool integers_of(std::vector<int64_t>& out) const;
};
static_assert(std::is_trivially_copyable_v<Node> && std::is_trivially_destructible_v<Node>);

struct Document {
    Document() : arena(std::make_unique<std::pmr::monotonic_buffer_resource>()) {}
    Document(Document&&) = default;
    Document& operator=(Document&&) = default;  // the tree points into the arena, which moves with it

    // Where every node list, value list and decoded array of the tree lives; freed with the
    // Document. The tree's pointers stay valid when the Document moves (the arena does not).
    std::unique_ptr<std::pmr::monotonic_buffer_resource> arena;
    uint32_t version = 0;     // 3000 ... 7700: FBXHeaderExtension/FBXVersion (binary: the header's, raised to the
                              // FBXVersion a 3000 header's file names, e.g. 5000)
    bool binary = false;
    bool big_endian = false;  // binary files written for big-endian machines (header byte 22 = 1)
    Node root;                // unnamed; the file's top-level nodes are its children
    // What the parser tolerated that breaks the layout (docs/fbx.md §1.1), for the reader's
    // warnings: records whose end offset is written as 0.
    uint64_t zero_end_records = 0;
    // Binary nodes whose property list holds a type the parser does not know: the list is read up
    // to it, the rest skipped by its declared length.
    uint64_t unknown_properties = 0;
    // ASCII strings that held an entity, decoded (`&quot;` a quote, `&cr;` `&lf;` line breaks):
    // their Property::text points here. A deque, so the texts stay put as it grows and moves.
    std::deque<std::string> decoded;

    // n value-initialised Ts in the arena (none allocated for n = 0).
    template <typename T>
    std::span<T> make(size_t n) {
        static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
        if (n == 0) return {};
        T* at = static_cast<T*>(arena->allocate(n * sizeof(T), alignof(T)));
        std::uninitialized_value_construct_n(at, n);
        return {at, n};
    }
    // A copy of `from` in the arena.
    template <typename T>
    std::span<T> copy(std::span<const T> from) {
        static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
        if (from.empty()) return {};
        T* at = static_cast<T*>(arena->allocate(from.size() * sizeof(T), alignof(T)));
        std::memcpy(static_cast<void*>(at), from.data(), from.size() * sizeof(T));
        return {at, from.size()};
    }
};

// The 23 bytes every binary FBX starts with, before its version.
inline constexpr std::string_view binary_magic{"Kaydara FBX Binary  \0\x1a", 22};

bool is_binary(std::span<const uint8_t> bytes);
// An ASCII FBX: "; FBX x.y.z project file" first, or a top-level FBXHeaderExtension.
bool is_ascii(std::span<const uint8_t> bytes);

// Errors name the place (binary: byte offset; ASCII: line:col). Limits: LoadOptions::max_depth
// for nesting, max_elements for one array and 4 x max_elements for all arrays together, so a
// small file cannot inflate into more memory than a large one may use.
Expected<Document> parse_binary(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Document> parse_ascii(std::span<const uint8_t> bytes, const LoadOptions& options);
inline Expected<Document> parse(std::span<const uint8_t> bytes, const LoadOptions& options) {
    return is_binary(bytes) ? parse_binary(bytes, options) : parse_ascii(bytes, options);
}

}  // namespace rigport::fbx

// The FBX node tree (src/formats/fbx/): binary records (32/64-bit, both byte orders, raw and
// zlib arrays) and ASCII text give the same tree; every corpus file parses; truncated, bit-flipped
// and inflating inputs end in errors with a place, never a crash or a large allocation.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <string>

#include "formats/fbx/fbx_document.hpp"
#include "test_support.hpp"

using namespace rigport;
using namespace rigport::fbx;
using namespace rigport::test;

namespace {

// Writes binary FBX by hand: the records rigport must read, in either width and byte order.
class Writer {
public:
    Writer(uint32_t version, bool big) : version_(version), big_(big) {
        const std::string magic = "Kaydara FBX Binary  ";
        bytes.assign(magic.begin(), magic.end());
        bytes.insert(bytes.end(), {0, 0x1a, uint8_t(big ? 1 : 0)});
        put(version, 4);
    }
    void put(uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) bytes.push_back(uint8_t(v >> (8 * (big_ ? n - 1 - i : i))));
    }
    unsigned width() const { return version_ >= 7500 ? 8 : 4; }

    // A record: header fields patched once the body is written.
    size_t open(const std::string& name, uint64_t num_properties) {
        const size_t at = bytes.size();
        put(0, width());
        put(num_properties, width());
        put(0, width());
        bytes.push_back(uint8_t(name.size()));
        bytes.insert(bytes.end(), name.begin(), name.end());
        properties_at_ = bytes.size();
        return at;
    }
    void end_properties(size_t at) { patch(at + 2 * width(), bytes.size() - properties_at_); }
    void close(size_t at, bool with_children) {
        if (with_children) null_record();
        patch(at, bytes.size());
    }
    void null_record() { bytes.insert(bytes.end(), 3 * width() + 1, 0); }

    void i32(int32_t v) { bytes.push_back('I'); put(uint32_t(v), 4); }
    void f64(double v) { bytes.push_back('D'); uint64_t b; std::memcpy(&b, &v, 8); put(b, 8); }
    void str(const std::string& s) { bytes.push_back('S'); put(s.size(), 4); bytes.insert(bytes.end(), s.begin(), s.end()); }
    void doubles(const std::vector<double>& v, bool deflate) {
        std::vector<uint8_t> raw;
        for (double d : v) {
            uint64_t b;
            std::memcpy(&b, &d, 8);
            for (unsigned i = 0; i < 8; ++i) raw.push_back(uint8_t(b >> (8 * (big_ ? 7 - i : i))));
        }
        array('d', v.size(), raw, deflate);
    }
    // Any array type: each element's bits in the file's byte order.
    template <typename T>
    void elements(char type, const std::vector<T>& v, bool deflate) {
        std::vector<uint8_t> raw;
        for (T x : v) {
            uint64_t b = 0;
            std::memcpy(&b, &x, sizeof(T));
            for (unsigned i = 0; i < sizeof(T); ++i) raw.push_back(uint8_t(b >> (8 * (big_ ? sizeof(T) - 1 - i : i))));
        }
        array(type, v.size(), raw, deflate);
    }
    void array(char type, uint64_t count, const std::vector<uint8_t>& raw, bool deflate) {
        std::vector<uint8_t> stored = raw;
        if (deflate) {
            uLongf n = compressBound(uLong(raw.size()));
            stored.resize(n);
            compress(stored.data(), &n, raw.data(), uLong(raw.size()));
            stored.resize(n);
        }
        bytes.push_back(uint8_t(type));
        put(count, 4);
        put(deflate ? 1 : 0, 4);
        put(stored.size(), 4);
        bytes.insert(bytes.end(), stored.begin(), stored.end());
    }
    void patch(size_t at, uint64_t v) {
        for (unsigned i = 0; i < width(); ++i) bytes[at + i] = uint8_t(v >> (8 * (big_ ? width() - 1 - i : i)));
    }

    std::vector<uint8_t> bytes;

private:
    uint32_t version_;
    bool big_;
    size_t properties_at_ = 0;
};

// Objects { Geometry: 42, "Cube", "Mesh" { Vertices: [4 doubles] } } then the null record.
std::vector<uint8_t> small_file(uint32_t version, bool big, bool deflate) {
    Writer w(version, big);
    const size_t objects = w.open("Objects", 0);
    w.end_properties(objects);
    const size_t geometry = w.open("Geometry", 3);
    w.i32(42);
    w.str(std::string("Cube\0\1Geometry", 14));
    w.str("Mesh");
    w.end_properties(geometry);
    const size_t vertices = w.open("Vertices", 1);
    w.doubles({0.5, -1.25, 3.0, 1e300}, deflate);
    w.end_properties(vertices);
    w.close(vertices, false);
    // One array of every other type (kept in the width the file stores).
    const size_t floats = w.open("Floats", 1);
    w.elements<float>('f', {0.5f, -2.0f, 3e38f}, deflate);
    w.end_properties(floats);
    w.close(floats, false);
    const size_t ints = w.open("Ints", 1);
    w.elements<int32_t>('i', {-3, 7, INT32_MIN}, deflate);
    w.end_properties(ints);
    w.close(ints, false);
    const size_t longs = w.open("Longs", 1);
    w.elements<int64_t>('l', {-5, INT64_MAX}, deflate);
    w.end_properties(longs);
    w.close(longs, false);
    const size_t bytes = w.open("Bytes", 1);
    w.elements<uint8_t>('b', {1, 0, 255}, deflate);
    w.end_properties(bytes);
    w.close(bytes, false);
    w.close(geometry, true);
    w.close(objects, true);
    w.null_record();
    return w.bytes;
}

void expect_small_tree(const Document& doc) {
    ASSERT_EQ(doc.root.children.size(), 1u);
    const Node* geometry = doc.root.children[0].child("Geometry");
    ASSERT_NE(geometry, nullptr);
    ASSERT_EQ(geometry->properties.size(), 3u);
    EXPECT_EQ(geometry->properties[0].integer, 42);
    EXPECT_EQ(geometry->properties[1].text, std::string_view("Cube\0\1Geometry", 14));
    EXPECT_EQ(geometry->properties[2].text, "Mesh");
    const Node* vertices = geometry->child("Vertices");
    ASSERT_NE(vertices, nullptr);
    std::vector<double> v;
    ASSERT_TRUE(vertices->numbers_of(v));
    EXPECT_EQ(v, (std::vector<double>{0.5, -1.25, 3.0, 1e300}));
    std::vector<int64_t> n;
    const Node* floats = geometry->child("Floats");
    ASSERT_NE(floats, nullptr);
    ASSERT_TRUE(floats->numbers_of(v));
    EXPECT_EQ(v, (std::vector<double>{0.5, -2.0, double(3e38f)}));
    EXPECT_EQ(floats->properties[0].number_at(1), -2.0);
    EXPECT_FALSE(floats->integers_of(n)) << "0.5 is not an integer";
    const Node* ints = geometry->child("Ints");
    ASSERT_NE(ints, nullptr);
    ASSERT_TRUE(ints->integers_of(n));
    EXPECT_EQ(n, (std::vector<int64_t>{-3, 7, INT32_MIN}));
    ASSERT_TRUE(ints->numbers_of(v));
    EXPECT_EQ(v, (std::vector<double>{-3, 7, double(INT32_MIN)}));
    const Node* longs = geometry->child("Longs");
    ASSERT_NE(longs, nullptr);
    ASSERT_TRUE(longs->integers_of(n));
    EXPECT_EQ(n, (std::vector<int64_t>{-5, INT64_MAX}));
    EXPECT_EQ(longs->properties[0].integer_at(1), INT64_MAX);
    const Node* bytes = geometry->child("Bytes");
    ASSERT_NE(bytes, nullptr);
    ASSERT_TRUE(bytes->integers_of(n));
    EXPECT_EQ(n, (std::vector<int64_t>{1, 0, 255}));
}

Expected<Document> parse_text(const std::string& text, const LoadOptions& options = {}) {
    return parse_ascii(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), options);
}

}  // namespace

TEST(FbxDocument, BinaryRecordsInEveryWidthByteOrderAndEncoding) {
    for (uint32_t version : {6100u, 7400u, 7500u, 7700u})
        for (bool big : {false, true})
            for (bool deflate : {false, true}) {
                SCOPED_TRACE(testing::Message() << version << (big ? " big-endian" : "") << (deflate ? " zlib" : ""));
                const auto bytes = small_file(version, big, deflate);
                ASSERT_TRUE(is_binary(bytes));
                auto doc = parse_binary(bytes, {});
                ASSERT_TRUE(doc) << doc.error().to_string();
                EXPECT_EQ(doc->version, version);
                EXPECT_EQ(doc->big_endian, big);
                expect_small_tree(*doc);
            }
}

TEST(FbxDocument, AsciiGivesTheSameTree) {
    // 7.x arrays (*N { a: }), a comment, values on several lines after commas.
    // The tree's strings point into the text: it lives as long as the tree.
    const std::string text = "; FBX 7.4.0 project file\n"
                             "Objects:  {\n"
                             "\tGeometry: 42, \"Cube\\x00\\x01Geometry\", \"Mesh\" {\n"
                             "\t\tVertices: *4 {\n\t\t\ta: 0.5,-1.25,\n3,1e300\n\t\t} ; the positions\n"
                             "\t}\n}\n";
    auto doc = parse_text(text);
    ASSERT_TRUE(doc) << doc.error().to_string();
    const Node* geometry = doc->root.children[0].child("Geometry");
    ASSERT_NE(geometry, nullptr);
    EXPECT_EQ(geometry->properties[0].integer, 42);
    EXPECT_EQ(geometry->properties[2].text, "Mesh");
    std::vector<double> v;
    ASSERT_TRUE(geometry->child("Vertices")->numbers_of(v));
    EXPECT_EQ(v, (std::vector<double>{0.5, -1.25, 3.0, 1e300}));
    // 6.x: a long value list is one array; integers stay integers; short lists stay values.
    std::string list = "FBXHeaderExtension:  {\n FBXVersion: 6100\n}\nPolygonVertexIndex: ";
    for (int i = 0; i < 40; ++i) list += std::to_string(i % 3 == 2 ? -i - 1 : i) + (i < 39 ? (i % 10 == 9 ? ",\n" : ",") : "\n");
    list += "Property: \"Lcl Translation\", \"Lcl Translation\", \"A+\",1,2,3\nShading: Y\n";
    doc = parse_text(list);
    ASSERT_TRUE(doc) << doc.error().to_string();
    EXPECT_EQ(doc->version, 6100u);
    const Node* indices = doc->root.child("PolygonVertexIndex");
    ASSERT_EQ(indices->properties.size(), 1u);
    EXPECT_EQ(indices->properties[0].type, 'l');
    EXPECT_EQ(indices->properties[0].array_size(), 40u);
    EXPECT_EQ(indices->properties[0].integer_at(2), -3);
    const Node* property = doc->root.child("Property");
    ASSERT_EQ(property->properties.size(), 6u);
    EXPECT_EQ(property->properties[3].type, 'L');
    EXPECT_EQ(doc->root.child("Shading")->properties[0].type, 'W');
}

TEST(FbxDocument, AsciiErrorsNameLineAndColumn) {
    auto doc = parse_text("Objects:  {\n  Model: 1, \"a\" {\n  }\n");
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().line, 4u);
    EXPECT_NE(doc.error().message.find("ends before a '}'"), std::string::npos);
    doc = parse_text("A: *3 {\n a: 1,2\n}\n");
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().line, 1u);
    EXPECT_NE(doc.error().message.find("declares 3 values and holds 2"), std::string::npos) << doc.error().message;
    doc = parse_text("A: 1\n}\n");
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().line, 2u);
    std::string deep;
    for (int i = 0; i < 300; ++i) deep += "A: {\n";
    doc = parse_text(deep);
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().code, ErrorCode::LimitExceeded);
}

TEST(FbxDocument, BinaryTruncatedOrFlippedAnywhereIsAnErrorWithAnOffset) {
    for (bool deflate : {false, true}) {
        const auto bytes = small_file(7500, false, deflate);
        for (size_t n = 0; n + 1 < bytes.size(); ++n) {
            std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
            auto doc = parse_binary(cut, {});
            // Cut right after a complete top-level record the tree is whole (the null record
            // and footer are optional in practice); anywhere else it is an error with a place.
            if (!doc) {
                EXPECT_TRUE(doc.error().offset) << n;
            }
        }
        for (size_t i = 23; i < bytes.size(); ++i)
            for (uint8_t bit = 1; bit; bit <<= 1) {
                auto flipped = bytes;
                flipped[i] ^= bit;
                auto doc = parse_binary(flipped, {});
                if (!doc) {
                    EXPECT_FALSE(doc.error().message.empty());
                }
            }
    }
}

TEST(FbxDocument, AnArrayThatInflatesPastItsSizeOrTheLimitsIsRefused) {
    // 2^20 zero doubles deflate to ~8 KB: declared as 2^20 elements it reads; declared as fewer,
    // the inflation overruns and is refused; past max_elements it is never inflated.
    Writer w(7500, false);
    const size_t n = w.open("Zeros", 1);
    w.array('d', 1u << 20, std::vector<uint8_t>(8u << 20, 0), true);
    w.end_properties(n);
    w.close(n, false);
    auto doc = parse_binary(w.bytes, {});
    ASSERT_TRUE(doc) << doc.error().to_string();
    EXPECT_EQ(doc->root.children[0].properties[0].array_size(), 1u << 20);
    auto smaller = w.bytes;
    smaller[n + 25 + 5 + 3] = 0x0f;  // the array's count (after the header, the name, the type): 2^20 -> 15 x 2^16
    doc = parse_binary(smaller, {});
    ASSERT_FALSE(doc);
    EXPECT_NE(doc.error().message.find("do not inflate to exactly"), std::string::npos) << doc.error().message;
    LoadOptions tight;
    tight.max_elements = 1000;
    doc = parse_binary(w.bytes, tight);
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().code, ErrorCode::LimitExceeded);
}

TEST(FbxDocument, ABrokenZlibArrayIsAnErrorNamingTheArrayAndItsOffset) {
    // A deflated array whose stream ends in a wrong Adler-32 checksum (its last 4 bytes) is
    // refused at the array's offset, saying why.
    Writer w(7500, false);
    const size_t n = w.open("Values", 1);
    const size_t array_at = w.bytes.size();
    w.doubles({0.5, -1.25, 3.0, 1e300}, true);
    w.end_properties(n);
    w.close(n, false);
    ASSERT_TRUE(parse_binary(w.bytes, {}));
    auto checksum = w.bytes;
    checksum.back() ^= 0x01;  // the stream's last byte: the file ends with the array
    auto doc = parse_binary(checksum, {});
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().code, ErrorCode::Malformed);
    EXPECT_EQ(doc.error().offset, array_at) << doc.error().to_string();
    EXPECT_NE(doc.error().message.find("array property 'd' of 4 elements"), std::string::npos) << doc.error().message;
    EXPECT_NE(doc.error().message.find("checksum"), std::string::npos) << doc.error().message;
}

TEST(FbxDocument, EveryCorpusFileParses) {
    RIGPORT_REQUIRE_CORPUS();
    auto files = corpus_files("fbx", ".fbx");
    auto upper = corpus_files("fbx", ".FBX");
    files.insert(files.end(), upper.begin(), upper.end());
    if (files.empty()) GTEST_SKIP() << "no FBX files in the corpus";
    for (const auto& f : files) {
        SCOPED_TRACE(f.string());
        const auto bytes = read_bytes(f);
        const bool binary = is_binary(bytes);
        EXPECT_TRUE(binary || is_ascii(bytes));
        auto doc = parse(bytes, {});
        ASSERT_TRUE(doc) << doc.error().to_string();
        EXPECT_EQ(doc->binary, binary);
        ASSERT_NE(doc->root.child("Objects"), nullptr);
        ASSERT_NE(doc->root.child("Connections"), nullptr);
        // ufbx's files carry their version and kind in the name: ..._7500_binary.fbx
        const std::string name = f.filename().string();
        for (const char* v : {"6100", "7400", "7500", "7700"})
            if (name.find(std::string("_") + v + "_") != std::string::npos) {
                EXPECT_EQ(doc->version, uint32_t(std::stoi(v)));
            }
        if (name.find("big_endian") != std::string::npos) {
            EXPECT_TRUE(doc->big_endian);
        }
        // Every mesh's vertices are finite numbers in threes.
        for (const Node& object : doc->root.child("Objects")->children) {
            const Node* vertices = object.child("Vertices");
            if (object.name != "Geometry" && object.name != "Model") continue;
            if (!vertices) continue;
            std::vector<double> v;
            ASSERT_TRUE(vertices->numbers_of(v));
            EXPECT_EQ(v.size() % 3, 0u);
            for (double x : v) ASSERT_TRUE(std::isfinite(x));
        }
    }
}

// glTF reader's JSON layer (simdjson, nlohmann-json's meaning kept): a repeated key keeps its last
// value, a byte order mark is skipped, an integer beyond 64 bits reads as a float, nesting beyond
// max_depth and invalid JSON are refused with their byte offset and nlohmann-json's message.
#include <gtest/gtest.h>

#include <string>

#include "rigport/io.hpp"

namespace rigport::test {
namespace {

Expected<Scene> load_text(const std::string& text, const LoadOptions& options = {}) {
    return load_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "t.gltf", options);
}

TEST(GltfReadJson, RepeatedKeyKeepsTheLastValue) {
    auto s = load_text(R"({"asset":{"version":"1.0","version":"2.0"}})");
    ASSERT_TRUE(s) << s.error().to_string();
    auto refused = load_text(R"({"asset":{"version":"2.0","version":"1.0"}})");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("/asset/version: '1.0'"), std::string::npos) << refused.error().message;
}

TEST(GltfReadJson, ByteOrderMarkSkipped) {
    auto s = load_text("\xEF\xBB\xBF{\"asset\":{\"version\":\"2.0\"}}");
    EXPECT_TRUE(s) << s.error().to_string();
}

TEST(GltfReadJson, IntegerBeyond64BitsReadsAsFloat) {
    auto s = load_text(R"({"asset":{"version":"2.0"},"scene":123456789012345678901234567890})");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("/scene: expected an index into scenes, found 1.2345678901234568e+29"), std::string::npos)
        << s.error().message;
}

TEST(GltfReadJson, InvalidJsonNamesTheOffset) {
    auto s = load_text(R"({"asset":{"version":"2.0"},"scene":1,})");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().offset, 37u);
    EXPECT_NE(s.error().message.find("not valid JSON: [json.exception.parse_error.101] parse error at line 1, column 38"), std::string::npos)
        << s.error().message;
}

TEST(GltfReadJson, NestingBeyondMaxDepthNamesTheOffset) {
    LoadOptions options;
    options.max_depth = 3;
    auto ok = load_text(R"({"asset":{"version":"2.0","extras":{}}})", options);
    EXPECT_TRUE(ok) << ok.error().to_string();
    auto deep = load_text(R"({"asset":{"version":"2.0","extras":{"a":[]}}})", options);
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error().code, ErrorCode::LimitExceeded);
    EXPECT_EQ(deep.error().offset, 40u);  // the '['
}

TEST(GltfReadJson, RootMustBeAnObject) {
    auto s = load_text("[1,2]");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("the JSON is array, not an object"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace rigport::test

// FBX key lists and key times (docs/fbx.md §2.6). 6.x channel key lists: ASCII writes a key's letters as bare words
// ("U", "s", "n"), binary 6.1 as one-byte 'C' values. Both must give the same curve.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/fbx/fbx_curve.hpp"
#include "formats/fbx/fbx_document.hpp"
#include "formats/fbx/fbx_layers.hpp"

namespace rigport::fbx {
namespace {

Property integer(int64_t v) {
    Property p;
    p.type = 'L';
    p.integer = v;
    p.number = double(v);
    return p;
}
Property number(double v) {
    Property p;
    p.type = 'D';
    p.number = v;
    p.integer = int64_t(v);
    return p;
}
// A letter as ASCII holds it (a bare word) or as binary 6.1 does (a 'C' byte, true as a bool).
Property letter(const std::string& storage, bool binary) {
    Property p;
    p.type = binary ? 'C' : 'W';
    p.text = storage;
    p.integer = binary ? 1 : 0;
    return p;
}

// Maya's 6.1 keys: a cubic key with user slopes (U, s, left, right, n), a linear and a
// constant one.
// Its nodes and values live in `store`'s arena, as a parsed file's do.
Node channel(bool binary, const std::vector<std::string>& words, Document& store) {
    Node key;
    key.name = "Key";
    const std::vector<Property> p = {integer(0), number(0), letter(words[0], binary), letter(words[1], binary), number(0), number(0), letter(words[2], binary),
         integer(46186158000), number(1), letter(words[3], binary),
         integer(92372316000), number(-1), letter(words[4], binary)};
    key.properties = store.copy(std::span<const Property>(p));
    Node ch;
    ch.name = "Channel";
    ch.children = store.copy(std::span<const Node>(&key, 1));
    return ch;
}

TEST(FbxKeyLists, BinarySixOneLettersReadAsAsciiWords) {
    const std::vector<std::string> words{"U", "s", "n", "L", "C"};  // outlive the properties
    Document store;
    Curve ascii, binary;
    Error error;
    ASSERT_TRUE(read_channel_keys(channel(false, words, store), ascii, error)) << error.to_string();
    ASSERT_TRUE(read_channel_keys(channel(true, words, store), binary, error)) << error.to_string();
    ASSERT_EQ(binary.times, (std::vector<int64_t>{0, 46186158000, 92372316000}));
    EXPECT_EQ(binary.values, (std::vector<double>{0, 1, -1}));
    EXPECT_EQ(binary.times, ascii.times);
    EXPECT_EQ(binary.values, ascii.values);
    EXPECT_EQ(binary.flags, ascii.flags);
    for (int64_t t : {int64_t(0), int64_t(23093079000), int64_t(46186158000), int64_t(70000000000), int64_t(92372316000)})
        EXPECT_EQ(evaluate(binary, t), evaluate(ascii, t)) << t;
    // A bool that is not a key letter still does not start a key.
    const std::vector<std::string> odd{"Q", "s", "n", "L", "C"};
    Curve bad;
    EXPECT_FALSE(read_channel_keys(channel(true, odd, store), bad, error));
}

}  // namespace
}  // namespace rigport::fbx

// A joint's samples are its curves' key times merged (docs/fbx.md §2.6 "Sampling cost"): sorted,
// each time once, whether the curves share their times, interleave, repeat a time or are empty.
TEST(FbxKeyTimes, CurvesMergeSortedEachTimeOnce) {
    using rigport::fbx::merge_times;
    std::vector<int64_t> out, scratch;
    merge_times(out, std::vector<int64_t>{}, scratch);
    EXPECT_TRUE(out.empty());
    merge_times(out, std::vector<int64_t>{0, 10, 10, 20}, scratch);  // a repeated key time
    EXPECT_EQ(out, (std::vector<int64_t>{0, 10, 20}));
    merge_times(out, std::vector<int64_t>{0, 10, 20}, scratch);  // the same times: nothing changes
    EXPECT_EQ(out, (std::vector<int64_t>{0, 10, 20}));
    merge_times(out, std::vector<int64_t>{-5, 5, 20, 30}, scratch);
    EXPECT_EQ(out, (std::vector<int64_t>{-5, 0, 5, 10, 20, 30}));
    merge_times(out, std::vector<int64_t>{INT64_MIN, INT64_MAX}, scratch);
    EXPECT_EQ(out, (std::vector<int64_t>{INT64_MIN, -5, 0, 5, 10, 20, 30, INT64_MAX}));
}

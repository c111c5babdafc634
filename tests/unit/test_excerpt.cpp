// detail::excerpt (src/support/excerpt.hpp): the one routine by which readers quote file text in
// messages: cut short without splitting a character or an escape, control bytes and bytes that
// are not UTF-8 written as \xNN, valid UTF-8 kept.
#include <gtest/gtest.h>

#include <string>

#include "support/excerpt.hpp"

using rigport::detail::excerpt;

TEST(Excerpt, PrintableTextAndUtf8AreKept) {
    EXPECT_EQ(excerpt("vp 1 2 3"), "vp 1 2 3");
    EXPECT_EQ(excerpt("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  // é € 😀
    EXPECT_EQ(excerpt(""), "");
}

TEST(Excerpt, ControlBytesAreEscaped) {
    EXPECT_EQ(excerpt("\x1b]0;pwned\x07\r\x1b[2K"), "\\x1b]0;pwned\\x07\\r\\x1b[2K");
    EXPECT_EQ(excerpt(std::string("a\0b", 3)), "a\\x00b");
    EXPECT_EQ(excerpt("\n\t\x7f"), "\\n\\t\\x7f");
    // C1 controls: raw (not UTF-8) and encoded as U+0080..U+009F (some terminals obey both).
    EXPECT_EQ(excerpt("\x9b" "31m"), "\\x9b31m");
    EXPECT_EQ(excerpt("\xc2\x9b" "31m"), "\\xc2\\x9b31m");
    EXPECT_EQ(excerpt("\xc2\xa0"), "\xc2\xa0");  // U+00A0, the first after them, is kept
}

TEST(Excerpt, BytesThatAreNotUtf8AreEscaped) {
    EXPECT_EQ(excerpt("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(excerpt("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
    EXPECT_EQ(excerpt("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
    EXPECT_EQ(excerpt("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
    EXPECT_EQ(excerpt("\xe2\x82"), "\\xe2\\x82");          // cut short
    EXPECT_EQ(excerpt("\xe2\x82x"), "\\xe2\\x82x");
}

TEST(Excerpt, CutShortWithoutSplittingACharacterOrAnEscape) {
    EXPECT_EQ(excerpt(std::string(10000, 'a')), std::string(40, 'a') + "...");
    EXPECT_EQ(excerpt(std::string(40, 'a')), std::string(40, 'a'));
    EXPECT_EQ(excerpt(std::string(39, 'a') + "\xc3\xa9"), std::string(39, 'a') + "...");
    EXPECT_EQ(excerpt(std::string(38, 'a') + "\x1b"), std::string(38, 'a') + "...");
    EXPECT_EQ(excerpt(std::string(100, '\x1b'), 60).size(), 60u + 3);  // 15 escapes of 4 bytes
    EXPECT_EQ(excerpt("abcdef", 3), "abc...");
}

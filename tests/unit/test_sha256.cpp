// SHA-256 (src/support/sha256.hpp, the cache's keys and entry digests; docs/scale.md "The key"):
// the FIPS 180-2 test vectors, bytes fed in pieces, and length-prefixed fields.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/sha256.hpp"

namespace rigport::support {
namespace {

std::string of(std::string_view text) {
    Sha256 h;
    h.add(text);
    return h.hex();
}

TEST(Sha256, StandardVectors) {
    EXPECT_EQ(of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const std::vector<uint8_t> million(1000000, uint8_t('a'));
    EXPECT_EQ(sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PiecesHashAsTheWholeAndFieldsAreLengthPrefixed) {
    Sha256 pieces;
    pieces.add(std::string_view("abcdbcdecdefdefgefghfghighijhijk"));
    pieces.add(std::string_view(""));
    pieces.add(std::string_view("ijkljklmklmnlmnomnopnopq"));
    EXPECT_EQ(pieces.hex(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    Sha256 ab_c, a_bc;
    ab_c.add_field("ab");
    ab_c.add_field("c");
    a_bc.add_field("a");
    a_bc.add_field("bc");
    const std::string first = ab_c.hex();
    EXPECT_EQ(first, of("2:ab1:c"));
    EXPECT_NE(first, a_bc.hex());
}

}  // namespace
}  // namespace rigport::support

// TextCursor::scan_number / scan_integer against number() / integer(), the reference: the same
// result, the same bits, the same token column and position, over many numbers and non-numbers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/text_cursor.hpp"

namespace rigport::io {
namespace {

// Every token of one line read by both ways; every outcome must agree.
void expect_same(const std::string& line) {
    TextCursor a(line), b(line);
    ASSERT_TRUE(a.next_line());
    ASSERT_TRUE(b.next_line());
    for (int k = 0; k < 8; ++k) {
        double x = 0.5, y = 0.5;
        const auto ra = a.number(x), rb = b.scan_number(y);
        ASSERT_EQ(ra, rb) << "'" << line << "' token " << k;
        ASSERT_EQ(std::memcmp(&x, &y, sizeof x), 0) << "'" << line << "' token " << k << ": " << x << " vs " << y;
        ASSERT_EQ(a.token_column(), b.token_column()) << "'" << line << "'";
        ASSERT_EQ(a.column(), b.column()) << "'" << line << "'";
        if (ra == TextCursor::Result::Missing) break;
    }
    TextCursor c(line), d(line);
    c.next_line(), d.next_line();
    for (int k = 0; k < 8; ++k) {
        int64_t x = 7, y = 7;
        const auto rc = c.integer(x), rd = d.scan_integer(y);
        ASSERT_EQ(rc, rd) << "'" << line << "' integer " << k;
        ASSERT_EQ(x, y) << "'" << line << "' integer " << k;
        ASSERT_EQ(c.token_column(), d.token_column()) << "'" << line << "'";
        ASSERT_EQ(c.column(), d.column()) << "'" << line << "'";
        if (rc == TextCursor::Result::Missing) break;
    }
}

TEST(TextCursorScan, AgreesOnChosenCases) {
    for (const char* line :
         {"0", "-0", "+0", "1", "-1", "+1", "+-1", "-+1", "1.", ".5", "-.5", ".", "-", "+", "e5", "1e", "1e+", "1e-", "1e5", "1E5",
          "1e+5", "1e-5", "1.5e-22", "1.5e22", "1e23", "1e-23", "9007199254740992", "9007199254740993", "18446744073709551615",
          "18446744073709551616", "1234567890123456789", "12345678901234567890", "0.1", "0.30000000000000004", "3.0", "3.5",
          "-3.0", "1e400", "-1e400", "1e-400", "inf", "-inf", "nan", "0x10", "1,5", "1.5.5", "1..5", "1e5e5", "1e99999999999999999999",
          "00000000000000000000001", "0.000000000000000000001", "1.5abc", "1\t2\r", "  4  -5\v6\f7 ", "1 2 3 4 5 6 7 8 9",
          "999999999999999999", "-999999999999999999", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
          "0.75", "-0.707106769", "-9.10037197e-05", "6.2831853071795862", "1e-7", "17 0.25 3 0.75"})
        expect_same(line);
}

TEST(TextCursorScan, AgreesOnRandomNumbers) {
    std::mt19937_64 rng(17);
    const std::string alphabet = "0123456789012345678901234567890123456789..--++eE xa";
    for (int n = 0; n < 200000; ++n) {
        std::string line;
        const int kind = int(rng() % 3);
        if (kind == 0) {  // random bytes of number-like characters
            const int len = 1 + int(rng() % 24);
            for (int i = 0; i < len; ++i) line += alphabet[rng() % alphabet.size()];
        } else {  // well-formed decimals of every length and exponent
            if (rng() % 2) line += '-';
            const int int_digits = int(rng() % 12), frac_digits = int(rng() % 14);
            for (int i = 0; i < std::max(1, int_digits); ++i) line += char('0' + rng() % 10);
            if (frac_digits) {
                line += '.';
                for (int i = 0; i < frac_digits; ++i) line += char('0' + rng() % 10);
            }
            if (kind == 2) line += "e" + std::to_string(int(rng() % 61) - 30);
            line += ' ';
            line += std::to_string(int64_t(rng() >> (rng() % 64)) * (rng() % 2 ? 1 : -1));
        }
        expect_same(line);
        if (HasFatalFailure()) return;
    }
}

}  // namespace
}  // namespace rigport::io

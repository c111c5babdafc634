// The bounded little-endian cursor: values decode little-endian and nothing reads out of range.
#include <gtest/gtest.h>

#include "support/byte_cursor.hpp"

namespace rigport::io {
namespace {

TEST(ByteCursor, DecodesLittleEndian) {
    const std::vector<uint8_t> b = {0x01, 0x02, 0x03, 0x04, 0xFF, 0xFF, 0x00, 0x00, 0x80, 0x3F, 0xFE};
    ByteCursor c(b);
    EXPECT_EQ(c.u32(), 0x04030201u);
    EXPECT_EQ(c.i16(), -1);
    EXPECT_EQ(c.u16(), 0u);
    c.seek(6);
    EXPECT_EQ(c.f32(), 1.0f);  // 00 00 80 3F
    EXPECT_EQ(c.i8(), -2);
    EXPECT_TRUE(c.ok());
    EXPECT_EQ(c.remaining(), 0u);
}

TEST(ByteCursor, OutOfRangeReadsFailStickilyWithTheOffset) {
    const std::vector<uint8_t> b = {1, 2, 3, 4, 5, 6};
    ByteCursor c(b, 4);
    EXPECT_EQ(c.u32(), 0u);  // needs bytes 4..7, only 4..5 exist
    EXPECT_FALSE(c.ok());
    EXPECT_EQ(c.failed_at(), 4u);
    EXPECT_EQ(c.u8(), 0u);  // sticky: even an in-range read now returns 0
    EXPECT_FALSE(c.ok());
}

TEST(ByteCursor, SeekPastEndAndHugeSkipsAreSafe) {
    const std::vector<uint8_t> b = {1, 2, 3};
    ByteCursor c(b);
    c.seek(UINT64_MAX - 1);
    EXPECT_EQ(c.u16(), 0u);
    EXPECT_FALSE(c.ok());
    ByteCursor d(b);
    EXPECT_FALSE(d.skip(UINT64_MAX));
    uint8_t out[4] = {9, 9, 9, 9};
    ByteCursor e(b);
    EXPECT_FALSE(e.read_bytes(out, 4));
    EXPECT_EQ(out[0], 0);  // zero-filled on failure, never stale
}

TEST(RangeFits, OverflowSafe) {
    EXPECT_TRUE(range_fits(124, 10, 12, 244));
    EXPECT_FALSE(range_fits(124, 10, 12, 243));
    EXPECT_FALSE(range_fits(UINT64_MAX - 4, 1, 8, UINT64_MAX));
    EXPECT_FALSE(range_fits(8, UINT64_MAX / 2, 4, UINT64_MAX));  // count * size wraps
    EXPECT_TRUE(range_fits(100, 0, 1u << 30, 100));
}

TEST(ByteWriter, WritesLittleEndianAndPatches) {
    ByteWriter w;
    w.u32(0x04030201u);
    w.u16(0xBEEF);
    w.pad_to(8);
    w.patch_u32(0, 7);
    EXPECT_EQ(w.bytes(), (std::vector<uint8_t>{7, 0, 0, 0, 0xEF, 0xBE, 0, 0}));
}

}  // namespace
}  // namespace rigport::io

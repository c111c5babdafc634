// A bounded little-endian reader over a byte buffer: it cannot read out of range.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace rigport::io {

// Overflow-safe: true when [offset, offset + count * size) lies inside a buffer of `limit` bytes.
inline bool range_fits(uint64_t offset, uint64_t count, uint64_t size, uint64_t limit) {
    if (size != 0 && count > (UINT64_MAX - offset) / size) return false;
    return offset + count * size <= limit;
}

// Reads fail "stickily": after the first out-of-range read every read returns 0 and ok() is
// false, with failed_at() the offset that was asked for. Callers check ok() once per record.
class ByteCursor {
public:
    explicit ByteCursor(std::span<const uint8_t> bytes, uint64_t pos = 0) : bytes_(bytes), pos_(pos) {}

    uint64_t pos() const { return pos_; }
    uint64_t size() const { return bytes_.size(); }
    uint64_t remaining() const { return pos_ <= bytes_.size() ? bytes_.size() - pos_ : 0; }
    bool ok() const { return ok_; }
    uint64_t failed_at() const { return failed_at_; }

    void seek(uint64_t pos) { pos_ = pos; }
    bool can_read(uint64_t n) const { return ok_ && pos_ <= bytes_.size() && n <= bytes_.size() - pos_; }

    // Copies n bytes; on failure fills dst with zeros.
    bool read_bytes(void* dst, uint64_t n) {
        if (!can_read(n)) {
            fail();
            if (n) std::memset(dst, 0, n);
            return false;
        }
        if (n) std::memcpy(dst, bytes_.data() + pos_, n);
        pos_ += n;
        return true;
    }
    bool skip(uint64_t n) {
        if (!can_read(n)) return fail();
        pos_ += n;
        return true;
    }

    uint8_t u8() { return static_cast<uint8_t>(le(1)); }
    int8_t i8() { return static_cast<int8_t>(u8()); }
    uint16_t u16() { return static_cast<uint16_t>(le(2)); }
    int16_t i16() { return static_cast<int16_t>(u16()); }
    uint32_t u32() { return static_cast<uint32_t>(le(4)); }
    int32_t i32() { return static_cast<int32_t>(u32()); }
    uint64_t u64() { return le(8); }
    float f32() {
        uint32_t b = u32();
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    double f64() {
        uint64_t b = u64();
        double d;
        std::memcpy(&d, &b, 8);
        return d;
    }

private:
    bool fail() {
        if (ok_) failed_at_ = pos_;
        ok_ = false;
        return false;
    }
    // Assembles bytes explicitly, so the host's byte order does not matter.
    uint64_t le(unsigned n) {
        if (!can_read(n)) {
            fail();
            return 0;
        }
        uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i) v |= uint64_t(bytes_[pos_ + i]) << (8 * i);
        pos_ += n;
        return v;
    }

    std::span<const uint8_t> bytes_;
    uint64_t pos_ = 0;
    bool ok_ = true;
    uint64_t failed_at_ = 0;
};

// Appends little-endian values to a growing buffer (writers build output in memory).
class ByteWriter {
public:
    std::vector<uint8_t>& bytes() { return out_; }
    uint64_t size() const { return out_.size(); }
    void u8(uint8_t v) { out_.push_back(v); }
    void u16(uint16_t v) { le(v, 2); }
    void u32(uint32_t v) { le(v, 4); }
    void i32(int32_t v) { le(static_cast<uint32_t>(v), 4); }
    void u64(uint64_t v) { le(v, 8); }
    void f32(float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        u32(b);
    }
    void f64(double d) {
        uint64_t b;
        std::memcpy(&b, &d, 8);
        u64(b);
    }
    void bytes(const void* p, size_t n) {
        auto* c = static_cast<const uint8_t*>(p);
        out_.insert(out_.end(), c, c + n);
    }
    void pad_to(uint64_t alignment) {
        while (out_.size() % alignment) out_.push_back(0);
    }
    // Overwrites 4 bytes at an earlier position (for offsets known only later).
    void patch_u32(uint64_t at, uint32_t v) {
        for (unsigned i = 0; i < 4; ++i) out_[at + i] = static_cast<uint8_t>(v >> (8 * i));
    }

private:
    void le(uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    std::vector<uint8_t> out_;
};

}  // namespace rigport::io

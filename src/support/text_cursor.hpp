// A cursor over a whole text buffer: lines, blank-separated tokens, quoted names and numbers,
// with 1-based line:col for errors. No allocation; numbers via fast_float / std::from_chars.
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#include <fast_float/fast_float.h>

namespace rigport::io {

class TextCursor {
public:
    enum class Result : uint8_t { Ok, Missing, Invalid, OutOfRange };

    explicit TextCursor(std::string_view text) : text_(text) {}

    // Moves to the start of the next line; false after the last one. A final line break does
    // not start an empty line.
    bool next_line() {
        if (next_ >= text_.size()) return false;
        line_begin_ = next_;
        size_t end = text_.find('\n', line_begin_);
        if (end == std::string_view::npos) end = text_.size();
        next_ = end < text_.size() ? end + 1 : end;
        if (end > line_begin_ && text_[end - 1] == '\r') --end;
        line_end_ = end;
        pos_ = token_begin_ = line_begin_;
        ++line_;
        return true;
    }

    // Repositions at `offset` (a line start), as if `line_before` lines came before it: the next
    // next_line() reads the line there, numbered line_before + 1 (for parsing a buffer in pieces).
    void seek(size_t offset, uint32_t line_before) {
        next_ = offset;
        line_ = line_before;
    }
    // Where the next line starts (the buffer's size after the last one).
    size_t next_offset() const { return next_; }

    uint32_t line() const { return line_; }
    // Column (1-based) of the current position / of where the last token started.
    uint32_t column() const { return static_cast<uint32_t>(pos_ - line_begin_ + 1); }
    uint32_t token_column() const { return static_cast<uint32_t>(token_begin_ - line_begin_ + 1); }
    uint64_t line_offset() const { return line_begin_; }
    std::string_view line_text() const { return text_.substr(line_begin_, line_end_ - line_begin_); }
    // Everything after the current line, verbatim.
    std::string_view rest_after_line() const { return text_.substr(next_); }

    // Skips blanks; true when nothing but blanks remains on the line.
    bool at_line_end() {
        skip_blanks();
        return pos_ >= line_end_;
    }

    // The next blank-separated token; empty at the end of the line.
    std::string_view token() {
        skip_blanks();
        token_begin_ = pos_;
        while (pos_ < line_end_ && !is_blank(text_[pos_])) ++pos_;
        return text_.substr(token_begin_, pos_ - token_begin_);
    }

    // A name: "quoted" (may hold blanks, no escapes) or a bare token. Invalid when the closing
    // quote is missing; Missing at the end of the line.
    Result name(std::string_view& out) {
        skip_blanks();
        token_begin_ = pos_;
        if (pos_ >= line_end_) return out = {}, Result::Missing;
        if (text_[pos_] != '"') {
            out = token();
            return Result::Ok;
        }
        const size_t close = text_.find('"', pos_ + 1);
        if (close == std::string_view::npos || close >= line_end_) {
            pos_ = line_end_;
            return out = {}, Result::Invalid;
        }
        out = text_.substr(pos_ + 1, close - pos_ - 1);
        pos_ = close + 1;
        return Result::Ok;
    }

    // A finite number (strtod's syntax without hex: sign, '-0', exponents). "inf" and values
    // beyond double are OutOfRange, "nan" and garbage Invalid.
    Result number(double& out) {
        std::string_view t = token();
        if (t.empty()) return Result::Missing;
        return parse_number(t, out);
    }

    // An integer; "3.0" is accepted, "3.5" is Invalid.
    Result integer(int64_t& out) {
        std::string_view t = token();
        if (t.empty()) return Result::Missing;
        return parse_integer(t, out);
    }

    // number() / integer() with the same results, token_column() and position, in one pass over
    // the common case: a plain decimal ("-12.5", "0.003e-4") ending at a blank or the line end.
    // With at most 19 significant digits, a mantissa <= 2^53 and an exponent within +-22 it is
    // converted with Clinger's exact fast path (one correctly rounded multiply or divide), the path
    // fast_float itself takes for such numbers; other plain decimals go to parse_number() on the
    // span already found, and anything else (signs, junk, errors) through number() / integer().
    Result scan_number(double& out) {
        skip_blanks();
        const char* const data = text_.data();
        const char* const begin = data + pos_;
        const char* const end = data + line_end_;
        if (begin == end) return token_begin_ = pos_, Result::Missing;
        const char* p = begin;
        const bool negative = *p == '-';
        p += negative;
        const char* const int_begin = p;
        while (p < end && *p == '0') ++p;  // leading zeros are not significant digits
        const char* sig_begin = p;
        uint64_t mantissa = 0;
        p = scan_digits(p, mantissa);
        int64_t significant = p - sig_begin, exponent = 0;
        if (p == int_begin) return number(out);
        if (p < end && *p == '.') {
            const char* const frac_begin = ++p;
            if (mantissa == 0)
                while (p < end && *p == '0') ++p;
            sig_begin = p;
            p = scan_digits(p, mantissa);
            if (p == frac_begin) return number(out);
            significant += p - sig_begin;
            exponent = -(p - frac_begin);
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            ++p;
            const bool exp_negative = p < end && *p == '-';
            p += p < end && (*p == '-' || *p == '+');
            const char* const exp_begin = p;
            int64_t e = 0;
            while (p < end && is_digit(*p)) {
                if (e < 100000) e = e * 10 + (*p - '0');
                ++p;
            }
            if (p == exp_begin) return number(out);
            exponent += exp_negative ? -e : e;
        }
        if (p < end && !is_blank(*p)) return number(out);
        token_begin_ = static_cast<size_t>(begin - data);
        pos_ = static_cast<size_t>(p - data);
        const std::string_view span(begin, static_cast<size_t>(p - begin));
        if (significant > 19) return parse_number(span, out);
        if (mantissa > (uint64_t(1) << 53) || exponent < -22 || exponent > 22) {
            // Eisel-Lemire, the step fast_float::from_chars takes next with the same digits
            // (fast_float 3.9's own functions); its rare undecided cases, overflow and underflow
            // take from_chars itself.
            const fast_float::adjusted_mantissa am = fast_float::compute_float<fast_float::binary_format<double>>(exponent, mantissa);
            if (am.power2 <= 0 || exponent < -300) return parse_number(span, out);
            double v = 0;
            fast_float::to_float(negative, am, v);
            if (!std::isfinite(v)) return parse_number(span, out);
            out = v;
            return Result::Ok;
        }
        static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        double v = static_cast<double>(mantissa);
        v = exponent < 0 ? v / powers[-exponent] : v * powers[exponent];
        out = negative ? -v : v;
        return Result::Ok;
    }

    Result scan_integer(int64_t& out) {
        skip_blanks();
        const char* const data = text_.data();
        const char* const begin = data + pos_;
        const char* const end = data + line_end_;
        if (begin == end) return token_begin_ = pos_, Result::Missing;
        const char* p = begin;
        const bool negative = *p == '-';
        p += negative;
        const char* const digits_begin = p;
        uint64_t value = 0;
        p = scan_digits(p, value);
        // 18 digits always fit int64_t; longer ones, "3.0", "+3" and errors take integer().
        if (p == digits_begin || p - digits_begin > 18 || (p < end && !is_blank(*p))) return integer(out);
        out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
        token_begin_ = static_cast<size_t>(begin - data);
        pos_ = static_cast<size_t>(p - data);
        return Result::Ok;
    }

    static Result parse_number(std::string_view t, double& out) {
        const char* b = t.data();
        const char* e = b + t.size();
        if (b < e && *b == '+') ++b;
        if (b == e) return Result::Invalid;
        auto r = fast_float::from_chars(b, e, out);
        if (r.ptr != e) return Result::Invalid;
        if (r.ec == std::errc::result_out_of_range) return Result::OutOfRange;
        if (r.ec != std::errc()) return Result::Invalid;
        if (std::isnan(out)) return Result::Invalid;
        if (std::isinf(out)) return Result::OutOfRange;
        return Result::Ok;
    }

    static Result parse_integer(std::string_view t, int64_t& out) {
        const char* b = t.data();
        const char* e = b + t.size();
        if (b < e && *b == '+') ++b;
        auto r = std::from_chars(b, e, out);
        if (r.ec == std::errc() && r.ptr == e) return Result::Ok;
        if (r.ec == std::errc::result_out_of_range && r.ptr == e) return Result::OutOfRange;
        double d = 0;
        Result n = parse_number(t, d);
        if (n != Result::Ok) return n;
        if (d != std::floor(d)) return Result::Invalid;
        if (!(d >= -9.2e18 && d <= 9.2e18)) return Result::OutOfRange;
        out = static_cast<int64_t>(d);
        return Result::Ok;
    }

    static bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
    static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

private:
    // The run of digits at p (which is on the current line) appended to `value` (wrapping past
    // 19 digits; callers count digits), eight at a time as one 64-bit word when the buffer has
    // eight bytes left: a digit run never passes the line end, whose byte is '\n' or '\r'.
    const char* scan_digits(const char* p, uint64_t& value) const {
        const char* const buffer_end = text_.data() + text_.size();
        if constexpr (std::endian::native == std::endian::little) {
            while (buffer_end - p >= 8) {
                uint64_t word;
                std::memcpy(&word, p, 8);
                // The high bit of each byte that is not '0'..'9'; exact up to the first such byte,
                // since digit bytes neither carry nor borrow.
                const uint64_t other = ((word + 0x4646464646464646) | (word - 0x3030303030303030)) & 0x8080808080808080;
                const uint64_t digits = word - 0x3030303030303030;
                if (other == 0) {
                    value = value * 100000000 + eight_digits(digits);
                    p += 8;
                    continue;
                }
                const int n = std::countr_zero(other) >> 3;  // digits before the first other byte
                if (n == 0) return p;
                static constexpr uint64_t scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
                // Shifted to the top: the bytes below read as leading zeros.
                value = value * scale[n] + eight_digits(digits << (64 - 8 * n));
                return p + n;
            }
        }
        const char* const end = text_.data() + line_end_;
        while (p < end && is_digit(*p)) value = value * 10 + uint64_t(*p++ - '0');
        return p;
    }
    // Eight digit values, the first in the lowest byte, as a number (fast_float's SWAR method).
    static uint64_t eight_digits(uint64_t v) {
        v = v * 10 + (v >> 8);
        return (((v & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) + (((v >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >> 32;
    }

    void skip_blanks() {
        while (pos_ < line_end_ && is_blank(text_[pos_])) ++pos_;
    }

    std::string_view text_;
    size_t line_begin_ = 0, line_end_ = 0, next_ = 0, pos_ = 0, token_begin_ = 0;
    uint32_t line_ = 0;
};

}  // namespace rigport::io

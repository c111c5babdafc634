// A cursor over a whole text buffer: lines, blank-separated tokens, quoted names and numbers,
// with 1-based line:col for errors. No allocation; numbers via fast_float / std::from_chars.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
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

    static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

private:
    void skip_blanks() {
        while (pos_ < line_end_ && is_blank(text_[pos_])) ++pos_;
    }

    std::string_view text_;
    size_t line_begin_ = 0, line_end_ = 0, next_ = 0, pos_ = 0, token_begin_ = 0;
    uint32_t line_ = 0;
};

}  // namespace rigport::io

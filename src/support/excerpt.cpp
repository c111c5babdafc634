// Short, escaped quotes of input text for messages (core/excerpt.hpp).
#include "support/excerpt.hpp"

#include "rigport/report.hpp"

#include <cstdint>

namespace rigport::detail {

namespace {

// The length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF, and not U+0080..U+009F, the C1 controls some terminals obey), or 0.
size_t utf8_length(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
    const uint8_t b0 = byte(i);
    size_t n = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b0 == 0xC2) n = 2, lo = 0xA0;
    else if (b0 >= 0xC3 && b0 <= 0xDF) n = 2;
    else if (b0 == 0xE0) n = 3, lo = 0xA0;
    else if (b0 >= 0xE1 && b0 <= 0xEC) n = 3;
    else if (b0 == 0xED) n = 3, hi = 0x9F;
    else if (b0 >= 0xEE && b0 <= 0xEF) n = 3;
    else if (b0 == 0xF0) n = 4, lo = 0x90;
    else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
    else if (b0 == 0xF4) n = 4, hi = 0x8F;
    else return 0;
    if (i + n > s.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return n;
}

void escape_byte(uint8_t c, std::string& out) {
    static constexpr char hex[] = "0123456789abcdef";
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
}

}  // namespace

std::string excerpt(std::string_view text, size_t max) {
    std::string out;
    std::string piece;
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<uint8_t>(text[i]);
        piece.clear();
        size_t used = 1;
        if (c >= 0x20 && c < 0x7F) {
            piece += static_cast<char>(c);
        } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
            piece.assign(text.substr(i, n));
            used = n;
        } else {
            escape_byte(c, piece);
        }
        if (out.size() + piece.size() > max) return out + "...";
        out += piece;
        i += used;
    }
    return out;
}

}  // namespace rigport::detail

namespace rigport {

std::string printable_text(std::string_view text, size_t max_bytes) { return detail::excerpt(text, max_bytes); }

}  // namespace rigport

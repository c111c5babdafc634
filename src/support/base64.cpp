// Base64 decoding (RFC 4648 §4, §5).
#include "support/base64.hpp"

namespace rigport::detail {

namespace {

int base64_digit(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;  // standard and URL-safe alphabets
    if (c == '/' || c == '_') return 63;
    return -1;
}

}  // namespace

std::optional<size_t> decode_base64(std::string_view text, std::vector<uint8_t>& out) {
    while (!text.empty() && text.back() == '=') text.remove_suffix(1);
    out.reserve(text.size() / 4 * 3 + 3);
    uint32_t bits = 0;
    int held = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const int d = base64_digit(text[i]);
        if (d < 0) return i;
        bits = bits << 6 | uint32_t(d);
        held += 6;
        if (held >= 8) {
            held -= 8;
            out.push_back(uint8_t(bits >> held));
        }
    }
    return std::nullopt;
}

}  // namespace rigport::detail

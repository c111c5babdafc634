// The deterministic JSON writer (RFC 8259 strings, shortest float32 numbers via fmt).
#include "formats/gltf/gltf_json.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

namespace rigport::gltf {

namespace {

// The length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF), or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) > 0x9F) return 0;   // surrogate
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(i + 1) > 0x8F) return 0;   // beyond U+10FFFF
    return n;
}

}  // namespace

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ += ',';
        first_.back() = false;
    }
}

void JsonWriter::begin_object() {
    separate();
    out_ += '{';
    first_.push_back(true);
}

void JsonWriter::end_object() {
    out_ += '}';
    first_.pop_back();
}

void JsonWriter::begin_array() {
    separate();
    out_ += '[';
    first_.push_back(true);
}

void JsonWriter::end_array() {
    out_ += ']';
    first_.pop_back();
}

void JsonWriter::key(std::string_view name) {
    string(name);
    out_ += ':';
    after_key_ = true;
}

void JsonWriter::string(std::string_view text) {
    separate();
    out_ += '"';
    for (size_t i = 0; i < text.size();) {
        // A run of printable ASCII other than '"' and '\\' goes in as it is, in one append.
        size_t run = i;
        while (run < text.size() && static_cast<unsigned char>(text[run]) >= 0x20 && static_cast<unsigned char>(text[run]) < 0x7F &&
               text[run] != '"' && text[run] != '\\')
            ++run;
        if (run > i) {
            out_.append(text.substr(i, run - i));
            i = run;
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            out_ += '\\';
            out_ += char(c);
        } else if (c == '\n') {
            out_ += "\\n";
        } else if (c == '\r') {
            out_ += "\\r";
        } else if (c == '\t') {
            out_ += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            fmt::format_to(std::back_inserter(out_), "\\u{:04x}", c);
        } else if (c < 0x80) {
            out_ += char(c);
        } else if (size_t n = utf8_length(text, i); n > 0) {
            out_.append(text.substr(i, n));
            i += n;
            continue;
        } else {
            out_ += "\\ufffd";
        }
        ++i;
    }
    out_ += '"';
}

void JsonWriter::number(float value) {
    separate();
    if (!std::isfinite(value)) {
        ok_ = false;
        value = 0;
    }
    // Shortest round trip of the float32, formatted into a local buffer (a back_inserter into the
    // string costs a call per character).
    char text[64];
    out_.append(text, fmt::format_to(text, "{}", value));
}

void JsonWriter::integer(int64_t value) {
    separate();
    char text[24];
    out_.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

void JsonWriter::boolean(bool value) {
    separate();
    out_ += value ? "true" : "false";
}

void JsonWriter::floats(std::string_view name, const float* values, size_t count) {
    key(name);
    begin_array();
    for (size_t i = 0; i < count; ++i) number(values[i]);
    end_array();
}

void JsonWriter::integers(std::string_view name, const std::vector<uint32_t>& values) {
    key(name);
    begin_array();
    for (uint32_t v : values) integer(v);
    end_array();
}

}  // namespace rigport::gltf

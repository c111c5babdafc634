// A tiny deterministic JSON writer (RFC 8259): keys in the order written, shortest float32 numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rigport::gltf {

// Compact output. Floats are the shortest text that reads back as the same float32 value;
// integers never carry a fraction. A non-finite float is written as 0 and makes ok() false
// (callers check their data first; this is the last guard, JSON has no NaN or Inf).
// Strings are escaped per RFC 8259 and invalid UTF-8 is replaced by U+FFFD.
class JsonWriter {
public:
    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    void key(std::string_view name);

    void string(std::string_view text);
    void number(float value);
    void integer(int64_t value);
    void boolean(bool value);

    // key + value shorthands
    void field(std::string_view name, std::string_view text) { key(name), string(text); }
    void field(std::string_view name, const char* text) { key(name), string(text); }
    void field_float(std::string_view name, float value) { key(name), number(value); }
    void field_int(std::string_view name, int64_t value) { key(name), integer(value); }
    void field_bool(std::string_view name, bool value) { key(name), boolean(value); }
    void floats(std::string_view name, const float* values, size_t count);
    void integers(std::string_view name, const std::vector<uint32_t>& values);

    bool ok() const { return ok_; }
    std::string take() { return std::move(out_); }

private:
    void separate();  // a comma before every element but the first of its container

    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written in it yet
    bool after_key_ = false;
    bool ok_ = true;
};

}  // namespace rigport::gltf

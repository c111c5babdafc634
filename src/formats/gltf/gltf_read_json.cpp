// glTF reader: JSON text parsed without exceptions (RFC 8259, nlohmann-json) and checked getters
// whose errors name the JSON path ("/accessors/3/count: ...").
#include <fmt/format.h>

#include <cmath>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

// Records where the text stops being JSON; every other event is accepted and discarded.
struct ErrorFinder {
    uint64_t position = 0;
    std::string message;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Json::number_integer_t) { return true; }
    bool number_unsigned(Json::number_unsigned_t) { return true; }
    bool number_float(Json::number_float_t, const Json::string_t&) { return true; }
    bool string(Json::string_t&) { return true; }
    bool binary(Json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(Json::string_t&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) {
        position = pos;
        message = e.what();
        return false;
    }
};

// The deepest nesting, found before parsing so hostile input cannot exhaust the stack anywhere
// (nlohmann-json parses and frees without recursion, but dump() and comparisons recurse).
std::optional<uint64_t> too_deep(std::span<const uint8_t> text, uint32_t max_depth) {
    uint32_t depth = 0;
    bool in_string = false, escaped = false;
    for (uint64_t i = 0; i < text.size(); ++i) {
        const uint8_t c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

const char* kind(const Json& v) { return v.type_name(); }

// A whole number >= 0 (an integral float too: some writers print 3.0).
std::optional<uint64_t> as_uint(const Json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer()) {
        const int64_t i = v.get<int64_t>();
        return i >= 0 ? std::optional<uint64_t>(uint64_t(i)) : std::nullopt;
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d)) return uint64_t(d);
    }
    return std::nullopt;
}

}  // namespace

void release_json(Json& value) noexcept {
    if (value.is_array()) {
        for (Json& item : value) release_json(item);
        value.get_ref<Json::array_t&>().clear();
    } else if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) release_json(it.value());
        value.get_ref<Json::object_t&>().clear();
    }
}

Expected<Json> parse_json(std::span<const uint8_t> text, uint64_t base_offset, uint32_t max_depth) {
    if (auto at = too_deep(text, max_depth))
        return make_error(ErrorCode::LimitExceeded, fmt::format("JSON nested deeper than {} levels (LoadOptions::max_depth)", max_depth),
                          base_offset + *at);
    Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
    if (!doc.is_discarded()) {
        if (!doc.is_object()) {
            Error e = make_error(ErrorCode::Malformed, fmt::format("the JSON is {}, not an object", kind(doc)), base_offset);
            release_json(doc);
            return e;
        }
        return doc;
    }
    ErrorFinder finder;
    Json::sax_parse(text.begin(), text.end(), &finder);
    const uint64_t at = finder.position > 0 ? finder.position - 1 : 0;
    return make_error(ErrorCode::Malformed, fmt::format("not valid JSON: {}", finder.message), base_offset + at);
}

bool Reader::fail(ErrorCode code, const std::string& path, const std::string& message) {
    if (!error) error = make_error(code, path.empty() ? message : fmt::format("{}: {}", path, message));
    return false;
}

bool Reader::spend(uint64_t elements, const std::string& path) {
    const uint64_t budget = options.max_elements > UINT64_MAX / 4 ? UINT64_MAX : options.max_elements * 4;
    if (elements > budget - std::min(spent_, budget))
        return fail(ErrorCode::LimitExceeded, path, fmt::format("the file makes more than {} elements in all (4 x max_elements)", budget));
    spent_ += elements;
    return true;
}

bool Reader::spend_unbacked(uint64_t values, const std::string& path) {
    const uint64_t budget = unbacked_floor + std::min(bytes_read, UINT64_MAX / 128) * unbacked_per_byte;
    if (values > budget - std::min(unbacked_, budget))
        return fail(ErrorCode::LimitExceeded, path,
                    fmt::format("{} values not stored in the file (no bufferView, sparse, or a reused morph target) exceed the "
                                "budget of {} for its {} bytes (2^20 + 64 per byte read)", values, budget, bytes_read));
    unbacked_ += values;
    return true;
}

const Json* Reader::find(const Json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

size_t Reader::count(const char* list) const {
    const Json* v = find(root, list);
    return v && v->is_array() ? v->size() : 0;
}

const Json* Reader::item(const char* list, size_t index) {
    const Json* v = find(root, list);
    if (!v || !v->is_array() || index >= v->size()) {
        fail(ErrorCode::Malformed, fmt::format("/{}/{}", list, index), "missing");
        return nullptr;
    }
    const Json& it = (*v)[index];
    if (!it.is_object()) {
        fail(ErrorCode::Malformed, fmt::format("/{}/{}", list, index), fmt::format("expected an object, found {}", kind(it)));
        return nullptr;
    }
    return &it;
}

const Json* Reader::array(const Json& object, const char* key, const std::string& path) {
    const Json* v = find(object, key);
    if (v && !v->is_array()) {
        fail(ErrorCode::Malformed, path + "/" + key, fmt::format("expected an array, found {}", kind(*v)));
        return nullptr;
    }
    return v;
}

const Json* Reader::object(const Json& object, const char* key, const std::string& path) {
    const Json* v = find(object, key);
    if (v && !v->is_object()) {
        fail(ErrorCode::Malformed, path + "/" + key, fmt::format("expected an object, found {}", kind(*v)));
        return nullptr;
    }
    return v;
}

bool Reader::uint(const Json& object, const char* key, const std::string& path, uint64_t& out, bool required) {
    const Json* v = find(object, key);
    if (!v) return required ? malformed(path + "/" + key, "missing") : true;
    auto u = as_uint(*v);
    if (!u) return malformed(path + "/" + key, fmt::format("expected a whole number >= 0, found {}", v->dump()));
    out = *u;
    return true;
}

bool Reader::index_value(const Json& value, const std::string& path, uint32_t& out, const char* list, size_t size) {
    auto i = as_uint(value);
    if (!i) return malformed(path, fmt::format("expected an index into {}, found {}", list, value.dump()));
    if (*i >= size) return malformed(path, fmt::format("{} {} does not exist (the file has {})", list, *i, size));
    out = uint32_t(*i);
    return true;
}

bool Reader::index(const Json& object, const char* key, const std::string& path, uint32_t& out, bool required,
                   const char* list, size_t size) {
    const Json* v = find(object, key);
    if (!v) return required ? malformed(path + "/" + key, "missing") : true;
    return index_value(*v, path + "/" + key, out, list, size);
}

bool Reader::number(const Json& object, const char* key, const std::string& path, float& out) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_number()) return malformed(path + "/" + key, fmt::format("expected a number, found {}", kind(*v)));
    const float f = float(v->get<double>());
    if (!std::isfinite(f)) return malformed(path + "/" + key, fmt::format("{} is not a finite float", v->dump()));
    out = f;
    return true;
}

bool Reader::numbers(const Json& object, const char* key, const std::string& path, float* out, size_t n) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_array() || v->size() != n) return malformed(path + "/" + key, fmt::format("expected an array of {} numbers", n));
    for (size_t i = 0; i < n; ++i) {
        const Json& e = (*v)[i];
        const float f = e.is_number() ? float(e.get<double>()) : NAN;
        if (!std::isfinite(f)) return malformed(fmt::format("{}/{}/{}", path, key, i), fmt::format("{} is not a finite float", e.dump()));
        out[i] = f;
    }
    return true;
}

bool Reader::string(const Json& object, const char* key, const std::string& path, std::string& out) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_string()) return malformed(path + "/" + key, fmt::format("expected a string, found {}", kind(*v)));
    out = v->get_ref<const std::string&>();
    return true;
}

bool Reader::boolean(const Json& object, const char* key, const std::string& path, bool& out) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_boolean()) return malformed(path + "/" + key, fmt::format("expected true or false, found {}", kind(*v)));
    out = v->get<bool>();
    return true;
}

}  // namespace rigport::gltf::read_detail

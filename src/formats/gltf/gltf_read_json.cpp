// glTF reader: JSON text parsed by simdjson (RFC 8259) into a read-only tree, and checked getters
// whose errors name the JSON path ("/accessors/3/count: ..."). Invalid JSON is described by
// nlohmann-json, whose messages and byte offsets the reader has always given.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <new>

#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

using Nlohmann = nlohmann::json;

// Records where the text stops being JSON; every other event is accepted and discarded.
struct ErrorFinder {
    uint64_t position = 0;
    std::string message;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Nlohmann::number_integer_t) { return true; }
    bool number_unsigned(Nlohmann::number_unsigned_t) { return true; }
    bool number_float(Nlohmann::number_float_t, const Nlohmann::string_t&) { return true; }
    bool string(Nlohmann::string_t&) { return true; }
    bool binary(Nlohmann::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(Nlohmann::string_t&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) {
        position = pos;
        message = e.what();
        return false;
    }
};

// The first bracket nested deeper than max_depth, by a lexical scan (on the error path only: it
// names the place whether or not the rest is valid JSON).
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

// simdjson's DOM -> the tree. Object members are sorted by key and a repeated key keeps its last
// value, as nlohmann-json's std::map did, so lookups and member order stay what they were.
class Builder {
public:
    Builder(JsonTree& tree, uint32_t max_depth) : tree_(tree), max_depth_(max_depth) {}

    // False when containers nest deeper than max_depth.
    bool build(simdjson::dom::element e, Json& out, uint32_t depth) {
        using T = simdjson::dom::element_type;
        switch (e.type()) {
            case T::NULL_VALUE: out.kind = Json::Kind::Null; return true;
            case T::BOOL: out.kind = Json::Kind::Boolean, out.flag = e.get_bool().value_unsafe(); return true;
            case T::INT64: {
                const int64_t v = e.get_int64().value_unsafe();
                if (v >= 0) out.kind = Json::Kind::Unsigned, out.u = uint64_t(v);
                else out.kind = Json::Kind::Integer, out.i = v;
                return true;
            }
            case T::UINT64: out.kind = Json::Kind::Unsigned, out.u = e.get_uint64().value_unsafe(); return true;
            case T::DOUBLE: out.kind = Json::Kind::Float, out.d = e.get_double().value_unsafe(); return true;
            case T::STRING: out.kind = Json::Kind::String, out.text = e.get_string().value_unsafe(); return true;
            case T::ARRAY: {
                if (depth + 1 > max_depth_) return false;
                const simdjson::dom::array a = e.get_array().value_unsafe();
                out.kind = Json::Kind::Array;
                out.count = uint32_t(a.size());
                Json* items = tree_.allocate(out.count);
                out.items = items;
                for (simdjson::dom::element child : a)
                    if (!build(child, *items++, depth + 1)) return false;
                return true;
            }
            case T::OBJECT: {
                if (depth + 1 > max_depth_) return false;
                const size_t first = scratch_.size();
                const simdjson::dom::object o = e.get_object().value_unsafe();  // a copy: the result is a temporary
                for (simdjson::dom::key_value_pair kv : o) scratch_.push_back({kv.key, kv.value});
                auto from = scratch_.begin() + ptrdiff_t(first);
                std::stable_sort(from, scratch_.end(), [](const Member& a, const Member& b) { return a.key < b.key; });
                // The last of equal keys wins: move it onto the first of its run.
                auto to = from;
                for (auto it = from; it != scratch_.end(); ++it) {
                    if (it != from && (to - 1)->key == it->key) *(to - 1) = *it;
                    else *to++ = *it;
                }
                scratch_.erase(to, scratch_.end());
                const size_t n = scratch_.size() - first;
                out.kind = Json::Kind::Object;
                out.count = uint32_t(n);
                Json* items = tree_.allocate(n);
                out.items = items;
                for (size_t k = 0; k < n; ++k) {  // by index: deeper objects grow scratch_
                    items[k].name = scratch_[first + k].key;
                    if (!build(scratch_[first + k].value, items[k], depth + 1)) return false;
                }
                scratch_.resize(first);
                return true;
            }
        }
        return true;
    }

private:
    struct Member {
        std::string_view key;
        simdjson::dom::element value;
    };
    JsonTree& tree_;
    uint32_t max_depth_;
    std::vector<Member> scratch_;
};

// nlohmann-json's value -> the tree, for the rare text simdjson refuses and nlohmann-json reads
// (an integer beyond 64 bits, read as a float). Depth already checked.
void copy(JsonTree& tree, const Nlohmann& v, Json& out) {
    if (v.is_null()) out.kind = Json::Kind::Null;
    else if (v.is_boolean()) out.kind = Json::Kind::Boolean, out.flag = v.get<bool>();
    else if (v.is_number_unsigned()) out.kind = Json::Kind::Unsigned, out.u = v.get<uint64_t>();
    else if (v.is_number_integer()) out.kind = Json::Kind::Integer, out.i = v.get<int64_t>();
    else if (v.is_number_float()) out.kind = Json::Kind::Float, out.d = v.get<double>();
    else if (v.is_string()) out.kind = Json::Kind::String, out.text = tree.keep(v.get_ref<const std::string&>());
    else if (v.is_array() || v.is_object()) {
        out.kind = v.is_array() ? Json::Kind::Array : Json::Kind::Object;
        out.count = uint32_t(v.size());
        Json* items = tree.allocate(out.count);
        out.items = items;
        for (auto it = v.begin(); it != v.end(); ++it, ++items) {
            if (v.is_object()) items->name = tree.keep(it.key());
            copy(tree, it.value(), *items);
        }
    }
}

// Empties a nlohmann value leaf first, so that destroying it allocates nothing: its destructor
// otherwise allocates a stack to flatten a nested value, and an allocation failing inside a
// destructor is std::terminate (tests/alloc). Recursion as deep as the document (max_depth).
void release(Nlohmann& value) noexcept {
    if (value.is_array()) {
        for (Nlohmann& item : value) release(item);
        value.get_ref<Nlohmann::array_t&>().clear();
    } else if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) release(it.value());
        value.get_ref<Nlohmann::object_t&>().clear();
    }
}

// A whole number >= 0 (an integral float too: some writers print 3.0).
std::optional<uint64_t> as_uint(const Json& v) {
    if (v.kind == Json::Kind::Unsigned) return v.u;
    if (v.kind == Json::Kind::Float) {
        const double d = v.d;
        if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d)) return uint64_t(d);
    }
    return std::nullopt;
}

}  // namespace

Expected<JsonTree> parse_json(std::span<const uint8_t> text, uint64_t base_offset, uint32_t max_depth) {
    JsonTree tree;
    Json* root = tree.allocate(1);
    tree.root_ = root;
    tree.parser = std::make_unique<simdjson::dom::parser>();
    // simdjson's own depth bound sits above max_depth, so the walk below is what refuses, and a
    // document of n bytes nests at most n deep, which bounds the parser's depth stacks.
    const size_t depth = size_t(std::min<uint64_t>(max_depth, text.size())) + 2;
    simdjson::error_code err = tree.parser->allocate(std::max<size_t>(text.size(), 1), depth);
    if (err == simdjson::MEMALLOC) throw std::bad_alloc();
    // nlohmann-json skips a UTF-8 byte order mark, simdjson refuses it.
    std::span<const uint8_t> body = text;
    if (body.size() >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF) body = body.subspan(3);
    simdjson::dom::element element;
    if (!err) err = tree.parser->parse(body.data(), body.size(), true).get(element);
    if (err == simdjson::MEMALLOC) throw std::bad_alloc();
    bool built = !err && Builder(tree, max_depth).build(element, *root, 0);
    if (!built) {
        // Everything refused is described as before: nesting first, then nlohmann-json's message.
        if (auto at = too_deep(text, max_depth))
            return make_error(ErrorCode::LimitExceeded, fmt::format("JSON nested deeper than {} levels (LoadOptions::max_depth)", max_depth),
                              base_offset + *at);
        ErrorFinder finder;
        if (!Nlohmann::sax_parse(text.begin(), text.end(), &finder)) {
            const uint64_t at = finder.position > 0 ? finder.position - 1 : 0;
            return make_error(ErrorCode::Malformed, fmt::format("not valid JSON: {}", finder.message), base_offset + at);
        }
        Nlohmann doc = Nlohmann::parse(text.begin(), text.end(), nullptr, false);
        tree = JsonTree();
        root = tree.allocate(1);
        tree.root_ = root;
        copy(tree, doc, *root);
        release(doc);
    }
    if (!root->is_object()) return make_error(ErrorCode::Malformed, fmt::format("the JSON is {}, not an object", root->type_name()), base_offset);
    return tree;
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

const Json* Reader::find(const Json& object, const char* key) { return object.find(key); }

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
        fail(ErrorCode::Malformed, fmt::format("/{}/{}", list, index), fmt::format("expected an object, found {}", it.type_name()));
        return nullptr;
    }
    return &it;
}

const Json* Reader::array(const Json& object, const char* key, const std::string& path) {
    const Json* v = find(object, key);
    if (v && !v->is_array()) {
        fail(ErrorCode::Malformed, path + "/" + key, fmt::format("expected an array, found {}", v->type_name()));
        return nullptr;
    }
    return v;
}

const Json* Reader::object(const Json& object, const char* key, const std::string& path) {
    const Json* v = find(object, key);
    if (v && !v->is_object()) {
        fail(ErrorCode::Malformed, path + "/" + key, fmt::format("expected an object, found {}", v->type_name()));
        return nullptr;
    }
    return v;
}

bool Reader::uint(const Json& object, const char* key, const std::string& path, uint64_t& out, bool required) {
    const Json* v = find(object, key);
    if (!v) return required ? malformed(path + "/" + key, "missing") : true;
    auto u = as_uint(*v);
    if (!u) return malformed(path + "/" + key, fmt::format("expected a whole number >= 0, found {}", detail::excerpt(v->dump())));
    out = *u;
    return true;
}

bool Reader::index_value(const Json& value, const std::string& path, uint32_t& out, const char* list, size_t size) {
    auto i = as_uint(value);
    if (!i) return malformed(path, fmt::format("expected an index into {}, found {}", list, detail::excerpt(value.dump())));
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
    if (!v->is_number()) return malformed(path + "/" + key, fmt::format("expected a number, found {}", v->type_name()));
    const float f = float(v->number());
    if (!std::isfinite(f)) return malformed(path + "/" + key, fmt::format("{} is not a finite float", detail::excerpt(v->dump())));
    out = f;
    return true;
}

bool Reader::numbers(const Json& object, const char* key, const std::string& path, float* out, size_t n) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_array() || v->size() != n) return malformed(path + "/" + key, fmt::format("expected an array of {} numbers", n));
    for (size_t i = 0; i < n; ++i) {
        const Json& e = (*v)[i];
        const float f = e.is_number() ? float(e.number()) : NAN;
        if (!std::isfinite(f)) return malformed(fmt::format("{}/{}/{}", path, key, i), fmt::format("{} is not a finite float", detail::excerpt(e.dump())));
        out[i] = f;
    }
    return true;
}

bool Reader::string(const Json& object, const char* key, const std::string& path, std::string& out) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_string()) return malformed(path + "/" + key, fmt::format("expected a string, found {}", v->type_name()));
    out = v->text;
    return true;
}

bool Reader::boolean(const Json& object, const char* key, const std::string& path, bool& out) {
    const Json* v = find(object, key);
    if (!v) return true;
    if (!v->is_boolean()) return malformed(path + "/" + key, fmt::format("expected true or false, found {}", v->type_name()));
    out = v->flag;
    return true;
}

}  // namespace rigport::gltf::read_detail

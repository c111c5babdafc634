// The glTF reader's JSON tree: values, lookups by key, and nlohmann-json's text of a value for
// error messages.
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>

#include "formats/gltf/gltf_read_json.hpp"

namespace rigport::gltf::read_detail {

namespace {

nlohmann::json to_nlohmann(const Json& v) {
    switch (v.kind) {
        case Json::Kind::Null: return nullptr;
        case Json::Kind::Boolean: return v.flag;
        case Json::Kind::Unsigned: return v.u;
        case Json::Kind::Integer: return v.i;
        case Json::Kind::Float: return v.d;
        case Json::Kind::String: return std::string(v.text);
        case Json::Kind::Array: {
            nlohmann::json out = nlohmann::json::array();
            for (const Json& item : v) out.push_back(to_nlohmann(item));
            return out;
        }
        case Json::Kind::Object: {
            nlohmann::json out = nlohmann::json::object();
            for (const Json& member : v) out[std::string(member.name)] = to_nlohmann(member);
            return out;
        }
    }
    return nullptr;
}

}  // namespace

const Json* Json::find(std::string_view key) const {
    if (kind != Kind::Object) return nullptr;
    // Members are sorted by key (byte order, as std::map<std::string> orders them).
    const Json* it = std::lower_bound(begin(), end(), key, [](const Json& m, std::string_view k) { return m.name < k; });
    return it != end() && it->name == key ? it : nullptr;
}

const char* Json::type_name() const {
    switch (kind) {
        case Kind::Null: return "null";
        case Kind::Boolean: return "boolean";
        case Kind::String: return "string";
        case Kind::Array: return "array";
        case Kind::Object: return "object";
        default: return "number";
    }
}

std::string Json::dump() const { return to_nlohmann(*this).dump(); }

JsonTree::JsonTree() = default;
JsonTree::JsonTree(JsonTree&&) noexcept = default;
JsonTree& JsonTree::operator=(JsonTree&&) noexcept = default;
JsonTree::~JsonTree() = default;

Json* JsonTree::allocate(size_t n) {
    if (n > left_ || chunks_.empty()) {
        const size_t size = std::max<size_t>(n, 4096);
        chunks_.push_back(std::make_unique<Json[]>(size));
        left_ = size;
        used_ = 0;
    }
    Json* out = chunks_.back().get() + used_;
    used_ += n;
    left_ -= n;
    return out;
}

std::string_view JsonTree::keep(std::string_view text) {
    strings_.push_back(std::make_unique<std::string>(text));
    return *strings_.back();
}

}  // namespace rigport::gltf::read_detail

// The FBX node tree's lookups (docs/fbx.md §1): children by name, a node's numbers as one array.
#include "formats/fbx/fbx_document.hpp"

#include <cstring>

namespace rigport::fbx {

const Node* Node::child(std::string_view child_name) const {
    for (auto& c : children)
        if (c.name == child_name) return &c;
    return nullptr;
}

namespace {

// An array's elements of stored type T into `out`, converted (the loop per type, not per element).
template <typename T, typename Out>
void widen(const Property& p, std::vector<Out>& out) {
    out.resize(p.count);
    for (size_t k = 0; k < p.count; ++k) {
        T v;
        std::memcpy(&v, p.data + k * sizeof(T), sizeof(T));
        out[k] = Out(v);
    }
}

template <typename Out>
void widen_any(const Property& p, std::vector<Out>& out) {
    switch (p.type) {
        case 'f': widen<float>(p, out); break;
        case 'd': widen<double>(p, out); break;
        case 'i': widen<int32_t>(p, out); break;
        case 'l': widen<int64_t>(p, out); break;
        default: widen<uint8_t>(p, out); break;
    }
}

}  // namespace

bool Node::numbers_of(std::vector<double>& out) const {
    out.clear();
    if (properties.size() == 1 && properties[0].is_array()) {
        widen_any(properties[0], out);
        return true;
    }
    for (auto& p : properties) {
        if (!p.is_number()) return false;
        out.push_back(p.number);
    }
    return true;
}

size_t Node::number_count() const {
    if (properties.size() == 1 && properties[0].is_array()) return properties[0].count;
    for (auto& p : properties)
        if (!p.is_number()) return 0;
    return properties.size();
}

bool Node::integers_of(std::vector<int64_t>& out) const {
    out.clear();
    if (properties.size() == 1 && properties[0].is_array()) {
        const Property& p = properties[0];
        if (p.is_integer_array()) {
            widen_any(p, out);
            return true;
        }
        out.reserve(p.count);
        for (size_t k = 0; k < p.count; ++k) {
            const double d = p.number_at(k);
            if (!(d >= -9.2e18 && d <= 9.2e18) || d != double(int64_t(d))) return false;
            out.push_back(int64_t(d));
        }
        return true;
    }
    for (auto& p : properties) {
        if (p.type == 'F' || p.type == 'D' || !p.is_number()) return false;
        out.push_back(p.integer);
    }
    return true;
}

}  // namespace rigport::fbx

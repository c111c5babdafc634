// The FBX node tree's lookups (docs/fbx.md §1): children by name, a node's numbers as one array.
#include "formats/fbx/fbx_document.hpp"

namespace rigport::fbx {

const Node* Node::child(std::string_view child_name) const {
    for (auto& c : children)
        if (c.name == child_name) return &c;
    return nullptr;
}

bool Node::numbers_of(std::vector<double>& out) const {
    out.clear();
    if (properties.size() == 1 && properties[0].is_array()) {
        const Property& p = properties[0];
        if (!p.numbers.empty() || p.integers.empty()) out.assign(p.numbers.begin(), p.numbers.end());
        else out.assign(p.integers.begin(), p.integers.end());
        return true;
    }
    for (auto& p : properties) {
        if (!p.is_number()) return false;
        out.push_back(p.number);
    }
    return true;
}

bool Node::integers_of(std::vector<int64_t>& out) const {
    out.clear();
    if (properties.size() == 1 && properties[0].is_array()) {
        const Property& p = properties[0];
        if (!p.integers.empty() || p.numbers.empty()) {
            out.assign(p.integers.begin(), p.integers.end());
            return true;
        }
        for (double d : p.numbers) {
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

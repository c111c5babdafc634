// FBX 7.x objects, connections and properties with their templates (docs/fbx.md §2.1).
#include "formats/fbx/fbx_objects.hpp"

#include <fmt/format.h>

namespace rigport::fbx {

namespace {

Error error_at(const Node& node, std::string message) {
    Error e = make_error(ErrorCode::Malformed, std::move(message));
    if (node.line) e.line = node.line, e.column = 1;
    else e.offset = node.offset;
    return e;
}

// Definitions { ObjectType: "Model" { PropertyTemplate: "FbxNode" { Properties70 } } }.
std::unordered_map<std::string_view, const Node*> templates(const Document& doc) {
    std::unordered_map<std::string_view, const Node*> out;
    const Node* definitions = doc.root.child("Definitions");
    if (!definitions) return out;
    for (const Node& type : definitions->children) {
        if (type.name != "ObjectType" || type.properties.empty()) continue;
        if (const Node* t = type.child("PropertyTemplate"))
            if (const Node* p = t->child("Properties70")) out.emplace(type.properties[0].text, p);
    }
    return out;
}

const Node* find_in(const Node* properties, std::string_view name, size_t& first_value) {
    if (!properties) return nullptr;
    // Properties70: P: name, type, label, flags, values; 6.x Properties60: Property: name, type, flags, values.
    const bool p70 = properties->name == "Properties70";
    for (const Node& p : properties->children)
        if (!p.properties.empty() && p.properties[0].text == name) {
            first_value = p70 ? 4 : 3;
            return &p;
        }
    return nullptr;
}

}  // namespace

std::string object_name(std::string_view stored) {
    if (size_t sep = stored.find(std::string_view("\0\1", 2)); sep != std::string_view::npos) return std::string(stored.substr(0, sep));
    if (size_t sep = stored.find("::"); sep != std::string_view::npos) return std::string(stored.substr(sep + 2));
    return std::string(stored);
}

bool Objects::build(const Document& doc, Error& error) {
    const Node* objects = doc.root.child("Objects");
    if (!objects) {
        error = make_error(ErrorCode::Malformed, "no Objects section");
        return false;
    }
    const auto defaults = templates(doc);
    for (const Node& n : objects->children) {
        if (n.properties.empty() || !n.properties[0].is_number() || n.properties[0].type == 'D' || n.properties[0].type == 'F') {
            error = error_at(n, fmt::format("object '{}' has no integer id first", n.name));
            return false;
        }
        Object o;
        o.id = n.properties[0].integer;
        o.kind = n.name;
        if (n.properties.size() > 1) o.name = object_name(n.properties[1].text);
        if (n.properties.size() > 2) o.subclass = n.properties[2].text;
        o.node = &n;
        o.properties = n.child("Properties70");
        if (auto t = defaults.find(n.name); t != defaults.end()) o.defaults = t->second;
        if (!by_id_.emplace(o.id, uint32_t(list.size())).second) {
            error = error_at(n, fmt::format("object id {} used twice", o.id));
            return false;
        }
        list.push_back(std::move(o));
    }
    parents.assign(list.size(), {});
    children.assign(list.size(), {});
    const Node* connections = doc.root.child("Connections");
    if (!connections) return true;
    for (const Node& c : connections->children) {
        if (c.name != "C") continue;
        if (c.properties.size() < 3 || c.properties[1].type == 'S' || c.properties[2].type == 'S') {
            error = error_at(c, "a connection without its kind, child id and parent id");
            return false;
        }
        const auto child = by_id_.find(c.properties[1].integer);
        const auto parent = by_id_.find(c.properties[2].integer);
        // Links to the scene root (id 0) or to objects rigport does not index are left out.
        if (child == by_id_.end() || parent == by_id_.end()) continue;
        const std::string_view property = c.properties.size() > 3 ? c.properties[3].text : std::string_view();
        parents[child->second].push_back({parent->second, property});
        children[parent->second].push_back({child->second, property});
    }
    return true;
}

std::vector<uint32_t> Objects::children_of(uint32_t i, std::string_view kind) const {
    std::vector<uint32_t> out;
    for (const Link& l : children[i])
        if (list[l.object].kind == kind) out.push_back(l.object);
    return out;
}

std::vector<uint32_t> Objects::parents_of(uint32_t i, std::string_view kind) const {
    std::vector<uint32_t> out;
    for (const Link& l : parents[i])
        if (list[l.object].kind == kind) out.push_back(l.object);
    return out;
}

const Node* find_property(const Object& object, std::string_view name, size_t& first_value) {
    if (const Node* p = find_in(object.properties, name, first_value)) return p;
    return find_in(object.defaults, name, first_value);
}

double property_number(const Object& object, std::string_view name, double fallback) {
    size_t first = 0;
    const Node* p = find_property(object, name, first);
    if (!p || p->properties.size() <= first || !p->properties[first].is_number()) return fallback;
    return p->properties[first].number;
}

std::array<double, 3> property_vec3(const Object& object, std::string_view name, std::array<double, 3> fallback) {
    size_t first = 0;
    const Node* p = find_property(object, name, first);
    if (!p || p->properties.size() < first + 3) return fallback;
    std::array<double, 3> v{};
    for (int k = 0; k < 3; ++k) {
        if (!p->properties[first + k].is_number()) return fallback;
        v[k] = p->properties[first + k].number;
    }
    return v;
}

std::string_view property_text(const Object& object, std::string_view name) {
    size_t first = 0;
    const Node* p = find_property(object, name, first);
    if (!p || p->properties.size() <= first) return {};
    return p->properties[first].text;
}

}  // namespace rigport::fbx

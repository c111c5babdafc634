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

const Node* settings_properties(const Document& doc) {
    if (const Node* s = doc.root.child("GlobalSettings")) return s->child("Properties70");
    if (const Node* objects = doc.root.child("Objects"))
        if (const Node* s = objects->child("GlobalSettings")) return s->child("Properties60");
    return nullptr;
}

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
    if (doc.version < 7000) return build_v6(*objects, doc.root.child("Connections"), error);
    const auto defaults = templates(doc);
    std::unordered_map<int64_t, uint32_t> times_seen;  // repeated ids: how often seen again
    for (const Node& n : objects->children) {
        if (n.properties.empty() || !n.properties[0].is_number() || n.properties[0].type == 'D' || n.properties[0].type == 'F') {
            error = error_at(n, fmt::format("object '{}' has no integer id first", detail::excerpt(n.name)));
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
        // An id used again (some exporters' files): the first object owns the id and its
        // connections; the later one is kept apart, renamed, reachable by nothing.
        if (!by_id_.emplace(o.id, uint32_t(list.size())).second) {
            ++repeated;
            o.name += fmt::format(" ({})", ++times_seen[o.id] + 1);
        }
        list.push_back(std::move(o));
    }
    parents.assign(list.size(), {});
    children.assign(list.size(), {});
    const Node* connections = doc.root.child("Connections");
    if (!connections) return true;
    for (const Node& c : connections->children) {
        if (c.name != "C") continue;
        // The kind says what the ids link: "OO" and "OP" an object to an object or to one of its
        // properties (docs/fbx.md §2); "PP" and "PO" start from a property and hold its name
        // after the id, so their layout differs. Those are left out.
        if (!c.properties.empty() && c.properties[0].type == 'S' && c.properties[0].text != "OO" && c.properties[0].text != "OP") {
            ++other_connections;
            continue;
        }
        if (c.properties.size() < 3 || c.properties[1].type == 'S' || c.properties[2].type == 'S') {
            error = error_at(c, "a connection without its kind, child id and parent id");
            return false;
        }
        const auto child = by_id_.find(c.properties[1].integer);
        const auto parent = by_id_.find(c.properties[2].integer);
        // Links to the scene root (id 0) or to objects rigport does not index are left out.
        if (child == by_id_.end() || parent == by_id_.end()) continue;
        link(child->second, parent->second, c.properties.size() > 3 ? c.properties[3].text : std::string_view());
    }
    return true;
}

void Objects::link(uint32_t child, uint32_t parent, std::string_view property) {
    parents[child].push_back({parent, property});
    children[parent].push_back({child, property});
}

// 6.x: objects are named "Class::Name" and linked by those names (`Connect: "OO", child,
// parent`); a Mesh model holds its geometry itself, which becomes a Geometry object under it so
// the rest of the reader sees 7.x's shape (a Skin deformer linked to the model moves to it).
bool Objects::build_v6(const Node& objects, const Node* connections, Error& error) {
    std::vector<int> geometry_of;  // per object: its inline Geometry object, or -1
    std::unordered_map<std::string_view, uint32_t> times_seen;  // repeated names: how often seen again
    for (const Node& n : objects.children) {
        if (n.properties.empty() || n.properties[0].type != 'S') continue;  // GlobalSettings and other unnamed parts
        Object o;
        o.id = int64_t(list.size());
        o.kind = n.name;
        o.name = object_name(n.properties[0].text);
        if (n.properties.size() > 1) o.subclass = n.properties[1].text;
        o.node = &n;
        o.properties = n.child("Properties60");
        if (!by_name_.emplace(n.properties[0].text, uint32_t(list.size())).second) {
            ++repeated;
            o.name += fmt::format(" ({})", ++times_seen[n.properties[0].text] + 1);
        }
        const bool inline_geometry = n.name == "Model" && n.child("Vertices");
        Object g;
        if (inline_geometry) g = Object{o.id + 1, "Geometry", o.name, "Mesh", &n, nullptr, nullptr};
        list.push_back(std::move(o));
        geometry_of.push_back(inline_geometry ? int(list.size()) : -1);
        if (inline_geometry) {
            list.push_back(std::move(g));
            geometry_of.push_back(-1);
        }
    }
    parents.assign(list.size(), {});
    children.assign(list.size(), {});
    for (uint32_t i = 0; i < list.size(); ++i)
        if (geometry_of[i] >= 0) link(uint32_t(geometry_of[i]), i, {});
    if (!connections) return true;
    for (const Node& c : connections->children) {
        if (c.name != "Connect") continue;
        if (!c.properties.empty() && c.properties[0].type == 'S' && c.properties[0].text != "OO" && c.properties[0].text != "OP") {
            ++other_connections;
            continue;
        }
        if (c.properties.size() < 3 || c.properties[1].type != 'S' || c.properties[2].type != 'S') {
            error = error_at(c, "a connection without its kind, child name and parent name");
            return false;
        }
        const uint32_t child = find(c.properties[1].text), parent = find(c.properties[2].text);
        if (child == UINT32_MAX || parent == UINT32_MAX) continue;
        const bool to_geometry = list[child].kind == "Deformer" && geometry_of[parent] >= 0;
        link(child, to_geometry ? uint32_t(geometry_of[parent]) : parent, c.properties.size() > 3 ? c.properties[3].text : std::string_view());
    }
    return true;
}

uint32_t Objects::find(std::string_view stored_name) const {
    auto it = by_name_.find(stored_name);
    return it == by_name_.end() ? UINT32_MAX : it->second;
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

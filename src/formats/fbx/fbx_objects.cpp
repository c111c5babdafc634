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
    // Properties70: P: name, type, label, flags, values; 6.x Properties60: Property: name, type,
    // flags, values; 5.x: plain children, `Name: values` (a material's `Diffuse: r, g, b`).
    const bool p70 = properties->name == "Properties70";
    if (!p70 && properties->name != "Properties60") {
        first_value = 0;
        return properties->child(name);
    }
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
    const bool built = build_objects(doc, error);
    pack_links();
    return built;
}

void Objects::pack_links() {
    // A counting sort by object, stable, so each object's links keep the order they were made in.
    auto pack = [&](LinkLists& out, bool by_child) {
        out.offsets_.assign(list.size() + 1, 0);
        for (const Made& m : made_links_) ++out.offsets_[(by_child ? m.child : m.parent) + 1];
        for (size_t i = 0; i < list.size(); ++i) out.offsets_[i + 1] += out.offsets_[i];
        out.links_.resize(made_links_.size());
        std::vector<uint32_t> next(out.offsets_.begin(), out.offsets_.end() - 1);
        for (const Made& m : made_links_)
            out.links_[next[by_child ? m.child : m.parent]++] = Link{by_child ? m.parent : m.child, m.property};
    };
    pack(parents, true);
    pack(children, false);
    made_links_.clear();
    made_links_.shrink_to_fit();
}

bool Objects::build_objects(const Document& doc, Error& error) {
    if (doc.version < 6000) return build_v5(doc);
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

void Objects::link(uint32_t child, uint32_t parent, std::string_view property) { made_links_.push_back({child, parent, property}); }

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

namespace {

std::string_view text_of(const Node* n) { return n && !n->properties.empty() && n->properties[0].type == 'S' ? n->properties[0].text : std::string_view(); }

// 5.x: a model's place as the Default values of its Transform channels, `Channel: "Transform" {
// Channel: "T" | "R" | "S" { Channel: "X" | "Y" | "Z" { Default: v } } }`, as a node of plain
// children (`Lcl Translation: x, y, z` ...) that find_property reads; a channel left out keeps
// FBX's default.
Node transform_defaults(const Node* transform, Document& made) {
    Node out;
    out.name = "Transform";
    if (!transform) return out;
    std::vector<Node> channels;
    for (const Node& trs : transform->children) {
        const std::string_view which = trs.name == "Channel" ? text_of(&trs) : std::string_view();
        const std::string_view name = which == "T" ? "Lcl Translation" : which == "R" ? "Lcl Rotation" : which == "S" ? "Lcl Scaling" : "";
        if (name.empty() || std::any_of(channels.begin(), channels.end(), [&](const Node& c) { return c.name == name; })) continue;
        double d[3] = {0, 0, 0};
        if (which == "S") d[0] = d[1] = d[2] = 1;
        for (const Node& axis : trs.children) {
            const std::string_view a = axis.name == "Channel" ? text_of(&axis) : std::string_view();
            if (a.size() != 1 || a[0] < 'X' || a[0] > 'Z') continue;
            if (const Node* def = axis.child("Default"); def && !def->properties.empty() && def->properties[0].is_number())
                d[a[0] - 'X'] = def->properties[0].number;
        }
        Node& p = channels.emplace_back();
        p.name = name;
        p.offset = trs.offset;
        p.line = trs.line;
        p.properties = made.make<Property>(3);
        for (size_t k = 0; k < 3; ++k) {
            p.properties[k].type = 'D';
            p.properties[k].number = d[k];
        }
    }
    out.children = made.copy(std::span<const Node>(channels));
    return out;
}

}  // namespace

// 5.x (docs/fbx.md §2.1): no Objects and no Connections. Models stand at the top level, named
// "Model::Name" (ASCII) or "Name" (binary); each holds its geometry, its materials (`Material:`
// children with plain values) and its skin (a `Link: "Model::Bone"` child per bone, with a 6.x
// cluster's Indexes, Weights, Transform and TransformLink) itself, names its children in
// `Children`, and has its place only as the Default values of its Transform channels: in the
// model itself (binary 5.0) or in the takes (the current take first). The same objects and links
// as a 6.x file's are made of it: a Geometry under the model, a Skin under the geometry, a
// Cluster per Link under the skin, the bone model under its cluster.
bool Objects::build_v5(const Document& doc) {
    // The takes' channels by model name: the current take's first, then the others'.
    std::unordered_map<std::string_view, const Node*> take_channels;
    if (const Node* takes = doc.root.child("Takes")) {
        const std::string_view current = text_of(takes->child("Current"));
        for (const bool first : {true, false})
            for (const Node& t : takes->children) {
                if (t.name != "Take" || (text_of(&t) == current) != first) continue;
                for (const Node& m : t.children)
                    if (m.name == "Model" && !text_of(&m).empty())
                        for (const Node& c : m.children)
                            if (c.name == "Channel" && text_of(&c) == "Transform") take_channels.emplace(text_of(&m), &c);
            }
    }
    std::vector<uint32_t> models;
    std::unordered_map<std::string_view, uint32_t> times_seen;
    for (const Node& n : doc.root.children) {
        if (n.name != "Model" || text_of(&n).empty()) continue;
        const std::string_view stored = text_of(&n);
        Object o;
        o.id = int64_t(list.size());
        o.kind = "Model";
        o.name = object_name(stored);
        o.subclass = text_of(n.child("Type"));
        o.node = &n;
        // Its place: a Properties60 where the file has one, else its own Transform channels'
        // defaults, else those of the takes.
        o.properties = n.child("Properties60");
        if (!o.properties) {
            const Node* own = nullptr;
            for (const Node& c : n.children)
                if (c.name == "Channel" && text_of(&c) == "Transform") {
                    own = &c;
                    break;
                }
            if (own)
                for (const Node& trs : own->children)
                    for (const Node& axis : trs.children)
                        if (axis.child("Key")) ++model_channel_keys;
            const auto in_take = take_channels.find(stored);
            o.properties = &synthetic_.emplace_back(transform_defaults(own ? own : in_take == take_channels.end() ? nullptr : in_take->second, made_));
        }
        if (!by_name_.emplace(stored, uint32_t(list.size())).second) {
            ++repeated;
            o.name += fmt::format(" ({})", ++times_seen[stored] + 1);
        }
        const uint32_t model = uint32_t(list.size());
        models.push_back(model);
        list.push_back(std::move(o));
        auto add = [&](Object x) {
            x.id = int64_t(list.size());
            list.push_back(std::move(x));
            return uint32_t(list.size() - 1);
        };
        for (const Node& c : n.children)
            if (c.name == "Material" && !text_of(&c).empty())
                link(add(Object{0, "Material", object_name(text_of(&c)), "", &c, &c, nullptr}), model, {});
        if (n.child("Vertices")) {
            const uint32_t geometry = add(Object{0, "Geometry", list[model].name, "Mesh", &n, nullptr, nullptr});
            link(geometry, model, {});
            uint32_t skin = UINT32_MAX;
            for (const Node& c : n.children) {
                if (c.name != "Link" || text_of(&c).empty()) continue;
                if (skin == UINT32_MAX) {
                    skin = add(Object{0, "Deformer", list[model].name, "Skin", &n, nullptr, nullptr});
                    link(skin, geometry, {});
                }
                link(add(Object{0, "Deformer", object_name(text_of(&c)), "Cluster", &c, nullptr, nullptr}), skin, {});
            }
        }
    }
    // Links by name, once every model is known: children under their parent, bones under the
    // clusters that follow them.
    for (uint32_t m : models) {
        const Node& n = *list[m].node;
        if (find(text_of(&n)) != m) continue;  // a repeated name: linked to nothing
        if (const Node* kids = n.child("Children"))
            for (const Property& p : kids->properties) {
                const uint32_t c = p.type == 'S' ? find(p.text) : UINT32_MAX;
                if (c != UINT32_MAX && list[c].kind == "Model" && c != m) link(c, m, {});
            }
    }
    for (uint32_t i = 0; i < list.size(); ++i)
        if (list[i].kind == "Deformer" && list[i].subclass == "Cluster")
            if (const uint32_t bone = find(text_of(list[i].node)); bone != UINT32_MAX && list[bone].kind == "Model") link(bone, i, {});
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

// FBX objects and their links (docs/fbx.md §2.1): `Objects` children by id (7.x) or by name (6.x,
// whose meshes hold their geometry inline: a Geometry object is made for it; 5.x, whose top-level
// models hold their geometry, materials and skin), `Connections` both ways (5.x: `Children` and
// `Link` names), and `Properties70` (6.x `Properties60`, 5.x plain values) with the `Definitions`
// templates as defaults.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/fbx/fbx_document.hpp"

namespace rigport::fbx {

struct Object {
    int64_t id = 0;
    std::string_view kind;      // the node's name: Model, Geometry, Deformer, AnimationCurve ...
    std::string name;           // "pCube1" (from "Model::pCube1" or "pCube1\0\1Model")
    std::string_view subclass;  // Mesh, LimbNode, Skin, Cluster, ... (may be empty)
    const Node* node = nullptr;
    const Node* properties = nullptr;  // Properties70 (6.x Properties60, 5.x a node of plain values), may be null
    const Node* defaults = nullptr;    // its kind's PropertyTemplate, may be null
};

struct Link {
    uint32_t object = 0;    // index into Objects::list
    std::string_view property;  // "OP" links: the property the child drives ("Lcl Translation", "d|X")
};

// The links of every object, packed: object i's are one span, in the order the file makes them
// (one list for all, not a vector per object: a file has thousands of links).
class LinkLists {
public:
    std::span<const Link> operator[](uint32_t i) const {
        return i + 1 < offsets_.size() ? std::span<const Link>(links_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]) : std::span<const Link>();
    }

private:
    friend class Objects;
    std::vector<uint32_t> offsets_;  // objects + 1
    std::vector<Link> links_;
};

class Objects {
public:
    // Indexes `doc`; false with `error` set when the layout is broken. Links to the scene
    // root (id 0, "Model::Scene") or to objects not indexed are left out.
    bool build(const Document& doc, Error& error);
    // The object a 6.x file names so ("Model::Bottom"), or UINT32_MAX.
    uint32_t find(std::string_view stored_name) const;

    std::vector<Object> list;
    // Per object: what it is linked to (its parents) and what is linked to it (its children).
    LinkLists parents, children;
    // Connections of kinds other than object-object and object-property ("PP", "PO": links
    // between properties, which rigport gives no meaning), left out for the reader to warn about.
    uint64_t other_connections = 0;
    // Objects whose id (6.x: name) an earlier object already has: kept apart, renamed "NAME (2)",
    // linked to nothing (connections name the first), for the reader to warn about.
    uint64_t repeated = 0;
    // 5.x: keyed channels a model holds itself, outside the takes (not read: their Default values
    // give the model's place), for the reader to warn about.
    uint64_t model_channel_keys = 0;

    const Object& operator[](uint32_t i) const { return list[i]; }
    // Children of `i` of one kind ("Model", "Deformer" ...), in connection order.
    std::vector<uint32_t> children_of(uint32_t i, std::string_view kind) const;
    std::vector<uint32_t> parents_of(uint32_t i, std::string_view kind) const;

private:
    bool build_objects(const Document& doc, Error& error);
    bool build_v6(const Node& objects, const Node* connections, Error& error);
    // Packs the links made into `parents` and `children`, each object's in the order made.
    void pack_links();
    bool build_v5(const Document& doc);
    void link(uint32_t child, uint32_t parent, std::string_view property);

    struct Made {
        uint32_t child, parent;
        std::string_view property;
    };
    std::vector<Made> made_links_;  // as link() makes them, until pack_links()
    std::unordered_map<int64_t, uint32_t> by_id_;
    std::unordered_map<std::string_view, uint32_t> by_name_;
    std::deque<Node> synthetic_;  // 5.x: nodes made for what the file says elsewhere (a model's place)
    Document made_;               // where their children and values live
};

// One property of an object: its P node's values after name, type, label and flags, or the
// template's; null when neither has it.
const Node* find_property(const Object& object, std::string_view name, size_t& first_value);
double property_number(const Object& object, std::string_view name, double fallback);
std::array<double, 3> property_vec3(const Object& object, std::string_view name, std::array<double, 3> fallback);
std::string_view property_text(const Object& object, std::string_view name);

// GlobalSettings' property list: top-level Properties70 in 7.x, inside Objects as Properties60
// in 6.x; null when absent.
const Node* settings_properties(const Document& doc);

// "Model::pCube1" (ASCII) or "pCube1\0\1Model" (binary) -> "pCube1".
std::string object_name(std::string_view stored);

}  // namespace rigport::fbx

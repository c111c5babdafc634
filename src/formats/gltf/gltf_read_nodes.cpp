// glTF reader: the node tree (glTF 2.0 §3.5): children checked (one parent each, no cycles),
// matrices decomposed to TRS, the scene to load, and every node's world matrix at rest.
#include <fmt/format.h>

#include <cmath>

#include "model/decompose.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

std::string label(const NodeInfo& n, uint32_t i) { return n.name.empty() ? fmt::format("node {}", i) : fmt::format("node {} '{}'", i, detail::excerpt(n.name)); }

bool read_node(Reader& r, uint32_t i, std::vector<NodeInfo>& nodes) {
    const std::string path = fmt::format("/nodes/{}", i);
    const Json* j = r.item("nodes", i);
    NodeInfo& n = nodes[i];
    if (!j || !r.string(*j, "name", path, n.name) || !r.index(*j, "mesh", path, n.mesh, false, "meshes", r.count("meshes")) ||
        !r.index(*j, "skin", path, n.skin, false, "skins", r.count("skins")))
        return false;
    if (const Json* children = r.array(*j, "children", path)) {
        for (size_t k = 0; k < children->size(); ++k) {
            uint32_t c = 0;
            const std::string at = fmt::format("{}/children/{}", path, k);
            if (!r.index_value((*children)[k], at, c, "nodes", nodes.size())) return false;
            if (c == i) return r.malformed(at, fmt::format("{} is its own child (a cycle)", label(n, i)));
            if (nodes[c].parent == int64_t(i)) return r.malformed(at, fmt::format("node {} is listed twice", c));
            if (nodes[c].parent >= 0)
                return r.malformed(at, fmt::format("node {} has two parents: node {} and node {}", c, nodes[c].parent, i));
            nodes[c].parent = i;
            n.children.push_back(c);
        }
    }
    if (!r.ok()) return false;
    float values[16];
    if (r.find(*j, "matrix")) {
        if (!r.numbers(*j, "matrix", path, values, 16)) return false;
        for (int c = 0; c < 4; ++c)
            for (int row = 0; row < 4; ++row) n.local[c][row] = values[c * 4 + row];
        if (n.local[0][3] != 0 || n.local[1][3] != 0 || n.local[2][3] != 0 || n.local[3][3] != 1) {
            r.warn(WarningCode::Ignored, fmt::format("{}: matrix is not affine (last row not 0 0 0 1); the row was ignored", path));
            n.local[0][3] = n.local[1][3] = n.local[2][3] = 0, n.local[3][3] = 1;
        }
        if (r.find(*j, "translation") || r.find(*j, "rotation") || r.find(*j, "scale"))
            r.warn(WarningCode::Ignored, fmt::format("{}: both matrix and TRS given; the matrix is used", path));
        n.trs = decompose(n.local, n.sheared);
        return true;
    }
    if (!r.numbers(*j, "translation", path, n.trs.translate.data(), 3) || !r.numbers(*j, "rotation", path, n.trs.rotate.data(), 4) ||
        !r.numbers(*j, "scale", path, n.trs.scale.data(), 3))
        return false;
    double len = 0;
    for (float c : n.trs.rotate) len += double(c) * c;
    len = std::sqrt(len);
    if (!(len > 1e-6)) {
        r.warn(WarningCode::NonUnitQuaternion, fmt::format("{}/rotation: zero quaternion read as identity", path));
        n.trs.rotate = {0, 0, 0, 1};
    } else if (std::fabs(len - 1.0) > 1e-6) {
        if (std::fabs(len - 1.0) > 1e-3) r.warn(WarningCode::NonUnitQuaternion, "node rotation quaternion normalized");
        for (auto& c : n.trs.rotate) c = float(c / len);
    }
    n.local = transform_matrix(n.trs);
    return true;
}

}  // namespace

bool read_nodes(Reader& r, Plan& plan) {
    std::vector<NodeInfo>& nodes = plan.nodes;
    const size_t count = r.count("nodes");
    if (count > r.options.max_elements)
        return r.fail(ErrorCode::LimitExceeded, "/nodes", fmt::format("{} nodes exceed max_elements {}", count, r.options.max_elements));
    nodes.assign(count, NodeInfo{});
    for (uint32_t i = 0; i < count; ++i)
        if (!read_node(r, i, nodes)) return false;

    // World matrices parent-first from every parentless node; nodes not reached hang in cycles
    // (each node has one parent at most).
    std::vector<uint32_t> stack;
    for (uint32_t i = count; i-- > 0;)
        if (nodes[i].parent < 0) stack.push_back(i);
    std::vector<bool> reached(count, false);
    while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        reached[i] = true;
        plan.order.push_back(i);
        NodeInfo& n = nodes[i];
        n.world = n.parent >= 0 ? multiply(nodes[n.parent].world, n.local) : n.local;
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back(*it);
    }
    for (uint32_t i = 0; i < count; ++i)
        if (!reached[i]) return r.malformed(fmt::format("/nodes/{}", i), fmt::format("{} is part of a cycle of children", label(nodes[i], i)));

    // The scene: `scene`, else scene 0, else every parentless node.
    std::vector<uint32_t> roots;
    const size_t scenes = r.count("scenes");
    uint32_t scene = 0;
    if (!r.index(r.root, "scene", "", scene, false, "scenes", scenes)) return false;
    if (scenes > 0) {
        const std::string path = fmt::format("/scenes/{}", scene);
        const Json* s = r.item("scenes", scene);
        const Json* list = s ? r.array(*s, "nodes", path) : nullptr;
        if (!r.ok()) return false;
        for (size_t k = 0; list && k < list->size(); ++k) {
            uint32_t n = 0;
            const std::string at = fmt::format("{}/nodes/{}", path, k);
            if (!r.index_value((*list)[k], at, n, "nodes", count)) return false;
            if (nodes[n].parent >= 0) return r.malformed(at, fmt::format("{} is not a root: it is a child of node {}", label(nodes[n], n), nodes[n].parent));
            if (!nodes[n].in_scene) roots.push_back(n);
            nodes[n].in_scene = true;
        }
        if (scenes > 1) r.warn(WarningCode::DroppedData, fmt::format("the file has {} scenes; only scene {} was read", scenes, scene));
    } else {
        for (uint32_t i = 0; i < count; ++i)
            if (nodes[i].parent < 0) roots.push_back(i);
    }
    stack = roots;
    while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        nodes[i].in_scene = true;
        for (uint32_t c : nodes[i].children) stack.push_back(c);
    }
    uint32_t outside = 0;
    for (auto& n : nodes) outside += !n.in_scene && n.mesh != none;
    if (outside) r.warn(WarningCode::DroppedData, fmt::format("{} nodes with meshes are not in the scene read and were ignored", outside));
    return true;
}

}  // namespace rigport::gltf::read_detail

// Adjacency internals: endpoint keys a file format supplies (IQM keys on its stored numbers) and the
// comparison of stored adjacency with a correct computation (IQM validation). Not public API.
#pragma once

#include <cstdint>
#include <vector>

#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// What makes two vertices one endpoint: vertex v's key is words[begin[v] .. begin[v+1]), and
// vertices with equal keys are one endpoint. A file format keys on the numbers it stores (an IQM
// file: src/formats/iqm/iqm_adjacency.cpp), so a reader of the file finds the same edges as its writer.
struct EndpointKeys {
    std::vector<uint64_t> words;
    std::vector<uint32_t> begin{0};  // vertex count + 1
    void end_vertex() { begin.push_back(uint32_t(words.size())); }
    uint32_t vertex_count() const { return uint32_t(begin.size() - 1); }
};
// Triangles numbering vertices globally; an index without a key matches nothing.
std::vector<Triangle> compute_adjacency(const std::vector<Triangle>& triangles, const EndpointKeys& keys);
// The same in two steps, so the keys can be freed before the edges are matched: each vertex's
// endpoint number (equal keys, equal number; `count` receives how many), then the adjacency.
std::vector<uint32_t> number_endpoints(const EndpointKeys& keys, uint32_t& count);
std::vector<Triangle> compute_adjacency(const std::vector<Triangle>& triangles, const std::vector<uint32_t>& endpoint, uint32_t count);

struct AdjacencyComparison {
    uint64_t valid = 0;      // entry equals the correct neighbour
    uint64_t wrong = 0;      // entry names a triangle that is not the correct neighbour
    uint64_t missing = 0;    // entry is no_neighbor but a neighbour exists
    uint64_t open = 0;       // both say no neighbour
    uint64_t extra = 0;      // entry names a triangle where the correct answer is no_neighbor
};
AdjacencyComparison compare_adjacency(const std::vector<Triangle>& stored,
                                      const std::vector<Triangle>& correct);

}  // namespace rigport

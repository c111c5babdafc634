// IQM adjacency keyed on what the file stores (iqm-iqe.md §1.6): the writer and `validate` both
// call this, so a reader recomputing the adjacency from the file finds what the writer stored.
#include <algorithm>
#include <cstring>

#include "formats/iqm/iqm_layout.hpp"
#include "process/adjacency.hpp"
#include "rigport/process.hpp"

namespace rigport::iqm {

namespace {

// The bits of a stored number (exact for every component format), -0 folded into +0.
uint64_t stored_bits(double value) {
    value += 0.0;
    uint64_t b;
    std::memcpy(&b, &value, 8);
    return b;
}

const VertexArray* first_array(const IqmFile& f, uint32_t type) {
    for (auto& va : f.vertexarrays)
        if (va.type == type) return &va;  // a later duplicate is ignored, as the reader does
    return nullptr;
}

// Per vertex: the stored position numbers, then the (index, weight) slots whose stored weight
// is not 0, sorted. Keys on the scene's float weights would split corners whose weights differ
// (6e-8 and 0) but are stored as the same byte.
EndpointKeys adjacency_keys(const IqmFile& f) {
    const VertexArray* position = first_array(f, IQM_POSITION);
    const VertexArray* indexes = first_array(f, IQM_BLENDINDEXES);
    const VertexArray* weights = first_array(f, IQM_BLENDWEIGHTS);
    if (!indexes || !weights) indexes = weights = nullptr;
    const uint32_t slots = indexes ? std::min(indexes->size, weights->size) : 0;
    EndpointKeys keys;
    std::vector<std::pair<uint64_t, uint64_t>> blend;
    for (uint64_t v = 0; v < f.header.num_vertexes; ++v) {
        if (position)
            for (uint64_t k = v * position->size; k < (v + 1) * position->size && k < position->values.size(); ++k)
                keys.words.push_back(stored_bits(position->values[k]));
        blend.clear();
        for (uint64_t k = 0; k < slots; ++k) {
            const uint64_t i = v * indexes->size + k, w = v * weights->size + k;
            if (i < indexes->values.size() && w < weights->values.size() && weights->values[w] != 0)
                blend.push_back({stored_bits(indexes->values[i]), stored_bits(weights->values[w])});
        }
        std::sort(blend.begin(), blend.end());
        for (auto& [index, weight] : blend) keys.words.insert(keys.words.end(), {index, weight});
        keys.end_vertex();
    }
    return keys;
}

}  // namespace

std::vector<Triangle> compute_adjacency(const IqmFile& f) { return rigport::compute_adjacency(f.triangles, adjacency_keys(f)); }

}  // namespace rigport::iqm

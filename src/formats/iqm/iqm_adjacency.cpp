// IQM adjacency keyed on what the file stores (docs/iqm.md §1.6): the writer and `validate` both
// call this, so a reader recomputing the adjacency from the file finds what the writer stored.
#include <algorithm>
#include <cstring>

#include "formats/iqm/iqm_write_parts.hpp"
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
    std::vector<std::pair<uint64_t, uint64_t>> scratch;
    // The numbers a short array (a parsed file's) holds for vertex v, at most `n` of them.
    auto stored = [](const VertexArray* va, uint64_t v, uint64_t n) -> std::span<const double> {
        if (!va || n == 0) return {};
        const uint64_t at = v * va->size;
        if (at >= va->values.size()) return {};
        return {va->values.data() + at, size_t(std::min<uint64_t>(n, va->values.size() - at))};
    };
    for (uint64_t v = 0; v < f.header.num_vertexes; ++v) {
        auto i = stored(indexes, v, slots), w = stored(weights, v, slots);
        const size_t both = std::min(i.size(), w.size());  // a slot needs both numbers
        write_detail::append_endpoint_key(keys, stored(position, v, position ? position->size : 0), i.first(both), w.first(both), scratch);
    }
    return keys;
}

}  // namespace

void write_detail::append_endpoint_key(EndpointKeys& keys, std::span<const double> position, std::span<const double> indexes,
                                       std::span<const double> weights, std::vector<std::pair<uint64_t, uint64_t>>& scratch) {
    for (double p : position) keys.words.push_back(stored_bits(p));
    scratch.clear();
    for (size_t k = 0; k < indexes.size() && k < weights.size(); ++k)
        if (weights[k] != 0) scratch.push_back({stored_bits(indexes[k]), stored_bits(weights[k])});
    std::sort(scratch.begin(), scratch.end());
    for (auto& [index, weight] : scratch) keys.words.insert(keys.words.end(), {index, weight});
    keys.end_vertex();
}

std::vector<Triangle> compute_adjacency(const IqmFile& f) { return rigport::compute_adjacency(f.triangles, adjacency_keys(f)); }

}  // namespace rigport::iqm

// Internal pieces of the IQM writer (iqm_write*.cpp, iqm_serialize.cpp): the text table, the
// plan of vertex arrays, animation quantization and the byte layout. Not part of the API.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/iqm/iqm.hpp"
#include "process/adjacency.hpp"

namespace rigport::iqm::write_detail {

inline constexpr uint64_t uint32_limit = UINT32_MAX;

inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// ---- text table (§1.4) -------------------------------------------------------------------------

// Deduplicated NUL-terminated strings in first-use order; offset 0 is "". Stays empty until the
// first string is added, so a file without names has no text block (as the compiler does).
class TextTable {
public:
    uint32_t add(const std::string& s) {
        std::string key(std::string_view(s.c_str()));  // a name ends at its first NUL on disk
        if (data_.empty()) {
            data_.push_back('\0');
            offsets_.emplace("", 0);
        }
        auto [it, inserted] = offsets_.emplace(key, uint32_t(data_.size()));
        if (inserted) data_.insert(data_.end(), key.c_str(), key.c_str() + key.size() + 1);
        return it->second;
    }
    std::vector<char> finish() {
        data_.resize(round_up(data_.size(), 4), '\0');
        return std::move(data_);
    }

private:
    std::vector<char> data_;
    std::unordered_map<std::string, uint32_t> offsets_;
};

// Where an output array takes its numbers from. Extra texcoord / colour sets become float
// custom arrays; named custom arrays are matched across meshes by name.
enum class Source : uint8_t { Position, Texcoord, Normal, Tangent, BlendIndexes, BlendWeights, Color, Custom };

struct ArrayPlan {
    Source source = Source::Position;
    uint32_t set = 0;   // texcoord / colour set
    std::string name;   // custom arrays
    uint32_t type = 0;  // IQM type (custom: 16 + text offset, filled in later)
    ComponentType format = ComponentType::Float32;
    uint32_t size = 3;
};

// Vertex-array records in canonical order (customs last, by name), each with a chosen format.
std::vector<ArrayPlan> plan_arrays(const Scene& scene);
// What write() keeps of the vertex arrays instead of their raw numbers (8 bytes each, three
// times the file's own): each array's bytes as serialize() lays them out, and the adjacency's
// endpoint keys, built from the raw numbers before those are gone.
struct LeanArrays {
    std::vector<std::vector<uint8_t>> bytes;  // per vertex array, in file.vertexarrays order
    EndpointKeys keys;                        // empty without triangles
};

// Fills file.vertexarrays from the meshes; blend weights rounded as the compiler does. threads:
// 0 = every core, 1 = this thread only (the same values either way). With `lean` the records
// get no values: their bytes and the adjacency keys go there.
void fill_arrays(const Scene& scene, std::vector<ArrayPlan>& plans, IqmFile& file, Warnings* warnings, uint32_t threads,
                 LeanArrays* lean = nullptr);
// One vertex's endpoint key as compute_adjacency(IqmFile) forms it (iqm_adjacency.cpp): its
// stored position numbers, then the (index, weight) slots whose weight is not 0, sorted.
void append_endpoint_key(EndpointKeys& keys, std::span<const double> position, std::span<const double> indexes,
                         std::span<const double> weights, std::vector<std::pair<uint64_t, uint64_t>>& scratch);

using Frames = std::vector<std::array<float, 10>>;  // [frame][joint] channels
// Poses, frames and anim records, channels quantized over all frames of all animations; returns
// the frames as a reader will decode them.
Expected<Frames> build_animations(const Scene& scene, TextTable& text, IqmFile& file);
// Bounds of the decoded frames (so a rewrite of a file that was read gives the same bytes).
std::vector<FrameBounds> decoded_bounds(const Scene& scene, const Frames& decoded, uint32_t threads);

// Every offset and count of the file as serialize() lays it out. filesize is 64-bit so that a
// file too large for IQM's uint32 fields can be detected before anything is written.
struct Layout {
    Header header;
    std::vector<uint32_t> array_offsets;
    std::vector<uint32_t> extension_offsets;
    uint64_t vertex_start = 0;  // the 8-aligned start of the vertex data
    uint64_t filesize = 0;
};
Layout plan_layout(const IqmFile& f);
// serialize() with the vertex arrays encoded on `threads` threads (0 = every core): the same bytes.
// With `encoded` (LeanArrays::bytes) the arrays are those bytes, freed once copied.
std::vector<uint8_t> serialize(const IqmFile& file, uint32_t threads, std::vector<std::vector<uint8_t>>* encoded = nullptr);

}  // namespace rigport::iqm::write_detail

// IQM writer, vertex arrays: canonical order and formats, the compiler's normalization and its
// ubyte blend weights (docs/iqm.md §1.5, §3.2 step 7).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "support/huge_pages.hpp"
#include "support/thread_pool.hpp"
#include "formats/iqm/iqm_write_parts.hpp"

namespace rigport::iqm::write_detail {

static bool is_integer(ComponentType t) { return t != ComponentType::Half && t != ComponentType::Float32 && t != ComponentType::Float64; }

// ---- vertex arrays (§1.5) ----------------------------------------------------------------------


// The source's own format for a standard attribute when rewriting an IQM, or as an IQE's
// `vertexarray` lines declare it, so for example half texcoords stay half; the recommended one
// otherwise.
static void choose_format(const Scene& scene, Attribute attribute, ArrayPlan& plan) {
    if (scene.meta.source_format != "iqm" && scene.meta.source_format != "iqe") return;
    for (auto& af : scene.meta.attribute_formats)
        if (af.attribute == attribute && af.set == 0 && af.size >= 1 && af.size <= 4 &&
            uint32_t(af.type) <= max_format) {
            plan.format = af.type;
            plan.size = af.size;
            return;
        }
}

// A custom name not used by any named custom array (for the generated texcoordN / colorN).
static std::string free_name(std::string name, const std::vector<ArrayPlan>& named) {
    auto taken = [&](const std::string& n) {
        return std::any_of(named.begin(), named.end(), [&](auto& p) { return p.name == n; });
    };
    while (taken(name)) name += '_';
    return name;
}

std::vector<ArrayPlan> plan_arrays(const Scene& scene) {
    bool texcoord = false, normal = false, tangent = false, skinned = false, color = false;
    size_t texcoord_sets = 0, color_sets = 0;
    std::vector<ArrayPlan> named;  // custom arrays by name, first-seen order
    for (auto& m : scene.meshes) {
        texcoord |= !m.texcoords.empty();
        normal |= !m.normals.empty();
        tangent |= !m.tangents.empty();
        skinned |= !m.skin.empty() && !m.skin.influences.empty();
        color |= !m.colors.empty();
        texcoord_sets = std::max(texcoord_sets, m.texcoords.size());
        color_sets = std::max(color_sets, m.colors.size());
        for (auto& c : m.custom) {
            auto it = std::find_if(named.begin(), named.end(), [&](auto& p) { return p.name == c.name; });
            if (it == named.end()) {
                named.push_back({Source::Custom, 0, c.name, IQM_CUSTOM, c.type, std::clamp(c.size, 1u, 4u)});
            } else {
                it->size = std::max(it->size, std::clamp(c.size, 1u, 4u));  // the first type wins
            }
        }
    }
    std::vector<ArrayPlan> plans;
    if (scene.vertex_count() == 0) return plans;
    auto standard = [&](Source s, Attribute a, uint32_t type, ComponentType f, uint32_t size) {
        ArrayPlan p{s, 0, {}, type, f, size};
        choose_format(scene, a, p);
        plans.push_back(p);
    };
    standard(Source::Position, Attribute::Position, IQM_POSITION, ComponentType::Float32, 3);
    if (texcoord) standard(Source::Texcoord, Attribute::Texcoord, IQM_TEXCOORD, ComponentType::Float32, 2);
    if (normal) standard(Source::Normal, Attribute::Normal, IQM_NORMAL, ComponentType::Float32, 3);
    if (tangent) standard(Source::Tangent, Attribute::Tangent, IQM_TANGENT, ComponentType::Float32, 4);
    if (skinned) {
        standard(Source::BlendIndexes, Attribute::BlendIndexes, IQM_BLENDINDEXES, ComponentType::UInt8, 4);
        standard(Source::BlendWeights, Attribute::BlendWeights, IQM_BLENDWEIGHTS, ComponentType::UInt8, 4);
    }
    if (color) standard(Source::Color, Attribute::Color, IQM_COLOR, ComponentType::UInt8, 4);
    for (uint32_t s = 1; s < texcoord_sets; ++s)
        plans.push_back({Source::Texcoord, s, free_name(fmt::format("texcoord{}", s), named), IQM_CUSTOM, ComponentType::Float32, 2});
    for (uint32_t s = 1; s < color_sets; ++s)
        plans.push_back({Source::Color, s, free_name(fmt::format("color{}", s), named), IQM_CUSTOM, ComponentType::Float32, 4});
    plans.insert(plans.end(), named.begin(), named.end());
    return plans;
}

// Up to four influences of one vertex, heaviest first, weights renormalized to sum 1.
struct Blend {
    std::array<uint32_t, 4> joint{};
    std::array<double, 4> weight{};
    uint32_t used = 0;
    bool exact = false;  // already ubyte weights k/255 summing to 255: kept as they are
};

// True when the influences are what an IQM reader makes of ubyte weights: each k/255 and the
// k summing to 255. Those are kept in their order, so a file round-trips byte for byte even
// when its weights are not sorted.
static bool exact_ubyte(const std::vector<Influence>& influences, uint32_t slots) {
    if (influences.empty() || influences.size() > slots) return false;
    int total = 0;
    for (auto& inf : influences) {
        if (!(inf.weight > 0 && inf.weight <= 1)) return false;  // also NaN and infinity
        int k = int(std::lround(double(inf.weight) * 255));
        if (float(k / 255.0) != inf.weight) return false;
        total += k;
    }
    return total == 255;
}

// The heaviest `slots` positive influences (ties keep their order), renormalized in double
// as the compiler does (multiplying by the reciprocal of the total).
static Blend select_blend(const Mesh& mesh, uint32_t v, uint32_t slots, std::vector<Influence>& scratch, bool& dropped) {
    Blend b;
    const auto& skin = mesh.skin;
    if (skin.empty()) return b;
    scratch.clear();
    for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i)
        if (skin.influences[i].weight > 0) scratch.push_back(skin.influences[i]);
    if (exact_ubyte(scratch, slots)) {
        b.exact = true;
        b.used = uint32_t(scratch.size());
        for (uint32_t k = 0; k < b.used; ++k) b.joint[k] = scratch[k].joint, b.weight[k] = scratch[k].weight;
        return b;
    }
    std::stable_sort(scratch.begin(), scratch.end(), [](auto& a, auto& c) { return a.weight > c.weight; });
    dropped = scratch.size() > slots;
    b.used = uint32_t(std::min<size_t>(scratch.size(), slots));
    double total = 0;
    for (uint32_t k = 0; k < b.used; ++k) total += scratch[k].weight;
    if (!(total > 0) || !std::isfinite(total)) return Blend{};
    double inverse = 1.0 / total;
    for (uint32_t k = 0; k < b.used; ++k) {
        b.joint[k] = scratch[k].joint;
        b.weight[k] = double(scratch[k].weight) * inverse;
    }
    return b;
}

// Ubyte weights: rounded, then +-1 round-robin over the used slots until they sum to exactly
// 255 (docs/iqm.md §1.5, §4 `vb`). Unlike the compiler, which starts at slot 0 and so turns
// 0.5/0.5 into 127/128, excess is taken from the lightest slot first and a shortfall given to
// the heaviest, so the weights stay sorted. Slots whose weight ends at 0 lose their joint too.
static std::array<double, 4> ubyte_weights(Blend& b) {
    std::array<int, 4> q{};
    int total = 0;
    for (uint32_t k = 0; k < b.used; ++k)
        total += q[k] = b.exact ? int(std::lround(b.weight[k] * 255)) : int(0.5 + b.weight[k] * 255);
    while (b.used && total > 255)
        for (uint32_t k = b.used; k-- > 0;)
            if (q[k] > 0 && total > 255) --q[k], --total;
    while (b.used && total < 255)
        for (uint32_t k = 0; k < b.used; ++k)
            if (q[k] < 255 && total < 255) ++q[k], ++total;
    std::array<double, 4> out{};
    for (uint32_t k = 0; k < 4; ++k) {
        out[k] = q[k];
        if (q[k] == 0) b.joint[k] = 0;
    }
    return out;
}

// The largest joint index a blend-index format holds exactly.
static uint64_t max_index(ComponentType t) {
    switch (t) {
        case ComponentType::Int8: return 127;
        case ComponentType::UInt8: return 255;
        case ComponentType::Int16: return 32767;
        case ComponentType::UInt16: return 65535;
        case ComponentType::Half: return 2048;
        case ComponentType::Float32: return 1u << 24;
        case ComponentType::Int32: return INT32_MAX;
        default: return UINT32_MAX;
    }
}

// A standard attribute of one vertex as four numbers; what a mesh without the stream gets.
static std::array<double, 4> attribute_value(const Mesh& m, const ArrayPlan& p, uint32_t v) {
    switch (p.source) {
        case Source::Position: return {m.positions[v][0], m.positions[v][1], m.positions[v][2], 1};
        case Source::Normal:
            if (m.normals.empty()) return {0, 0, 0, 0};
            return {m.normals[v][0], m.normals[v][1], m.normals[v][2], 0};
        case Source::Tangent:
            if (m.tangents.empty()) return {0, 0, 0, 1};
            return {m.tangents[v][0], m.tangents[v][1], m.tangents[v][2], m.tangents[v][3]};
        case Source::Texcoord:
            if (p.set >= m.texcoords.size()) return {0, 0, 0, 0};
            return {m.texcoords[p.set][v][0], m.texcoords[p.set][v][1], 0, 0};
        case Source::Color:
            if (p.set >= m.colors.size()) return {1, 1, 1, 1};
            return {m.colors[p.set][v][0], m.colors[p.set][v][1], m.colors[p.set][v][2], m.colors[p.set][v][3]};
        default: return {0, 0, 0, 0};
    }
}

// The blend index and weight numbers of every global vertex, as written (§1.5). Switches the
// index format to int when a joint does not fit the chosen one.
struct BlendValues {
    std::vector<std::array<uint32_t, 4>> indexes;  // joints: whole numbers, half the bytes of doubles
    std::vector<std::array<double, 4>> weights;
    std::array<double, 4> index(uint64_t g) const {
        const auto& j = indexes[g];
        return {double(j[0]), double(j[1]), double(j[2]), double(j[3])};
    }
};

static BlendValues blend_values(const Scene& scene, ArrayPlan& index_plan, const ArrayPlan& weight_plan, Warnings* warnings,
                                uint32_t threads) {
    BlendValues out;
    out.indexes.resize(scene.vertex_count());
    out.weights.resize(scene.vertex_count());
    const uint32_t slots = weight_plan.size;
    const ComponentType format = weight_plan.format;
    // Each vertex writes only its own slots; the count and the largest joint do not depend on
    // the order they are combined in.
    std::atomic<uint64_t> dropped_vertices{0}, largest{0};
    uint64_t base = 0;  // the mesh's first global vertex
    for (auto& m : scene.meshes) {
        detail::parallel_for(m.vertex_count(), 1 << 14, threads, [&](size_t begin, size_t end) {
            std::vector<Influence> scratch;
            uint64_t dropped_here = 0, largest_here = 0;
            for (uint32_t v = uint32_t(begin); v < end; ++v) {
                bool dropped = false;
                Blend b = select_blend(m, v, slots, scratch, dropped);
                dropped_here += dropped;
                std::array<double, 4> w = b.weight;
                if (format == ComponentType::UInt8) {
                    w = ubyte_weights(b);
                } else if (is_integer(format)) {
                    for (auto& c : w) c = denormalize_component(c, format);
                }
                for (uint32_t k = 0; k < 4; ++k) largest_here = std::max<uint64_t>(largest_here, b.joint[k]);
                out.indexes[base + v] = b.joint;
                out.weights[base + v] = w;
            }
            dropped_vertices += dropped_here;
            for (uint64_t seen = largest.load(); seen < largest_here && !largest.compare_exchange_weak(seen, largest_here);) {
            }
        });
        base += m.vertex_count();
    }
    if (dropped_vertices && warnings)
        warnings->add(WarningCode::DroppedData, fmt::format("{} vertices have more than {} influences; the heaviest {} were kept",
                                                            dropped_vertices.load(), slots, slots));
    if (largest > max_index(index_plan.format)) {
        if (warnings)
            warnings->add(WarningCode::NonStandardFormat, fmt::format("joint index {} does not fit {} blend indexes; written as int",
                                                                      largest.load(), to_string(index_plan.format)));
        index_plan.format = ComponentType::Int32;
    }
    return out;
}

// One vertex's raw number for an array (its mesh's custom array of that name, if any; g: the
// global vertex): the values fill_arrays stores or encodes, and the adjacency keys' numbers.
static std::array<double, 4> raw_value(const Mesh& m, const ArrayPlan& p, const CustomArray* custom, uint32_t v, uint64_t g,
                                       const BlendValues& blends) {
    std::array<double, 4> value{};
    if (p.source == Source::BlendIndexes) return blends.index(g);
    if (p.source == Source::BlendWeights) return blends.weights[g];
    if (p.source == Source::Custom) {
        for (uint32_t k = 0; custom && k < std::min(custom->size, p.size); ++k) value[k] = custom->values[uint64_t(v) * custom->size + k];
        return value;
    }
    value = attribute_value(m, p, v);
    // The compiler normalizes integer formats of every standard attribute but blend indexes.
    if (is_integer(p.format) && p.set == 0)
        for (auto& c : value) c = denormalize_component(c, p.format);
    return value;
}

// The adjacency's endpoint keys from the raw numbers, exactly as compute_adjacency(IqmFile) forms
// them from the stored arrays (the writer's arrays are never short): the first position array,
// the blend slots of the first index and weight arrays.
struct KeyArrays {
    const ArrayPlan *position = nullptr, *indexes = nullptr, *weights = nullptr;
    uint32_t slots = 0;
    explicit KeyArrays(const std::vector<ArrayPlan>& plans) {
        auto find = [&](uint32_t type) {
            auto it = std::find_if(plans.begin(), plans.end(), [&](auto& p) { return p.type == type; });
            return it == plans.end() ? nullptr : &*it;
        };
        position = find(IQM_POSITION);
        indexes = find(IQM_BLENDINDEXES);
        weights = find(IQM_BLENDWEIGHTS);
        slots = indexes && weights ? std::min(indexes->size, weights->size) : 0;
    }
};

// Exactly the room the keys take, so filling them never reallocates.
static void reserve_endpoint_keys(EndpointKeys& keys, const Scene& scene, const std::vector<ArrayPlan>& plans, const BlendValues& blends) {
    const KeyArrays arrays(plans);
    size_t words = scene.vertex_count() * (arrays.position ? arrays.position->size : 0);
    for (size_t g = 0; g < blends.weights.size() && arrays.slots; ++g)
        for (uint32_t k = 0; k < arrays.slots; ++k) words += blends.weights[g][k] != 0 ? 2 : 0;
    detail::reserve_huge(keys.words, words);
    keys.begin.reserve(scene.vertex_count() + 1);
}

static void fill_endpoint_keys(EndpointKeys& keys, const Scene& scene, const std::vector<ArrayPlan>& plans, const BlendValues& blends) {
    const KeyArrays arrays(plans);
    const uint32_t slots = arrays.slots, position_size = arrays.position ? arrays.position->size : 0;
    std::vector<std::pair<uint64_t, uint64_t>> scratch;
    uint64_t g = 0;
    for (auto& m : scene.meshes)
        for (uint32_t v = 0; v < m.vertex_count(); ++v, ++g) {
            std::array<double, 4> p{}, index{};
            if (arrays.position) p = raw_value(m, *arrays.position, nullptr, v, g, blends);
            if (slots) index = blends.index(g);
            const std::span<const double> no_blend;
            append_endpoint_key(keys, std::span(p.data(), position_size), slots ? std::span(index.data(), slots) : no_blend,
                                slots ? std::span(blends.weights[g].data(), slots) : no_blend, scratch);
        }
}

// The mesh's own float stream when a float array stores it unchanged (as many components as the
// stream has, no normalization), or nullptr: then its bytes need no trip through doubles.
static const float* float32_stream(const Mesh& m, const ArrayPlan& p) {
    if (p.format != ComponentType::Float32 || p.set != 0) return nullptr;
    switch (p.source) {
        case Source::Position: return p.size == 3 && !m.positions.empty() ? m.positions.front().data() : nullptr;
        case Source::Normal: return p.size == 3 && !m.normals.empty() ? m.normals.front().data() : nullptr;
        case Source::Tangent: return p.size == 4 && !m.tangents.empty() ? m.tangents.front().data() : nullptr;
        case Source::Texcoord: return p.size == 2 && !m.texcoords.empty() && !m.texcoords[0].empty() ? m.texcoords[0].front().data() : nullptr;
        default: return nullptr;
    }
}

// The float32 bytes of `count` floats, as encode_components writes them from the doubles the
// floats widen to: the same bits, but a signalling NaN comes out quiet (as through a double).
static void append_float32(const float* values, size_t count, std::vector<uint8_t>& out) {
    const size_t at = out.size();
    out.resize(at + count * 4);
    uint8_t* p = out.data() + at;
    for (size_t i = 0; i < count; ++i, p += 4) {
        uint32_t u;
        std::memcpy(&u, values + i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) u |= 0x00400000u;
        for (int b = 0; b < 4; ++b) p[b] = uint8_t(u >> (8 * b));
    }
}

// Fills every array over the global vertex set, meshes in order: its raw values, or with `lean`
// its bytes as serialize() writes them (and the adjacency keys), never the 8-byte raw numbers.
void fill_arrays(const Scene& scene, std::vector<ArrayPlan>& plans, IqmFile& file, Warnings* warnings, uint32_t threads,
                 LeanArrays* lean) {
    auto find = [&](Source s) {
        auto it = std::find_if(plans.begin(), plans.end(), [&](auto& p) { return p.source == s; });
        return it == plans.end() ? nullptr : &*it;
    };
    // A small model stays on this thread: waking another costs more than it saves.
    if (detail::chunk_count(scene.vertex_count(), 1 << 14) <= 1) threads = 1;
    BlendValues blends;
    if (ArrayPlan *indexes = find(Source::BlendIndexes), *weights = find(Source::BlendWeights); indexes && weights)
        blends = blend_values(scene, *indexes, *weights, warnings, threads);

    // Allocated here, exactly, so the memory belongs to this thread's malloc arena (freed memory
    // of a worker's arena is not reused by the next step); then one array per task, each writing
    // only its own values.
    const size_t first = file.vertexarrays.size();
    file.vertexarrays.resize(first + plans.size());
    if (lean) lean->bytes.resize(plans.size());
    for (size_t a = 0; a < plans.size(); ++a) {
        VertexArray& va = file.vertexarrays[first + a];
        va.type = plans[a].type;
        va.format = uint32_t(plans[a].format);
        va.size = plans[a].size;
        const uint64_t count = scene.vertex_count() * plans[a].size;
        if (lean) detail::reserve_huge(lean->bytes[a], count * component_size(ComponentType(std::min(va.format, max_format))));
        else va.values.resize(count);
    }
    // Lean: the adjacency keys are one more task beside the arrays (reserved here, in this
    // thread's arena, like the arrays).
    const bool keyed = lean && scene.triangle_count() > 0;
    if (keyed) reserve_endpoint_keys(lean->keys, scene, plans, blends);
    detail::parallel_for(plans.size() + (keyed ? 1 : 0), 1, threads, [&](size_t begin, size_t end) {
        constexpr size_t scratch_values = 1 << 12;  // lean: raw numbers encoded in small batches
        std::vector<double> scratch;
        for (size_t a = begin; a < end; ++a) {
            if (a == plans.size()) {
                fill_endpoint_keys(lean->keys, scene, plans, blends);
                continue;
            }
            const ArrayPlan& p = plans[a];
            const auto type = ComponentType(std::min(file.vertexarrays[first + a].format, max_format));
            double* out = lean ? nullptr : file.vertexarrays[first + a].values.data();
            auto flush = [&] {
                encode_components(scratch.data(), scratch.size(), type, lean->bytes[a]);
                scratch.clear();
            };
            uint64_t g = 0;  // global vertex
            for (auto& m : scene.meshes) {
                if (const float* floats = lean ? float32_stream(m, p) : nullptr) {
                    flush();  // what came before goes first
                    append_float32(floats, size_t(m.vertex_count()) * p.size, lean->bytes[a]);
                    g += m.vertex_count();
                    continue;
                }
                const CustomArray* custom = nullptr;
                for (auto& c : m.custom)
                    if (p.source == Source::Custom && c.name == p.name) custom = &c;
                for (uint32_t v = 0; v < m.vertex_count(); ++v, ++g) {
                    const std::array<double, 4> value = raw_value(m, p, custom, v, g, blends);
                    if (out) {
                        out = std::copy(value.begin(), value.begin() + p.size, out);
                        continue;
                    }
                    scratch.insert(scratch.end(), value.begin(), value.begin() + p.size);
                    if (scratch.size() >= scratch_values) flush();
                }
            }
            if (lean) flush();
        }
    });
}

}  // namespace rigport::iqm::write_detail

// IQM v2 writer: Scene -> IqmFile -> bytes in the reference compiler's order and alignment
// (iqm.txt v2 2011-05-31; iqm-iqe.md §1 and §3.2 steps 5-11).
#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "formats/iqm/iqm_layout.hpp"
#include "io/byte_cursor.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::iqm {

namespace {

constexpr uint64_t uint32_limit = UINT32_MAX;

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// IQM names a material by its texture, so a material whose only map is a diffuse texture of
// the same name, with default colours, loses nothing when written as its name.
bool material_is_its_name(const Material& m) {
    const Material plain;
    const bool maps_ok = m.maps.empty() || (m.maps.size() == 1 && m.maps[0].type == TextureType::Diffuse && m.maps[0].uri == m.name);
    return maps_ok && m.diffuse == plain.diffuse && m.ambient == plain.ambient && m.specular == plain.specular &&
           m.emissive == plain.emissive && m.shininess == plain.shininess;
}

bool is_integer(ComponentType t) { return t != ComponentType::Half && t != ComponentType::Float32 && t != ComponentType::Float64; }

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

// ---- vertex arrays (§1.5) ----------------------------------------------------------------------

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

// The source's own format for a standard attribute when rewriting an IQM, so for example half
// texcoords stay half; the recommended one otherwise.
void choose_format(const Scene& scene, Attribute attribute, ArrayPlan& plan) {
    if (scene.meta.source_format != "iqm") return;
    for (auto& af : scene.meta.attribute_formats)
        if (af.attribute == attribute && af.set == 0 && af.size >= 1 && af.size <= 4 &&
            uint32_t(af.type) <= max_format) {
            plan.format = af.type;
            plan.size = af.size;
            return;
        }
}

// A custom name not used by any named custom array (for the generated texcoordN / colorN).
std::string free_name(std::string name, const std::vector<ArrayPlan>& named) {
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
bool exact_ubyte(const std::vector<Influence>& influences, uint32_t slots) {
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
Blend select_blend(const Mesh& mesh, uint32_t v, uint32_t slots, std::vector<Influence>& scratch, bool& dropped) {
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
// 255 (iqm-iqe.md §1.5, §4 `vb`). Unlike the compiler, which starts at slot 0 and so turns
// 0.5/0.5 into 127/128, excess is taken from the lightest slot first and a shortfall given to
// the heaviest, so the weights stay sorted. Slots whose weight ends at 0 lose their joint too.
std::array<double, 4> ubyte_weights(Blend& b) {
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
uint64_t max_index(ComponentType t) {
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
std::array<double, 4> attribute_value(const Mesh& m, const ArrayPlan& p, uint32_t v) {
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
    std::vector<std::array<double, 4>> indexes, weights;
};

BlendValues blend_values(const Scene& scene, ArrayPlan& index_plan, const ArrayPlan& weight_plan, Warnings* warnings) {
    BlendValues out;
    const uint32_t slots = weight_plan.size;
    const ComponentType format = weight_plan.format;
    std::vector<Influence> scratch;
    uint64_t dropped_vertices = 0, largest = 0;
    for (auto& m : scene.meshes)
        for (uint32_t v = 0; v < m.vertex_count(); ++v) {
            bool dropped = false;
            Blend b = select_blend(m, v, slots, scratch, dropped);
            dropped_vertices += dropped;
            std::array<double, 4> w = b.weight;
            if (format == ComponentType::UInt8) {
                w = ubyte_weights(b);
            } else if (is_integer(format)) {
                for (auto& c : w) c = denormalize_component(c, format);
            }
            std::array<double, 4> j{};
            for (uint32_t k = 0; k < 4; ++k) {
                j[k] = b.joint[k];
                largest = std::max<uint64_t>(largest, b.joint[k]);
            }
            out.indexes.push_back(j);
            out.weights.push_back(w);
        }
    if (dropped_vertices && warnings)
        warnings->add(WarningCode::DroppedData, fmt::format("{} vertices have more than {} influences; the heaviest {} were kept",
                                                            dropped_vertices, slots, slots));
    if (largest > max_index(index_plan.format)) {
        if (warnings)
            warnings->add(WarningCode::NonStandardFormat, fmt::format("joint index {} does not fit {} blend indexes; written as int",
                                                                      largest, to_string(index_plan.format)));
        index_plan.format = ComponentType::Int32;
    }
    return out;
}

// Fills every array's raw values over the global vertex set, meshes in order.
void fill_arrays(const Scene& scene, std::vector<ArrayPlan>& plans, IqmFile& file, Warnings* warnings) {
    auto find = [&](Source s) {
        auto it = std::find_if(plans.begin(), plans.end(), [&](auto& p) { return p.source == s; });
        return it == plans.end() ? nullptr : &*it;
    };
    BlendValues blends;
    if (ArrayPlan *indexes = find(Source::BlendIndexes), *weights = find(Source::BlendWeights); indexes && weights)
        blends = blend_values(scene, *indexes, *weights, warnings);

    for (const ArrayPlan& p : plans) {
        VertexArray va;
        va.type = p.type;
        va.format = uint32_t(p.format);
        va.size = p.size;
        va.values.reserve(scene.vertex_count() * p.size);
        // The compiler normalizes integer formats of every standard attribute but blend indexes.
        const bool normalized = is_integer(p.format) && p.source != Source::Custom && p.set == 0;
        uint64_t g = 0;  // global vertex
        for (auto& m : scene.meshes) {
            const CustomArray* custom = nullptr;
            for (auto& c : m.custom)
                if (p.source == Source::Custom && c.name == p.name) custom = &c;
            for (uint32_t v = 0; v < m.vertex_count(); ++v, ++g) {
                std::array<double, 4> value{};
                if (p.source == Source::BlendIndexes) {
                    value = blends.indexes[g];
                } else if (p.source == Source::BlendWeights) {
                    value = blends.weights[g];
                } else if (p.source == Source::Custom) {
                    for (uint32_t k = 0; custom && k < std::min(custom->size, p.size); ++k)
                        value[k] = custom->values[uint64_t(v) * custom->size + k];
                } else {
                    value = attribute_value(m, p, v);
                    if (normalized)
                        for (auto& c : value) c = denormalize_component(c, p.format);
                }
                va.values.insert(va.values.end(), value.begin(), value.begin() + p.size);
            }
        }
        file.vertexarrays.push_back(std::move(va));
    }
}

// ---- animation (§1.7, §1.8) ---------------------------------------------------------------------

std::array<float, 10> channels(const Transform& t) {
    return {t.translate[0], t.translate[1], t.translate[2], t.rotate[0], t.rotate[1],
            t.rotate[2],    t.rotate[3],    t.scale[0],     t.scale[1],  t.scale[2]};
}

using Frames = std::vector<std::array<float, 10>>;  // [frame][joint] channels

// Poses, frames and anim records; channels quantized over all frames of all animations.
// Returns the frames as a reader will decode them.
Expected<Frames> build_animations(const Scene& scene, TextTable& text, IqmFile& file) {
    const auto& joints = scene.skeleton.joints;
    uint64_t total = 0;
    for (auto& anim : scene.animations) total += sampled_frame_count(anim);
    // Every frame holds up to 10 uint16 per joint; keep within what a uint32 file can hold.
    if (total > uint32_limit || total > uint32_limit / (joints.size() * 20))
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} frames of {} joints do not fit an IQM file", total, joints.size()));

    Frames samples;
    samples.reserve(total * joints.size());
    for (auto& anim : scene.animations) {
        AnimRecord rec;
        rec.name = text.add(anim.name);
        rec.first_frame = uint32_t(samples.size() / joints.size());
        rec.num_frames = uint32_t(sampled_frame_count(anim));
        rec.framerate = anim.frame_rate;
        rec.flags = anim.loop ? IQM_LOOP : 0;
        for (uint32_t f = 0; f < rec.num_frames; ++f)
            for (auto& t : frame_pose(scene.skeleton, anim, f)) samples.push_back(channels(t));
        file.anims.push_back(rec);
    }

    std::vector<QuantizedChannel> quant(joints.size() * 10);
    uint32_t framechannels = 0;
    for (size_t j = 0; j < joints.size(); ++j) {
        PoseRecord pose;
        pose.parent = joints[j].parent;
        for (int c = 0; c < 10 && total > 0; ++c) {
            float lo = samples[j][c], hi = lo;
            for (size_t i = j; i < samples.size(); i += joints.size()) lo = std::min(lo, samples[i][c]), hi = std::max(hi, samples[i][c]);
            QuantizedChannel q = quantize_range(lo, hi);
            quant[j * 10 + c] = q;
            pose.channeloffset[c] = q.offset;
            pose.channelscale[c] = q.scale;
            if (q.animated) pose.channelmask |= 1u << c, ++framechannels;
        }
        file.poses.push_back(pose);
    }
    // Frame-major: for each frame, each pose, the masked channels in order.
    file.frames.reserve(total * framechannels);
    for (size_t i = 0; i < samples.size(); ++i)
        for (int c = 0; c < 10; ++c) {
            const QuantizedChannel& q = quant[(i % joints.size()) * 10 + c];
            const uint16_t u = quantize_value(samples[i][c], q);
            if (q.animated) file.frames.push_back(u);
            samples[i][c] = dequantize_value(u, q);  // constant channels decode to their offset
        }
    file.header.num_frames = uint32_t(total);
    file.header.num_framechannels = framechannels;
    return samples;
}

// Bounds of every written frame, skinned with the poses as a reader decodes them rather than
// the unquantized ones: bounds then describe the file's own frames, and rewriting a file that
// was read gives the same bytes.
std::vector<FrameBounds> decoded_bounds(const Scene& scene, const Frames& decoded) {
    std::vector<FrameBounds> out;
    const size_t joints = scene.skeleton.joints.size();
    if (joints == 0 || !has_skinned_vertices(scene)) return out;
    std::vector<Transform> pose(joints);
    for (size_t i = 0; i + joints <= decoded.size(); i += joints) {
        for (size_t j = 0; j < joints; ++j) {
            const auto& c = decoded[i + j];
            pose[j] = Transform{{c[0], c[1], c[2]}, {c[3], c[4], c[5], c[6]}, {c[7], c[8], c[9]}};
        }
        out.push_back(skinned_bounds(scene, pose));
    }
    return out;
}

// ---- layout (§3.2 step 11) -----------------------------------------------------------------------

// Every offset and count of the file as serialize() lays it out. filesize is 64-bit so that a
// file too large for IQM's uint32 fields can be detected before anything is written.
struct Layout {
    Header header;
    std::vector<uint32_t> array_offsets;
    std::vector<uint32_t> extension_offsets;
    uint64_t vertex_start = 0;  // the 8-aligned start of the vertex data
    uint64_t filesize = 0;
};

uint64_t array_bytes(const VertexArray& va, uint32_t num_vertexes) {
    return uint64_t(num_vertexes) * va.size * component_size(ComponentType(std::min(va.format, max_format)));
}

bool write_adjacency(const IqmFile& f) { return f.has_adjacency && !f.triangles.empty(); }
bool write_bounds(const IqmFile& f) { return !f.bounds.empty() && f.bounds.size() == f.header.num_frames; }
uint64_t frame_values(const IqmFile& f) { return uint64_t(f.header.num_frames) * f.header.num_framechannels; }

Layout plan_layout(const IqmFile& f) {
    Layout l;
    Header& h = l.header;
    h = f.header;
    h.version = 2;
    uint64_t pos = header_size;
    // A section starts where the previous one ended; empty sections have offset 0.
    auto place = [&](uint64_t count, uint64_t bytes) -> uint32_t {
        uint64_t at = count ? pos : 0;
        pos += bytes;
        return uint32_t(at);
    };
    h.num_text = uint32_t(round_up(f.text.size(), 4));
    h.ofs_text = place(h.num_text, h.num_text);
    h.num_meshes = uint32_t(f.meshes.size());
    h.ofs_meshes = place(h.num_meshes, uint64_t(h.num_meshes) * mesh_size);
    h.num_vertexarrays = uint32_t(f.vertexarrays.size());
    h.ofs_vertexarrays = place(h.num_vertexarrays, uint64_t(h.num_vertexarrays) * vertexarray_size);
    pos = l.vertex_start = round_up(pos, 8);
    for (auto& va : f.vertexarrays) {
        pos = round_up(pos, std::max<uint64_t>(component_size(ComponentType(std::min(va.format, max_format))), 4));
        l.array_offsets.push_back(uint32_t(pos));
        pos += array_bytes(va, h.num_vertexes);
    }
    pos = round_up(pos, 4);
    h.num_triangles = uint32_t(f.triangles.size());
    h.ofs_triangles = place(h.num_triangles, uint64_t(h.num_triangles) * triangle_size);
    h.ofs_adjacency = write_adjacency(f) ? place(1, uint64_t(h.num_triangles) * triangle_size) : 0;
    h.num_joints = uint32_t(f.joints.size());
    h.ofs_joints = place(h.num_joints, uint64_t(h.num_joints) * joint_size_v2);
    h.num_poses = uint32_t(f.poses.size());
    h.ofs_poses = place(h.num_poses, uint64_t(h.num_poses) * pose_size_v2);
    h.num_anims = uint32_t(f.anims.size());
    h.ofs_anims = place(h.num_anims, uint64_t(h.num_anims) * anim_size);
    h.ofs_frames = place(frame_values(f), round_up(frame_values(f), 2) * 2);  // uint16 count padded to even
    h.ofs_bounds = write_bounds(f) ? place(1, uint64_t(h.num_frames) * bounds_size) : 0;
    h.num_comment = uint32_t(round_up(f.comment.size(), 4));
    h.ofs_comment = place(h.num_comment, h.num_comment);
    h.num_extensions = uint32_t(f.extensions.size());
    for (auto& e : f.extensions) {
        l.extension_offsets.push_back(uint32_t(pos));
        pos = round_up(pos + extension_size + e.data.size(), 4);
    }
    h.ofs_extensions = f.extensions.empty() ? 0 : l.extension_offsets.front();
    l.filesize = pos;
    h.filesize = uint32_t(pos);
    return l;
}

void pad_to(io::ByteWriter& w, uint64_t at) {
    while (w.size() < at) w.u8(0);
}

}  // namespace

// ---- the writer ------------------------------------------------------------------------------------

Expected<IqmFile> from_scene(const Scene& scene, const SaveOptions& options) {
    if (auto st = check_invariants(scene); !st) return st.error();
    if (scene.vertex_count() > uint32_limit || scene.triangle_count() > uint32_limit)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} vertices and {} triangles do not fit IQM's uint32 counts",
                                                                scene.vertex_count(), scene.triangle_count()));
    Warnings* warnings = options.warnings;
    const auto& joints = scene.skeleton.joints;
    IqmFile file;
    TextTable text;

    // Text order as the compiler's: per mesh its name and material, then custom arrays, joints,
    // animations, extensions.
    uint32_t first_vertex = 0, first_triangle = 0;
    for (auto& m : scene.meshes) {
        MeshRecord rec;
        rec.name = text.add(m.name);
        rec.material = text.add(m.material >= 0 ? scene.materials[m.material].name : std::string());
        rec.first_vertex = first_vertex;
        rec.num_vertexes = m.vertex_count();
        rec.first_triangle = first_triangle;
        rec.num_triangles = uint32_t(m.triangles.size());
        for (auto& t : m.triangles) file.triangles.push_back({first_vertex + t[0], first_vertex + t[1], first_vertex + t[2]});
        first_vertex += rec.num_vertexes;
        first_triangle += rec.num_triangles;
        file.meshes.push_back(rec);
        if (warnings) {  // what IQM cannot hold (§1.3): reported, never silently lost
            if (!m.morph_targets.empty()) warnings->add(WarningCode::DroppedData, "IQM has no morph targets; they were not written");
            if (!m.springs.empty()) warnings->add(WarningCode::DroppedData, "IQM has no cloth springs; they were not written");
            if (!m.lod.empty()) warnings->add(WarningCode::DroppedData, "IQM has no level-of-detail data; it was not written");
        }
    }
    if (warnings)
        for (auto& mat : scene.materials)
            if (!material_is_its_name(mat))
                warnings->add(WarningCode::DroppedData, "IQM materials are names only; texture maps and colours were not written");
    file.header.num_vertexes = first_vertex;

    std::vector<ArrayPlan> plans = plan_arrays(scene);
    for (auto& p : plans)
        if (p.type == IQM_CUSTOM) p.type = IQM_CUSTOM + text.add(p.name);
    // Custom types must ascend; a name shared with an earlier string has a smaller offset.
    std::stable_sort(plans.begin(), plans.end(), [](auto& a, auto& b) { return a.type < b.type; });
    fill_arrays(scene, plans, file, warnings);

    if (!file.triangles.empty()) {
        file.adjacency = compute_adjacency(scene);
        file.has_adjacency = true;
    }

    if (!joints.empty() && (!scene.skeleton.animation_only || options.force_joints))
        for (auto& j : joints) {
            JointRecord rec;
            rec.name = text.add(j.name);
            rec.parent = j.parent;
            rec.translate = j.bind.translate;
            rec.rotate = j.bind.rotate;
            rec.scale = j.bind.scale;
            file.joints.push_back(rec);
        }

    if (!scene.animations.empty() && !joints.empty()) {
        auto decoded = build_animations(scene, text, file);
        if (!decoded) return decoded.error();
        std::vector<FrameBounds> bounds = decoded_bounds(scene, *decoded);
        if (bounds.size() == file.header.num_frames)
            for (auto& b : bounds) file.bounds.push_back({b.min, b.max, b.xy_radius, b.radius});
    } else if (!scene.animations.empty() && warnings) {
        warnings->add(WarningCode::DroppedData, fmt::format("{} animations were not written: IQM animates joints and the scene has none",
                                                            scene.animations.size()));
    }

    if (!scene.meta.comment.empty()) {
        file.comment.assign(scene.meta.comment.begin(), scene.meta.comment.end());
        file.comment.push_back(0);
        file.comment.resize(round_up(file.comment.size(), 4), 0);
    }
    if (scene.meta.source_format == "iqm")
        for (auto& e : scene.meta.extensions) {
            ExtensionRecord rec;
            rec.name = text.add(e.name);
            rec.num_data = uint32_t(e.data.size());
            rec.data = e.data;
            if (e.data.size() > uint32_limit) return make_error(ErrorCode::LimitExceeded, fmt::format("extension '{}' is too large", e.name));
            file.extensions.push_back(std::move(rec));
        }
    file.text = text.finish();

    Layout layout = plan_layout(file);
    if (layout.filesize > uint32_limit)
        return make_error(ErrorCode::LimitExceeded, fmt::format("the IQM file would be {} bytes; its offsets are 32-bit", layout.filesize));
    file.header = layout.header;
    for (size_t a = 0; a < file.vertexarrays.size(); ++a) file.vertexarrays[a].offset = layout.array_offsets[a];
    for (size_t e = 0; e < file.extensions.size(); ++e) {
        ExtensionRecord& rec = file.extensions[e];
        rec.record_offset = layout.extension_offsets[e];
        rec.ofs_data = rec.num_data ? uint32_t(rec.record_offset + extension_size) : 0;
        rec.ofs_extensions = e + 1 < file.extensions.size() ? layout.extension_offsets[e + 1] : 0;
    }
    return file;
}

// Lays the records out in the compiler's order (§3.2 step 11). Offsets and counts come from the
// records themselves, except num_vertexes, num_frames and num_framechannels from the header;
// short value lists are padded with zeros so the layout always matches the header.
std::vector<uint8_t> serialize(const IqmFile& file) {
    const Layout l = plan_layout(file);
    const Header& h = l.header;
    io::ByteWriter w;
    w.bytes().reserve(l.filesize);
    w.bytes(magic, sizeof magic);
    for (uint32_t v : {h.version, h.filesize, h.flags, h.num_text, h.ofs_text, h.num_meshes, h.ofs_meshes,
                       h.num_vertexarrays, h.num_vertexes, h.ofs_vertexarrays, h.num_triangles, h.ofs_triangles,
                       h.ofs_adjacency, h.num_joints, h.ofs_joints, h.num_poses, h.ofs_poses, h.num_anims, h.ofs_anims,
                       h.num_frames, h.num_framechannels, h.ofs_frames, h.ofs_bounds, h.num_comment, h.ofs_comment,
                       h.num_extensions, h.ofs_extensions})
        w.u32(v);

    w.bytes(file.text.data(), file.text.size());
    pad_to(w, h.ofs_text + h.num_text);
    for (auto& m : file.meshes)
        for (uint32_t v : {m.name, m.material, m.first_vertex, m.num_vertexes, m.first_triangle, m.num_triangles}) w.u32(v);
    for (size_t a = 0; a < file.vertexarrays.size(); ++a) {
        const VertexArray& va = file.vertexarrays[a];
        for (uint32_t v : {va.type, va.flags, va.format, va.size, l.array_offsets[a]}) w.u32(v);
    }
    pad_to(w, l.vertex_start);
    for (size_t a = 0; a < file.vertexarrays.size(); ++a) {
        const VertexArray& va = file.vertexarrays[a];
        const auto type = ComponentType(std::min(va.format, max_format));
        pad_to(w, l.array_offsets[a]);
        const uint64_t count = uint64_t(h.num_vertexes) * va.size;
        for (uint64_t i = 0; i < count; ++i) encode_component(i < va.values.size() ? va.values[i] : 0.0, type, w.bytes());
    }
    w.pad_to(4);

    for (auto& t : file.triangles)
        for (uint32_t v : t) w.u32(v);
    if (h.ofs_adjacency)
        for (size_t t = 0; t < file.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k) w.u32(t < file.adjacency.size() ? file.adjacency[t][k] : no_neighbor);
    for (auto& j : file.joints) {
        w.u32(j.name);
        w.i32(j.parent);
        for (float v : j.translate) w.f32(v);
        for (float v : j.rotate) w.f32(v);
        for (float v : j.scale) w.f32(v);
    }
    for (auto& p : file.poses) {
        w.i32(p.parent);
        w.u32(p.channelmask);
        for (float v : p.channeloffset) w.f32(v);
        for (float v : p.channelscale) w.f32(v);
    }
    for (auto& a : file.anims) {
        for (uint32_t v : {a.name, a.first_frame, a.num_frames}) w.u32(v);
        w.f32(a.framerate);
        w.u32(a.flags);
    }
    const uint64_t frames = frame_values(file);
    for (uint64_t i = 0; i < round_up(frames, 2); ++i) w.u16(i < file.frames.size() && i < frames ? file.frames[i] : 0);
    if (h.ofs_bounds)
        for (auto& b : file.bounds) {
            for (float v : b.bbmins) w.f32(v);
            for (float v : b.bbmaxs) w.f32(v);
            w.f32(b.xyradius);
            w.f32(b.radius);
        }
    w.bytes(file.comment.data(), file.comment.size());
    w.pad_to(4);
    for (size_t e = 0; e < file.extensions.size(); ++e) {
        const ExtensionRecord& x = file.extensions[e];
        const uint32_t at = l.extension_offsets[e];
        w.u32(x.name);
        w.u32(uint32_t(x.data.size()));
        w.u32(x.data.empty() ? 0 : at + extension_size);
        w.u32(e + 1 < file.extensions.size() ? l.extension_offsets[e + 1] : 0);
        w.bytes(x.data.data(), x.data.size());
        w.pad_to(4);
    }
    return std::move(w.bytes());
}

Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options) {
    auto file = from_scene(scene, options);
    if (!file) return file.error();
    return serialize(*file);
}

}  // namespace rigport::iqm

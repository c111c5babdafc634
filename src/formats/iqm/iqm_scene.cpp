// IQM semantics: records -> Scene. Meshes are cut out of the global vertex set, poses and frames
// dequantized as iqm.txt says (v1 rotations completed with w = -sqrt(1-|xyz|^2)), into keyed tracks.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "support/huge_pages.hpp"
#include "support/excerpt.hpp"
#include "formats/iqm/iqm.hpp"

namespace rigport::iqm {

namespace {

Error malformed(std::optional<uint64_t> offset, std::string message) {
    return make_error(ErrorCode::Malformed, std::move(message), offset);
}


// File offsets of the records, for errors and warnings that name a place.
uint64_t joint_offset(const Header& h, uint32_t i) {
    return uint64_t(h.ofs_joints) + uint64_t(i) * (h.version == 1 ? joint_size_v1 : joint_size_v2);
}
uint64_t pose_offset(const Header& h, uint32_t i) {
    return uint64_t(h.ofs_poses) + uint64_t(i) * (h.version == 1 ? pose_size_v1 : pose_size_v2);
}

uint32_t le32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return std::endian::native == std::endian::little ? v : __builtin_bswap32(v);
}

// The stored numbers of one vertex array: its decoded values, or after a lean parse the file's
// bytes themselves (no array of doubles built and thrown away). Float32 and byte arrays, the
// common formats, skip the generic decode: floats are loaded, bytes looked up in a table.
class Stored {
public:
    Stored(const VertexArray& va, std::span<const uint8_t> source)
        : va_(va), type_(static_cast<ComponentType>(va.format)), comp_(component_size(type_)),
          data_(source.empty() || va.offset >= source.size() ? nullptr : source.data() + va.offset),  // no data: no vertices
          float32_(data_ && type_ == ComponentType::Float32 && std::endian::native == std::endian::little) {
        if (!data_ || comp_ != 1) return;
        for (uint32_t b = 0; b < 256; ++b) {
            const uint8_t byte = static_cast<uint8_t>(b);
            raw_byte_[b] = decode_component({&byte, 1}, type_);
            normalized_byte_[b] = static_cast<float>(normalize_component(raw_byte_[b], type_));
        }
    }

    double raw(uint64_t i) const {
        if (!data_) return va_.values[i];
        if (float32_) return load_float(i);
        if (comp_ == 1) return raw_byte_[data_[i]];
        return decode_component({data_ + i * comp_, comp_}, type_);
    }
    // As the compiler's normalization reads it (iqm_components.cpp), in float.
    float normalized(uint64_t i) const {
        if (float32_) return load_float(i);  // floats are not normalized
        if (data_ && comp_ == 1) return normalized_byte_[data_[i]];
        return static_cast<float>(normalize_component(raw(i), type_));
    }
    bool plain_floats() const { return float32_; }
    // A signalling NaN comes out quiet, as it did through the array of doubles before.
    float load_float(uint64_t i) const {
        uint32_t bits;
        std::memcpy(&bits, data_ + i * 4, 4);
        if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu)) bits |= 0x00400000u;
        return std::bit_cast<float>(bits);
    }

private:
    const VertexArray& va_;
    ComponentType type_;
    uint32_t comp_;
    const uint8_t* data_;
    bool float32_;
    std::array<double, 256> raw_byte_{};
    std::array<float, 256> normalized_byte_{};
};

class SceneBuilder {
public:
    SceneBuilder(const IqmFile& f, Warnings warnings) : f_(f) { scene_.warnings = std::move(warnings); }
    Expected<Scene> run();

private:
    void pick_arrays();
    std::optional<Error> build_skeleton();
    std::optional<Error> build_meshes();
    std::optional<Error> build_mesh(uint32_t index, const MeshRecord& m);
    std::optional<Error> build_animations();
    void copy_meta();

    Stored stored(const VertexArray& va) const { return Stored(va, f_.lean_source); }
    // Value `k` of vertex `v` of a standard array, normalized as the compiler writes it.
    static float standard(const VertexArray& va, const Stored& s, uint64_t v, uint32_t k, float missing) {
        if (k >= va.size) return missing;
        const uint64_t i = v * va.size + k;
        return va.type == IQM_BLENDINDEXES ? static_cast<float>(s.raw(i)) : s.normalized(i);
    }
    // Triangle t of the file (absolute vertex numbers), decoded or read in place.
    Triangle triangle(uint64_t t) const {
        if (f_.lean_source.empty()) return f_.triangles[t];
        const uint8_t* p = f_.lean_source.data() + f_.header.ofs_triangles + t * triangle_size;
        return {le32(p), le32(p + 4), le32(p + 8)};
    }

    const IqmFile& f_;
    Scene scene_;
    const VertexArray* arrays_[7] = {};  // the first array of each standard type
    std::vector<const VertexArray*> custom_;
    std::unordered_map<std::string, int32_t> materials_;
};

void SceneBuilder::pick_arrays() {
    const Header& h = f_.header;
    uint32_t previous = 0;
    for (size_t i = 0; i < f_.vertexarrays.size(); ++i) {
        const VertexArray& va = f_.vertexarrays[i];
        const uint64_t at = uint64_t(h.ofs_vertexarrays) + i * vertexarray_size;
        if (va.type < previous)
            scene_.warnings.add(WarningCode::ArrayOrder, "vertex arrays are not in ascending type order", at);
        previous = std::max(previous, va.type);
        if (va.type >= IQM_CUSTOM) {
            custom_.push_back(&va);
        } else if (va.type > IQM_COLOR) {
            scene_.warnings.add(WarningCode::ReservedArrayType, fmt::format("vertex array type {} is reserved; ignored", va.type), at);
        } else if (arrays_[va.type]) {
            scene_.warnings.add(WarningCode::DuplicateArray, fmt::format("a second {} array; ignored", to_string(static_cast<Attribute>(va.type))), at);
        } else {
            arrays_[va.type] = &va;
            const auto type = static_cast<ComponentType>(va.format);
            const RecommendedFormat& r = recommended_format[va.type];
            if (type != r.format || va.size != r.size)
                scene_.warnings.add(WarningCode::NonStandardFormat,
                                    fmt::format("{} array stored as {}x{} (recommended {}x{})", to_string(static_cast<Attribute>(va.type)),
                                                to_string(type), va.size, to_string(r.format), r.size),
                                    at);
            scene_.meta.attribute_formats.push_back(AttributeFormat{static_cast<Attribute>(va.type), 0, type, va.size});
        }
    }
}

std::optional<Error> SceneBuilder::build_skeleton() {
    const Header& h = f_.header;
    auto& joints = scene_.skeleton.joints;
    if (!f_.joints.empty() && !f_.poses.empty() && f_.joints.size() != f_.poses.size())
        return malformed(76, fmt::format("num_poses {} differs from num_joints {}", f_.poses.size(), f_.joints.size()));
    const bool from_poses = f_.joints.empty() && !f_.poses.empty();
    const uint32_t n = static_cast<uint32_t>(from_poses ? f_.poses.size() : f_.joints.size());
    joints.resize(n);
    uint32_t roots = 0;
    for (uint32_t i = 0; i < n; ++i) {
        Joint& j = joints[i];
        const uint64_t at = from_poses ? pose_offset(h, i) : joint_offset(h, i);
        j.parent = from_poses ? f_.poses[i].parent : f_.joints[i].parent;
        if (j.parent < -1 || j.parent >= static_cast<int32_t>(n))
            return malformed(at, fmt::format("joint {}: parent {} is out of range (-1..{})", i, j.parent, n - 1));
        if (j.parent >= static_cast<int32_t>(i))
            return malformed(at, fmt::format("joint {}: parent {} is not an earlier joint", i, j.parent));
        roots += j.parent < 0;
        if (from_poses) continue;
        const JointRecord& r = f_.joints[i];
        j.name = f_.string_at(r.name);
        j.bind.translate = r.translate;
        j.bind.rotate = r.rotate;
        j.bind.scale = r.scale;
        // In double: squares of large floats would overflow to infinity in float.
        double len2 = 0;
        for (float c : r.rotate) len2 += double(c) * c;
        const double len = std::sqrt(len2);
        if (!(len > 1e-6)) return malformed(at + 24, fmt::format("joint {}: rotation quaternion has zero length", i));
        if (std::fabs(len - 1.0) > 1e-3) {
            for (auto& c : j.bind.rotate) c = static_cast<float>(c / len);
            scene_.warnings.add(WarningCode::NonUnitQuaternion, "joint rotation quaternion normalized", at + 24);
        }
        if (!f_.poses.empty() && f_.poses[i].parent != r.parent)
            scene_.warnings.add(WarningCode::PoseParentMismatch,
                                fmt::format("pose {}: parent {} differs from joint parent {}", i, f_.poses[i].parent, r.parent), pose_offset(h, i));
    }
    if (from_poses) {
        scene_.skeleton.animation_only = true;
        scene_.warnings.add(WarningCode::AnimationOnly,
                            fmt::format("animation-only file: {} poses without joints (no names, no bind pose; binds by index)", n), 68);
    }
    if (roots > 1) scene_.warnings.add(WarningCode::SeveralRoots, fmt::format("{} root joints", roots), from_poses ? h.ofs_poses : h.ofs_joints);
    return {};
}

std::optional<Error> SceneBuilder::build_meshes() {
    const Header& h = f_.header;
    // Meshes may overlap; copies are allowed up to a few times the vertex set (hostile files
    // could otherwise repeat one huge range in every mesh record).
    uint64_t total_vertices = 0, total_triangles = 0;
    for (auto& m : f_.meshes) total_vertices += m.num_vertexes, total_triangles += m.num_triangles;
    if (total_vertices > 4ull * h.num_vertexes + 65536 || total_triangles > 4ull * h.num_triangles + 65536)
        return make_error(ErrorCode::LimitExceeded, "mesh ranges overlap many times over", h.ofs_meshes);
    for (uint32_t i = 0; i < f_.meshes.size(); ++i)
        if (auto e = build_mesh(i, f_.meshes[i])) return e;
    return {};
}

std::optional<Error> SceneBuilder::build_mesh(uint32_t index, const MeshRecord& m) {
    const Header& h = f_.header;
    Mesh mesh;
    mesh.name = f_.string_at(m.name);
    if (m.material != 0) {
        std::string name = f_.string_at(m.material);
        auto [it, added] = materials_.try_emplace(name, static_cast<int32_t>(scene_.materials.size()));
        if (added) {
            Material material;
            material.name = name;
            // IQM names a material by its texture (a file, or an engine path without extension).
            material.maps.push_back(TextureMap{TextureType::Diffuse, name, ""});
            scene_.materials.push_back(std::move(material));
        }
        mesh.material = it->second;
    }

    // Vertices of this mesh: its own range, plus copies of any outside vertex its triangles use.
    std::vector<uint32_t> source(m.num_vertexes);
    for (uint32_t v = 0; v < m.num_vertexes; ++v) source[v] = m.first_vertex + v;
    std::unordered_map<uint32_t, uint32_t> outside;
    detail::resize_huge(mesh.triangles, m.num_triangles);
    for (uint32_t t = 0; t < m.num_triangles; ++t) {
        const Triangle tri = triangle(uint64_t(m.first_triangle) + t);
        for (int k = 0; k < 3; ++k) {
            const uint32_t v = tri[k];
            if (v >= m.first_vertex && v - m.first_vertex < m.num_vertexes) {
                mesh.triangles[t][k] = v - m.first_vertex;
                continue;
            }
            auto [it, added] = outside.try_emplace(v, static_cast<uint32_t>(source.size()));
            if (added) source.push_back(v);
            mesh.triangles[t][k] = it->second;
            scene_.warnings.add(WarningCode::TriangleOutsideMesh,
                                fmt::format("mesh {}: a triangle uses a vertex outside the mesh's range; the vertex is copied into the mesh", index),
                                uint64_t(h.ofs_triangles) + uint64_t(m.first_triangle + t) * triangle_size);
        }
    }

    const size_t n = source.size();
    // Out-of-range components take `missing`'s; float32 arrays are copied without the generic
    // decode, the common case on big files.
    auto fill = [&](const VertexArray* va, auto& out, const auto& missing) {
        if (!va) return;
        const Stored s = stored(*va);
        constexpr uint32_t width = std::tuple_size_v<std::decay_t<decltype(missing)>>;
        detail::resize_huge(out, n);
        if (s.plain_floats()) {
            const uint32_t size = va->size, have = std::min(size, width);
            for (size_t v = 0; v < n; ++v) {
                const uint64_t base = uint64_t(source[v]) * size;
                auto& o = out[v];
                o = missing;
                for (uint32_t k = 0; k < have; ++k) o[k] = s.load_float(base + k);
            }
            return;
        }
        for (size_t v = 0; v < n; ++v)
            for (uint32_t k = 0; k < width; ++k) out[v][k] = standard(*va, s, source[v], k, missing[k]);
    };
    fill(arrays_[IQM_POSITION], mesh.positions, Vec3{0, 0, 0});
    if (arrays_[IQM_TEXCOORD]) {
        mesh.texcoords.emplace_back();
        fill(arrays_[IQM_TEXCOORD], mesh.texcoords[0], Vec2{0, 0});
    }
    fill(arrays_[IQM_NORMAL], mesh.normals, Vec3{0, 0, 0});
    fill(arrays_[IQM_TANGENT], mesh.tangents, Vec4{0, 0, 0, 1});
    if (arrays_[IQM_COLOR]) {
        mesh.colors.emplace_back();
        fill(arrays_[IQM_COLOR], mesh.colors[0], Vec4{0, 0, 0, 1});
    }
    for (const VertexArray* va : custom_) {
        CustomArray c{f_.string_at(va->type - IQM_CUSTOM), static_cast<ComponentType>(va->format), va->size, {}};
        const Stored s = stored(*va);
        c.values.resize(n * va->size);
        for (size_t v = 0; v < n; ++v)
            for (uint32_t k = 0; k < va->size; ++k) c.values[v * va->size + k] = s.raw(uint64_t(source[v]) * va->size + k);
        mesh.custom.push_back(std::move(c));
    }

    const VertexArray* bi = arrays_[IQM_BLENDINDEXES];
    const VertexArray* bw = arrays_[IQM_BLENDWEIGHTS];
    const uint32_t joints = static_cast<uint32_t>(scene_.skeleton.joints.size());
    if (bi && bw && joints == 0) {
        scene_.warnings.add(WarningCode::DroppedData, "blend indexes and weights without joints; skinning ignored", h.ofs_vertexarrays);
    } else if (bi && bw) {
        SkinInfluences& skin = mesh.skin;
        const Stored si = stored(*bi), sw = stored(*bw);
        const uint32_t slots = std::min(bi->size, bw->size);
        // Counted first so the influences are allocated once, at their final size.
        uint64_t used = 0;
        for (size_t v = 0; v < n; ++v)
            for (uint32_t k = 0; k < slots; ++k) used += standard(*bw, sw, source[v], k, 0) > 0.0f;
        detail::reserve_huge(skin.influences, used);
        detail::reserve_huge(skin.offsets, n + 1);
        skin.offsets.push_back(0);
        for (size_t v = 0; v < n; ++v) {
            for (uint32_t k = 0; k < slots; ++k) {
                const float w = standard(*bw, sw, source[v], k, 0);
                if (!(w > 0.0f)) continue;  // unused slots are (0, 0)
                const double j = si.raw(uint64_t(source[v]) * bi->size + k);
                if (!(j >= 0 && j < joints && j == std::floor(j)))
                    return malformed(bi->offset, fmt::format("vertex {}: blend index {} with weight {} is not a joint (0..{})", source[v], j, w, joints - 1));
                if (!std::isfinite(w)) return malformed(bw->offset, fmt::format("vertex {}: blend weight is not finite", source[v]));
                skin.influences.push_back(Influence{static_cast<uint32_t>(j), w});
            }
            skin.offsets.push_back(static_cast<uint32_t>(skin.influences.size()));
        }
    }
    scene_.meshes.push_back(std::move(mesh));
    return {};
}

std::optional<Error> SceneBuilder::build_animations() {
    const Header& h = f_.header;
    const bool v1 = h.version == 1;
    const uint32_t num_poses = static_cast<uint32_t>(f_.poses.size());
    // Where each animated channel of each pose sits inside a frame (frame-major, masked
    // channels in pose order), computed once rather than per sample.
    std::vector<std::array<uint32_t, 10>> slot(num_poses);
    uint32_t next = 0;
    for (uint32_t p = 0; p < num_poses; ++p)
        for (uint32_t k = 0; k < 10; ++k)
            if (f_.poses[p].channelmask & (1u << k)) slot[p][k] = next++;

    // Channels of each group in the file's numbering: v1 has no w (index -1) and scale at 6-8.
    const int t_ch[3] = {0, 1, 2};
    const int r_ch[4] = {3, 4, 5, v1 ? -1 : 6};
    const int s_ch[3] = {v1 ? 6 : 7, v1 ? 7 : 8, v1 ? 8 : 9};

    for (uint32_t a = 0; a < f_.anims.size(); ++a) {
        const AnimRecord& rec = f_.anims[a];
        const uint64_t at = uint64_t(h.ofs_anims) + uint64_t(a) * anim_size;
        Animation anim;
        anim.name = f_.string_at(rec.name);
        anim.loop = rec.flags & IQM_LOOP;
        anim.frame_count = rec.num_frames;
        if (rec.flags & ~IQM_LOOP) scene_.warnings.add(WarningCode::UnknownFlags, fmt::format("animation '{}': unknown flags {:#x}", detail::excerpt(anim.name), rec.flags), at + 16);
        // A rate so small that the last key time overflows is as unusable as 0.
        if (std::isfinite(rec.framerate) && rec.framerate > 0 && std::isfinite(static_cast<float>(rec.num_frames) / rec.framerate)) {
            anim.frame_rate = rec.framerate;
        } else {
            scene_.warnings.add(WarningCode::ZeroFrameRate,
                                fmt::format("animation '{}': framerate {} (keys placed at {} fps)", detail::excerpt(anim.name), rec.framerate, default_frame_rate), at + 12);
        }
        const float rate = anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate;
        std::vector<float> times(rec.num_frames);
        for (uint32_t i = 0; i < rec.num_frames; ++i) times[i] = static_cast<float>(i) / rate;

        for (uint32_t p = 0; p < num_poses && rec.num_frames > 0; ++p) {
            const PoseRecord& pose = f_.poses[p];
            auto add_track = [&](Channel channel, const int* ch, uint32_t count) -> std::optional<Error> {
                bool animated = false;
                for (uint32_t c = 0; c < count; ++c) animated |= ch[c] >= 0 && (pose.channelmask >> ch[c]) & 1;
                JointTrack track;
                track.joint = p;
                track.channel = channel;
                // Constant channels carry one key: the value every frame decodes to.
                const uint32_t keys = animated ? rec.num_frames : 1;
                track.times.assign(times.begin(), times.begin() + keys);
                track.values.resize(uint64_t(keys) * count);
                // Per component: offset, scale and where its sample sits in a frame (none when
                // the channel is constant), so the loop below only reads the frames.
                float offset[4], scale[4];
                int64_t at[4];
                for (uint32_t c = 0; c < count; ++c) {
                    const int k = ch[c];
                    offset[c] = k >= 0 ? pose.channeloffset[k] : 0.0f;
                    scale[c] = k >= 0 ? pose.channelscale[k] : 0.0f;
                    at[c] = k >= 0 && (pose.channelmask >> k) & 1 ? int64_t(slot[p][k]) : -1;
                }
                float* out = track.values.data();
                for (uint32_t i = 0; i < keys; ++i) {
                    const uint16_t* frame = f_.frames.data() + uint64_t(rec.first_frame + i) * h.num_framechannels;
                    float xyz2 = 0;
                    bool finite = true;
                    for (uint32_t c = 0; c < count; ++c) {
                        float v;
                        if (ch[c] >= 0) {
                            v = offset[c];
                            if (at[c] >= 0) v += frame[at[c]] * scale[c];  // offset + sample * scale (iqm.txt)
                            if (c < 3) xyz2 += v * v;
                        } else {
                            v = -std::sqrt(std::max(0.0f, 1.0f - xyz2));  // v1: w from the unit length, negative
                        }
                        finite &= std::isfinite(v);
                        *out++ = v;
                    }
                    if (!finite)
                        return malformed(pose_offset(h, p), fmt::format("pose {}: channel value in frame {} is not finite", p, rec.first_frame + i));
                }
                anim.tracks.push_back(std::move(track));
                return {};
            };
            if (auto e = add_track(Channel::Translation, t_ch, 3)) return e;
            if (auto e = add_track(Channel::Rotation, r_ch, 4)) return e;
            if (auto e = add_track(Channel::Scale, s_ch, 3)) return e;
        }
        scene_.animations.push_back(std::move(anim));
    }
    return {};
}

void SceneBuilder::copy_meta() {
    Meta& meta = scene_.meta;
    meta.source_format = "iqm";
    meta.source_version = f_.header.version;
    meta.up = UpAxis::Z;  // IQM conventions (docs/iqm.md §2): Z up, right-handed, clockwise front faces
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    const auto& c = f_.comment;
    meta.comment.assign(c.begin(), std::find(c.begin(), c.end(), uint8_t(0)));
    for (auto& x : f_.extensions) meta.extensions.push_back(PreservedExtension{f_.string_at(x.name), x.data});
    meta.has_stored_adjacency = f_.has_adjacency;
    if (f_.lean_source.empty() || !f_.has_adjacency) {
        meta.stored_adjacency = f_.adjacency;
    } else {  // a lean parse checked the adjacency in place: one copy, into the scene
        const uint8_t* p = f_.lean_source.data() + f_.header.ofs_adjacency;
        detail::resize_huge(meta.stored_adjacency, f_.header.num_triangles);
        for (auto& t : meta.stored_adjacency) t = {le32(p), le32(p + 4), le32(p + 8)}, p += triangle_size;
    }
    for (auto& b : f_.bounds) meta.stored_bounds.push_back(FrameBounds{b.bbmins, b.bbmaxs, b.xyradius, b.radius});
}

Expected<Scene> SceneBuilder::run() {
    pick_arrays();
    if (auto e = build_skeleton()) return *e;
    if (auto e = build_meshes()) return *e;
    if (auto e = build_animations()) return *e;
    copy_meta();
    // The scene's invariants are checked by load_bytes, once for every format (src/pipeline/load.cpp).
    return std::move(scene_);
}

}  // namespace

Expected<Scene> to_scene(const IqmFile& file, Warnings warnings) { return SceneBuilder(file, std::move(warnings)).run(); }

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Warnings warnings;
    auto file = parse(bytes, options, warnings, true);  // lean: `bytes` outlives the scene building
    if (!file) return file.error();
    return to_scene(*file, std::move(warnings));
}

}  // namespace rigport::iqm

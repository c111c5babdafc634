// IQM structure: header, every section range-checked in 64-bit, records decoded (iqm.txt v1/v2,
// docs/iqm.md §1, §6 quirks, §9 rules 1-12). Semantics are to_scene()'s job (iqm_scene.cpp).
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "formats/iqm/iqm.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::iqm {

using io::ByteCursor;
using io::range_fits;

bool detect(std::span<const uint8_t> bytes) {
    if (bytes.size() < 20 || std::memcmp(bytes.data(), magic, 16) != 0) return false;
    const uint32_t version = bytes[16] | bytes[17] << 8 | bytes[18] << 16 | uint32_t(bytes[19]) << 24;
    return version == 1 || version == 2;
}

std::string IqmFile::string_at(uint32_t offset) const {
    if (offset >= text.size()) return {};
    const char* s = text.data() + offset;
    return std::string(s, strnlen(s, text.size() - offset));
}

namespace {

// Byte offsets of the header fields, for errors that name the field.
constexpr uint64_t at_num_text = 28, at_num_meshes = 36, at_num_vertexarrays = 44, at_num_triangles = 56,
                   at_ofs_adjacency = 64, at_num_joints = 68, at_num_poses = 76, at_num_anims = 84,
                   at_num_frames = 92, at_ofs_bounds = 104, at_num_comment = 108, at_num_extensions = 116;

Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

// A little-endian u32 at `p` (the caller has range-checked it): one load, not a byte loop.
uint32_t le32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return std::endian::native == std::endian::little ? v : __builtin_bswap32(v);
}

class Parser {
public:
    Parser(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings, bool lean)
        : bytes_(bytes), options_(options), warnings_(warnings), lean_(lean) {}

    Expected<IqmFile> run();

private:
    // A section of `count` records of `size` bytes at `ofs`, announced by the header field at
    // `field`. Empty sections are fine whatever their offset (validate reports stray offsets).
    std::optional<Error> check_section(const char* what, uint64_t field, uint64_t count, uint32_t ofs, uint64_t size, bool warn = true);
    std::optional<Error> check_ranges();
    std::optional<Error> check_name(uint32_t name, uint64_t record, const char* what);
    void warn_alignment(const char* what, uint64_t ofs, uint64_t alignment);

    std::optional<Error> read_header();
    std::optional<Error> read_text();
    std::optional<Error> read_meshes();
    std::optional<Error> read_vertexarrays();
    std::optional<Error> read_triangles();
    std::optional<Error> read_joints();
    std::optional<Error> read_poses();
    std::optional<Error> read_anims();
    std::optional<Error> read_frames();
    std::optional<Error> read_bounds();
    std::optional<Error> read_comment();
    std::optional<Error> read_extensions();

    std::span<const uint8_t> bytes_;
    const LoadOptions& options_;
    Warnings& warnings_;
    const bool lean_;     // big arrays checked in place, not copied (IqmFile::lean_source)
    uint64_t limit_ = 0;  // filesize: data beyond it is not part of the model
    IqmFile f_;
};

std::optional<Error> Parser::check_section(const char* what, uint64_t field, uint64_t count, uint32_t ofs, uint64_t size, bool warn) {
    if (count == 0) return {};
    if (count > options_.max_elements)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceed the limit of {}", count, what, options_.max_elements), field);
    if (ofs == 0) return malformed(field, fmt::format("{} {} announced but their offset is 0", count, what));
    if (ofs < header_size) return malformed(field, fmt::format("{} at offset {} overlap the header", what, ofs));
    if (!range_fits(ofs, count, size, limit_))
        return malformed(field, fmt::format("{} {} of {} bytes at offset {} run past the end of the file ({} bytes)", count, what, size, ofs, limit_));
    if (warn) warn_alignment(what, ofs, 4);
    return {};
}

// Every fixed section's range before anything is decoded or allocated, so a damaged tail fails
// at once instead of after decoding the vertex data.
std::optional<Error> Parser::check_ranges() {
    const Header& h = f_.header;
    const bool v1 = h.version == 1;
    struct Section {
        const char* what;
        uint64_t field, count;
        uint32_t ofs;
        uint64_t size;
    };
    const Section sections[] = {
        {"text bytes", at_num_text, h.num_text, h.ofs_text, 1},
        {"meshes", at_num_meshes, h.num_meshes, h.ofs_meshes, mesh_size},
        {"vertex arrays", at_num_vertexarrays, h.num_vertexarrays, h.ofs_vertexarrays, vertexarray_size},
        {"triangles", at_num_triangles, h.num_triangles, h.ofs_triangles, triangle_size},
        {"adjacency entries", at_ofs_adjacency, h.ofs_adjacency ? h.num_triangles : 0u, h.ofs_adjacency, triangle_size},
        {"joints", at_num_joints, h.num_joints, h.ofs_joints, v1 ? joint_size_v1 : joint_size_v2},
        {"poses", at_num_poses, h.num_poses, h.ofs_poses, v1 ? pose_size_v1 : pose_size_v2},
        {"animations", at_num_anims, h.num_anims, h.ofs_anims, anim_size},
        {"bounds", at_ofs_bounds, h.ofs_bounds ? h.num_frames : 0u, h.ofs_bounds, bounds_size},
        {"comment bytes", at_num_comment, h.num_comment, h.ofs_comment, 1},
    };
    for (auto& s : sections)
        if (auto e = check_section(s.what, s.field, s.count, s.ofs, s.size, false)) return e;
    return {};
}

void Parser::warn_alignment(const char* what, uint64_t ofs, uint64_t alignment) {
    if (ofs % alignment)
        warnings_.add(WarningCode::UnalignedOffset, fmt::format("{} at offset {} not aligned to {} bytes", what, ofs, alignment), ofs);
}

std::optional<Error> Parser::check_name(uint32_t name, uint64_t record, const char* what) {
    if (name != 0 && name >= f_.text.size())
        return malformed(record, fmt::format("{} name offset {} is outside the text block ({} bytes)", what, name, f_.text.size()));
    return {};
}

std::optional<Error> Parser::read_header() {
    if (bytes_.size() < header_size)
        return malformed(bytes_.size(), fmt::format("file is {} bytes, shorter than the 124-byte IQM header", bytes_.size()));
    if (std::memcmp(bytes_.data(), magic, 16) != 0) return malformed(0, "magic is not INTERQUAKEMODEL");
    ByteCursor c(bytes_, 16);
    Header& h = f_.header;
    for (uint32_t* field : {&h.version, &h.filesize, &h.flags, &h.num_text, &h.ofs_text, &h.num_meshes, &h.ofs_meshes,
                            &h.num_vertexarrays, &h.num_vertexes, &h.ofs_vertexarrays, &h.num_triangles, &h.ofs_triangles,
                            &h.ofs_adjacency, &h.num_joints, &h.ofs_joints, &h.num_poses, &h.ofs_poses, &h.num_anims,
                            &h.ofs_anims, &h.num_frames, &h.num_framechannels, &h.ofs_frames, &h.ofs_bounds,
                            &h.num_comment, &h.ofs_comment, &h.num_extensions, &h.ofs_extensions})
        *field = c.u32();
    if (h.version != 1 && h.version != 2)
        return make_error(ErrorCode::Unsupported, fmt::format("IQM version {} (only 1 and 2 exist)", h.version), 16);
    if (h.filesize > bytes_.size())
        return malformed(20, fmt::format("header filesize {} is larger than the file ({} bytes): truncated", h.filesize, bytes_.size()));
    if (h.filesize < header_size) return malformed(20, fmt::format("header filesize {} is smaller than the header", h.filesize));
    if (h.filesize < bytes_.size())
        warnings_.add(WarningCode::FileSizeMismatch,
                      fmt::format("header filesize {} is smaller than the file ({} bytes); the rest is ignored", h.filesize, bytes_.size()), 20);
    if (h.flags != 0) warnings_.add(WarningCode::UnknownFlags, fmt::format("header flags {:#x} have no defined meaning", h.flags), 24);
    limit_ = h.filesize;
    return {};
}

std::optional<Error> Parser::read_text() {
    const Header& h = f_.header;
    if (auto e = check_section("text bytes", at_num_text, h.num_text, h.ofs_text, 1)) return e;
    if (h.num_text == 0) return {};
    f_.text.assign(bytes_.begin() + h.ofs_text, bytes_.begin() + h.ofs_text + h.num_text);
    if (f_.text.back() != 0)
        return malformed(uint64_t(h.ofs_text) + h.num_text - 1, "the text block does not end with a NUL: its last string is unterminated");
    return {};
}

std::optional<Error> Parser::read_meshes() {
    const Header& h = f_.header;
    if (auto e = check_section("meshes", at_num_meshes, h.num_meshes, h.ofs_meshes, mesh_size)) return e;
    ByteCursor c(bytes_, h.ofs_meshes);
    f_.meshes.resize(h.num_meshes);
    for (uint32_t i = 0; i < h.num_meshes; ++i) {
        const uint64_t at = c.pos();
        MeshRecord& m = f_.meshes[i];
        m.name = c.u32(), m.material = c.u32(), m.first_vertex = c.u32(), m.num_vertexes = c.u32();
        m.first_triangle = c.u32(), m.num_triangles = c.u32();
        if (auto e = check_name(m.name, at, "mesh")) return e;
        if (auto e = check_name(m.material, at + 4, "material")) return e;
        if (uint64_t(m.first_vertex) + m.num_vertexes > h.num_vertexes)
            return malformed(at + 8, fmt::format("mesh {}: vertices {}+{} exceed num_vertexes {}", i, m.first_vertex, m.num_vertexes, h.num_vertexes));
        if (uint64_t(m.first_triangle) + m.num_triangles > h.num_triangles)
            return malformed(at + 16, fmt::format("mesh {}: triangles {}+{} exceed num_triangles {}", i, m.first_triangle, m.num_triangles, h.num_triangles));
    }
    return {};
}

std::optional<Error> Parser::read_vertexarrays() {
    const Header& h = f_.header;
    if (auto e = check_section("vertex arrays", at_num_vertexarrays, h.num_vertexarrays, h.ofs_vertexarrays, vertexarray_size)) return e;
    if (h.num_vertexes > options_.max_elements)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} vertices exceed the limit of {}", h.num_vertexes, options_.max_elements), 48);
    ByteCursor c(bytes_, h.ofs_vertexarrays);
    // Arrays may point at the same bytes; decoding is bounded by the file size so a small
    // hostile file cannot make us decode the same block a million times.
    uint64_t decoded = 0;
    bool has_position = false;
    f_.vertexarrays.resize(h.num_vertexarrays);
    for (uint32_t i = 0; i < h.num_vertexarrays; ++i) {
        const uint64_t at = c.pos();
        VertexArray& va = f_.vertexarrays[i];
        va.type = c.u32(), va.flags = c.u32(), va.format = c.u32(), va.size = c.u32(), va.offset = c.u32();
        if (va.format > max_format) return malformed(at + 8, fmt::format("vertex array {}: format {} is not an IQM format (0..8)", i, va.format));
        if (va.size < 1 || va.size > 4) return malformed(at + 12, fmt::format("vertex array {}: size {} is not 1..4", i, va.size));
        if (va.type >= IQM_CUSTOM) {
            if (auto e = check_name(va.type - IQM_CUSTOM, at, "custom vertex array")) return e;
        }
        has_position |= va.type == IQM_POSITION;
        if (h.num_vertexes == 0) continue;
        const auto type = static_cast<ComponentType>(va.format);
        const uint64_t comp = component_size(type);
        const uint64_t count = uint64_t(h.num_vertexes) * va.size;
        if (va.offset == 0) return malformed(at + 16, fmt::format("vertex array {}: data offset is 0", i));
        if (va.offset < header_size) return malformed(at + 16, fmt::format("vertex array {}: data at offset {} overlaps the header", i, va.offset));
        if (!range_fits(va.offset, count, comp, limit_))
            return malformed(at + 16, fmt::format("vertex array {}: {} components of {} bytes at offset {} run past the end of the file ({} bytes)",
                                                  i, count, comp, va.offset, limit_));
        decoded += count;
        if (decoded > limit_)
            return make_error(ErrorCode::LimitExceeded, fmt::format("vertex array {}: the arrays overlap: they hold more components than the file has bytes", i), at);
        warn_alignment("vertex array data", va.offset, std::max<uint64_t>(comp, 4));
        if (lean_) continue;
        va.values.resize(count);
        const uint8_t* p = bytes_.data() + va.offset;
        if (type == ComponentType::Float32 && std::endian::native == std::endian::little) {
            for (uint64_t k = 0; k < count; ++k, p += 4) {  // the common case, without the generic switch
                float v;
                std::memcpy(&v, p, 4);
                va.values[k] = v;
            }
        } else {
            for (uint64_t k = 0; k < count; ++k, p += comp) va.values[k] = decode_component({p, comp}, type);
        }
    }
    if (h.num_vertexes > 0 && !has_position)
        return malformed(at_num_vertexarrays, fmt::format("{} vertices but no POSITION array", h.num_vertexes));
    return {};
}

std::optional<Error> Parser::read_triangles() {
    const Header& h = f_.header;
    if (auto e = check_section("triangles", at_num_triangles, h.num_triangles, h.ofs_triangles, triangle_size)) return e;
    // Checked straight from the bytes; a lean parse leaves them there for to_scene().
    const uint8_t* p = bytes_.data() + h.ofs_triangles;
    if (!lean_) f_.triangles.resize(h.num_triangles);
    for (uint32_t i = 0; i < h.num_triangles; ++i, p += triangle_size) {
        const uint32_t v[3] = {le32(p), le32(p + 4), le32(p + 8)};
        if ((v[0] >= h.num_vertexes) | (v[1] >= h.num_vertexes) | (v[2] >= h.num_vertexes)) {
            const uint32_t bad = v[0] >= h.num_vertexes ? v[0] : v[1] >= h.num_vertexes ? v[1] : v[2];
            return malformed(uint64_t(h.ofs_triangles) + uint64_t(i) * triangle_size,
                             fmt::format("triangle {}: vertex {} >= num_vertexes {}", i, bad, h.num_vertexes));
        }
        if (!lean_) f_.triangles[i] = {v[0], v[1], v[2]};
    }
    if (h.ofs_adjacency == 0 || h.num_triangles == 0) return {};
    if (auto e = check_section("adjacency entries", at_ofs_adjacency, h.num_triangles, h.ofs_adjacency, triangle_size)) return e;
    f_.has_adjacency = true;
    p = bytes_.data() + h.ofs_adjacency;
    if (!lean_) f_.adjacency.resize(h.num_triangles);
    for (uint32_t i = 0; i < h.num_triangles; ++i, p += triangle_size) {
        const uint32_t t[3] = {le32(p), le32(p + 4), le32(p + 8)};
        for (uint32_t k = 0; k < 3; ++k)
            if (t[k] != 0xFFFFFFFFu && t[k] >= h.num_triangles)
                return malformed(uint64_t(h.ofs_adjacency) + uint64_t(i) * triangle_size,
                                 fmt::format("adjacency of triangle {}: neighbour {} >= num_triangles {}", i, t[k], h.num_triangles));
        if (!lean_) f_.adjacency[i] = {t[0], t[1], t[2]};
    }
    return {};
}

bool finite(std::initializer_list<float> values) {
    for (float v : values)
        if (!std::isfinite(v)) return false;
    return true;
}

std::optional<Error> Parser::read_joints() {
    const Header& h = f_.header;
    const bool v1 = h.version == 1;
    if (auto e = check_section("joints", at_num_joints, h.num_joints, h.ofs_joints, v1 ? joint_size_v1 : joint_size_v2)) return e;
    ByteCursor c(bytes_, h.ofs_joints);
    f_.joints.resize(h.num_joints);
    for (uint32_t i = 0; i < h.num_joints; ++i) {
        const uint64_t at = c.pos();
        JointRecord& j = f_.joints[i];
        j.name = c.u32();
        j.parent = c.i32();
        for (auto& v : j.translate) v = c.f32();
        for (int k = 0; k < (v1 ? 3 : 4); ++k) j.rotate[k] = c.f32();
        for (auto& v : j.scale) v = c.f32();
        if (auto e = check_name(j.name, at, "joint")) return e;
        auto& r = j.rotate;
        if (!finite({j.translate[0], j.translate[1], j.translate[2], r[0], r[1], r[2], r[3], j.scale[0], j.scale[1], j.scale[2]}))
            return malformed(at + 8, fmt::format("joint {}: NaN or infinite value in its transform", i));
        // v1 stores no w: the unit quaternion's w, negative by convention (docs/iqm.md §1.9).
        if (v1) r[3] = -std::sqrt(std::max(0.0f, 1.0f - r[0] * r[0] - r[1] * r[1] - r[2] * r[2]));
    }
    return {};
}

std::optional<Error> Parser::read_poses() {
    const Header& h = f_.header;
    const bool v1 = h.version == 1;
    const uint32_t channels = v1 ? 9 : 10;
    if (auto e = check_section("poses", at_num_poses, h.num_poses, h.ofs_poses, v1 ? pose_size_v1 : pose_size_v2)) return e;
    ByteCursor c(bytes_, h.ofs_poses);
    f_.poses.resize(h.num_poses);
    uint64_t masked = 0;
    for (uint32_t i = 0; i < h.num_poses; ++i) {
        const uint64_t at = c.pos();
        PoseRecord& p = f_.poses[i];
        p.num_channels = channels;
        p.parent = c.i32();
        p.channelmask = c.u32();
        for (uint32_t k = 0; k < channels; ++k) p.channeloffset[k] = c.f32();
        for (uint32_t k = 0; k < channels; ++k) p.channelscale[k] = c.f32();
        if (p.channelmask >> channels)
            return malformed(at + 4, fmt::format("pose {}: channel mask {:#x} has bits beyond the {} channels", i, p.channelmask, channels));
        for (uint32_t k = 0; k < channels; ++k)
            if (!std::isfinite(p.channeloffset[k]) || !std::isfinite(p.channelscale[k]))
                return malformed(at + 8, fmt::format("pose {}: channel {} offset or scale is NaN or infinite", i, k));
        masked += std::popcount(p.channelmask);
    }
    if (masked != h.num_framechannels)
        return malformed(96, fmt::format("num_framechannels {} but the pose masks set {} channels", h.num_framechannels, masked));
    return {};
}

std::optional<Error> Parser::read_anims() {
    const Header& h = f_.header;
    if (auto e = check_section("animations", at_num_anims, h.num_anims, h.ofs_anims, anim_size)) return e;
    ByteCursor c(bytes_, h.ofs_anims);
    f_.anims.resize(h.num_anims);
    uint64_t total_frames = 0;  // animations may share frames; their sum is what the scene holds
    for (uint32_t i = 0; i < h.num_anims; ++i) {
        const uint64_t at = c.pos();
        AnimRecord& a = f_.anims[i];
        a.name = c.u32(), a.first_frame = c.u32(), a.num_frames = c.u32();
        a.framerate = c.f32();
        a.flags = c.u32();
        if (auto e = check_name(a.name, at, "animation")) return e;
        if (uint64_t(a.first_frame) + a.num_frames > h.num_frames)
            return malformed(at + 4, fmt::format("animation {}: frames {}+{} exceed num_frames {}", i, a.first_frame, a.num_frames, h.num_frames));
        total_frames += a.num_frames;
        if (total_frames > options_.max_frames)
            return make_error(ErrorCode::LimitExceeded, fmt::format("the animations hold more than {} frames in all", options_.max_frames), at + 8);
    }
    return {};
}

std::optional<Error> Parser::read_frames() {
    const Header& h = f_.header;
    if (h.num_frames > options_.max_frames)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} frames exceed the limit of {}", h.num_frames, options_.max_frames), at_num_frames);
    if (h.num_frames == 0 || h.num_framechannels == 0) {
        if (h.num_frames > 0 && h.ofs_frames == 0)
            warnings_.add(WarningCode::FramesWithoutData, fmt::format("{} frames whose channels are all constant: no frame data", h.num_frames), at_num_frames);
        return {};
    }
    const uint64_t count = uint64_t(h.num_frames) * h.num_framechannels;
    if (count > options_.max_elements)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} frame samples exceed the limit of {}", count, options_.max_elements), at_num_frames);
    if (h.ofs_frames == 0) return malformed(100, fmt::format("{} frames of {} channels announced but ofs_frames is 0", h.num_frames, h.num_framechannels));
    if (h.ofs_frames < header_size) return malformed(100, "frames overlap the header");
    if (!range_fits(h.ofs_frames, count, 2, limit_))
        return malformed(100, fmt::format("{} frames of {} channels at offset {} run past the end of the file ({} bytes)", h.num_frames, h.num_framechannels, h.ofs_frames, limit_));
    warn_alignment("frames", h.ofs_frames, 4);
    f_.frames.resize(count);
    const uint8_t* p = bytes_.data() + h.ofs_frames;
    if (std::endian::native == std::endian::little) {
        std::memcpy(f_.frames.data(), p, count * 2);  // range-checked above
    } else {
        for (auto& v : f_.frames) v = uint16_t(p[0] | p[1] << 8), p += 2;
    }
    return {};
}

std::optional<Error> Parser::read_bounds() {
    const Header& h = f_.header;
    if (h.ofs_bounds == 0 || h.num_frames == 0) return {};
    if (auto e = check_section("bounds", at_ofs_bounds, h.num_frames, h.ofs_bounds, bounds_size)) return e;
    ByteCursor c(bytes_, h.ofs_bounds);
    f_.bounds.resize(h.num_frames);
    for (auto& b : f_.bounds) {
        for (auto& v : b.bbmins) v = c.f32();
        for (auto& v : b.bbmaxs) v = c.f32();
        b.xyradius = c.f32();
        b.radius = c.f32();
    }
    return {};
}

std::optional<Error> Parser::read_comment() {
    const Header& h = f_.header;
    if (h.num_comment == 0) return {};
    if (auto e = check_section("comment bytes", at_num_comment, h.num_comment, h.ofs_comment, 1)) return e;
    const uint8_t* p = bytes_.data() + h.ofs_comment;
    f_.comment.assign(p, p + h.num_comment);
    if (f_.comment.back() != 0) {
        // The EXM exporter writes num_comment = 1 for a whole JSON text: read to the NUL or EOF.
        const uint8_t* end = bytes_.data() + limit_;
        const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(p, 0, static_cast<size_t>(end - p)));
        f_.comment.assign(p, nul ? nul : end);
        warnings_.add(WarningCode::CommentNotTerminated,
                      fmt::format("comment of num_comment {} bytes has no final NUL; read {} bytes up to the {}", h.num_comment,
                                  f_.comment.size(), nul ? "first NUL" : "end of the file"),
                      h.ofs_comment);
    }
    return {};
}

std::optional<Error> Parser::read_extensions() {
    const Header& h = f_.header;
    uint64_t copied = 0;
    std::unordered_set<uint32_t> seen;
    for (uint32_t ofs = h.ofs_extensions; ofs != 0;) {
        if (!seen.insert(ofs).second) return malformed(ofs, "the extension list loops back on itself");
        if (ofs < header_size || !range_fits(ofs, 1, extension_size, limit_))
            return malformed(ofs, fmt::format("extension record at offset {} is outside the file ({} bytes)", ofs, limit_));
        warn_alignment("extension record", ofs, 4);
        ByteCursor c(bytes_, ofs);
        ExtensionRecord x;
        x.record_offset = ofs;
        x.name = c.u32(), x.num_data = c.u32(), x.ofs_data = c.u32(), x.ofs_extensions = c.u32();
        if (auto e = check_name(x.name, ofs, "extension")) return e;
        if (x.num_data > 0 && (x.ofs_data < header_size || !range_fits(x.ofs_data, x.num_data, 1, limit_)))
            return malformed(ofs + 4, fmt::format("extension data of {} bytes at offset {} is outside the file ({} bytes)", x.num_data, x.ofs_data, limit_));
        copied += x.num_data;
        if (copied > limit_) return make_error(ErrorCode::LimitExceeded, "extension payloads overlap: more bytes than the file has", ofs + 4);
        x.data.assign(bytes_.begin() + x.ofs_data, bytes_.begin() + x.ofs_data + x.num_data);
        ofs = x.ofs_extensions;
        f_.extensions.push_back(std::move(x));
    }
    if (f_.extensions.size() != h.num_extensions)
        warnings_.add(WarningCode::ExtensionCountMismatch,
                      fmt::format("num_extensions {} but the list holds {}", h.num_extensions, f_.extensions.size()), at_num_extensions);
    return {};
}

Expected<IqmFile> Parser::run() {
    for (auto step : {&Parser::read_header, &Parser::check_ranges, &Parser::read_text, &Parser::read_meshes, &Parser::read_vertexarrays,
                      &Parser::read_triangles, &Parser::read_joints, &Parser::read_poses, &Parser::read_anims,
                      &Parser::read_frames, &Parser::read_bounds, &Parser::read_comment, &Parser::read_extensions})
        if (auto e = (this->*step)()) return *e;
    if (lean_) f_.lean_source = bytes_;
    return std::move(f_);
}

}  // namespace

Expected<IqmFile> parse(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings, bool lean) {
    return Parser(bytes, options, warnings, lean).run();
}

}  // namespace rigport::iqm

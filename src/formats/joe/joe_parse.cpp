// JOE v3 structure: header, frames, counts and indices checked before use (docs/joe.md §1-§3, §9 rules 1-4).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <type_traits>

#include "support/huge_pages.hpp"
#include "formats/joe/joe.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::joe {

namespace {

Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

uint32_t u32_at(std::span<const uint8_t> b, uint64_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

// Records whose memory layout is the file's (little-endian host, no padding) are copied in one
// go instead of field by field.
template <class T, size_t FileSize>
constexpr bool bulk_copy() {
    return std::endian::native == std::endian::little && sizeof(T) == FileSize && std::is_trivially_copyable_v<T>;
}

// `count` float vectors (the caller has checked the bytes are there).
template <size_t N>
void read_floats(io::ByteCursor& c, std::vector<std::array<float, N>>& out, uint32_t count) {
    detail::resize_huge(out, count);
    if (bulk_copy<std::array<float, N>, 4 * N>()) {
        c.read_bytes(out.data(), uint64_t(count) * 4 * N);
        return;
    }
    for (auto& v : out)
        for (auto& x : v) x = c.f32();
}

const char* index_kind(int kind) { return kind == 0 ? "vertex" : kind == 1 ? "normal" : "texture"; }

}  // namespace

uint64_t expected_size(std::span<const uint8_t> bytes) {
    if (bytes.size() < header_size) return 0;
    const uint64_t num_faces = u32_at(bytes, 8), num_frames = u32_at(bytes, 12);
    const uint64_t faces_bytes = num_faces * face_size;  // < 2^37: no overflow
    uint64_t at = header_size;
    for (uint64_t f = 0; f < num_frames; ++f) {
        // Each frame needs at least its faces and counts: a frame count larger than the bytes
        // allow ends the walk early, so a hostile num_frames costs at most size / 12 steps.
        if (!io::range_fits(at, 1, faces_bytes + counts_size, bytes.size())) return 0;
        at += faces_bytes;
        const uint64_t nv = u32_at(bytes, at), nt = u32_at(bytes, at + 4), nn = u32_at(bytes, at + 8);
        at += counts_size + 12 * (nv + nn) + 8 * nt;  // each term < 2^36: no overflow
        if (at > bytes.size()) return 0;
    }
    return at;
}

bool detect(std::span<const uint8_t> bytes) {
    if (bytes.size() < header_size) return false;
    const uint32_t magic = u32_at(bytes, 0), version = u32_at(bytes, 4);
    if (version != joe_version || (magic != magic_idp2 && magic != 0)) return false;
    if (u32_at(bytes, 12) == 0) return false;
    return expected_size(bytes) == bytes.size();
}

Expected<JoeFile> parse(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings) {
    io::ByteCursor c(bytes);
    JoeFile file;
    if (bytes.size() < header_size)
        return malformed(bytes.size(), fmt::format("file is {} bytes, a JOE header needs {}", bytes.size(), header_size));
    file.magic = c.u32();
    file.version = c.u32();
    file.num_faces = c.u32();
    file.num_frames = c.u32();
    if (file.version != joe_version) {
        if (file.magic == magic_idp2 && file.version == md2_version)
            return make_error(ErrorCode::Unsupported, "magic IDP2 with version 8 is a Quake 2 MD2 model, not VDrift JOE (version 3)", 4);
        return make_error(ErrorCode::Unsupported, fmt::format("version {}: only JOE version 3 is known", file.version), 4);
    }
    if (file.magic != magic_idp2 && file.magic != 0)
        warnings.add(WarningCode::Tolerated, fmt::format("magic {:#010x} is neither IDP2 nor 0 (VDrift does not check it)", file.magic), 0);
    if (file.num_frames == 0) return malformed(12, "num_frames is 0 (VDrift reads frame 0 regardless: undefined behaviour)");
    if (file.num_frames > options.max_frames)
        return make_error(ErrorCode::LimitExceeded, fmt::format("num_frames {} exceeds the limit {}", file.num_frames, options.max_frames), 12);
    if (file.num_faces > options.max_elements)
        return make_error(ErrorCode::LimitExceeded, fmt::format("num_faces {} exceeds the limit {}", file.num_faces, options.max_elements), 8);
    // Frames are at least faces + counts each: refuse a frame count the bytes cannot hold before
    // reserving anything for it.
    const uint64_t frame_min = uint64_t(file.num_faces) * face_size + counts_size;
    if (!io::range_fits(header_size, file.num_frames, frame_min, bytes.size()))
        return malformed(12, fmt::format("{} frames of {} faces need at least {} bytes each, the file has {} after the header",
                                         file.num_frames, file.num_faces, frame_min, bytes.size() - header_size));
    file.frames.reserve(file.num_frames);
    for (uint32_t fi = 0; fi < file.num_frames; ++fi) {
        Frame frame;
        frame.offset = c.pos();
        if (!c.can_read(uint64_t(file.num_faces) * face_size))
            return malformed(c.pos(), fmt::format("frame {}: {} faces need {} bytes, {} left", fi, file.num_faces,
                                                  uint64_t(file.num_faces) * face_size, c.remaining()));
        detail::resize_huge(frame.faces, file.num_faces);
        if (bulk_copy<Face, 18>()) {
            c.read_bytes(frame.faces.data(), uint64_t(file.num_faces) * face_size);  // range checked above
        } else {
            for (auto& face : frame.faces) {
                for (auto& i : face.vertex) i = c.u16();
                for (auto& i : face.normal) i = c.u16();
                for (auto& i : face.texcoord) i = c.u16();
            }
        }
        frame.counts_offset = c.pos();
        if (!c.can_read(counts_size))
            return malformed(c.pos(), fmt::format("frame {}: the counts need {} bytes, {} left", fi, counts_size, c.remaining()));
        frame.num_verts = c.u32();
        frame.num_texcoords = c.u32();
        frame.num_normals = c.u32();
        const struct {
            const char* what;
            uint32_t count;
            uint64_t at;
        } counts[3] = {{"num_verts", frame.num_verts, frame.counts_offset},
                       {"num_texcoords", frame.num_texcoords, frame.counts_offset + 4},
                       {"num_normals", frame.num_normals, frame.counts_offset + 8}};
        for (auto& k : counts)
            if (k.count > options.max_elements)
                return make_error(ErrorCode::LimitExceeded, fmt::format("frame {}: {} {} exceeds the limit {}", fi, k.what, k.count,
                                                                        options.max_elements), k.at);
        const uint64_t need = 12 * (uint64_t(frame.num_verts) + frame.num_normals) + 8 * uint64_t(frame.num_texcoords);
        if (!c.can_read(need))
            return malformed(c.pos(), fmt::format("frame {}: {} verts, {} normals and {} texcoords need {} bytes, {} left", fi,
                                                  frame.num_verts, frame.num_normals, frame.num_texcoords, need, c.remaining()));
        frame.verts_offset = c.pos();
        read_floats(c, frame.verts, frame.num_verts);
        frame.normals_offset = c.pos();
        read_floats(c, frame.normals, frame.num_normals);
        frame.texcoords_offset = c.pos();
        read_floats(c, frame.texcoords, frame.num_texcoords);
        // Indices are u16 (current VDrift; docs/joe.md §2), each checked against its own array.
        // VDrift substitutes one texcoord (0,0) for a file without any, which works when every
        // texture index is 0 (ct/glass.joe).
        const uint32_t limits[3] = {frame.num_verts, frame.num_normals, std::max<uint32_t>(frame.num_texcoords, 1)};
        const uint32_t arrays[3] = {frame.num_verts, frame.num_normals, frame.num_texcoords};
        for (uint64_t f = 0; f < frame.faces.size(); ++f) {
            const Face& face = frame.faces[f];
            const std::array<uint16_t, 3>* kinds[3] = {&face.vertex, &face.normal, &face.texcoord};
            for (int kind = 0; kind < 3; ++kind)
                for (int k = 0; k < 3; ++k)
                    if ((*kinds[kind])[k] >= limits[kind])
                        return malformed(index_offset(frame, f, kind, k),
                                         fmt::format("frame {} face {}: {} index {} >= {} ({} entries)", fi, f, index_kind(kind),
                                                     (*kinds[kind])[k], arrays[kind], arrays[kind]));
        }
        file.frames.push_back(std::move(frame));
    }
    if (c.pos() != bytes.size())
        return malformed(c.pos(), fmt::format("{} bytes after the last frame: the size formula gives {}, the file has {} (real JOE "
                                              "files match it exactly)", bytes.size() - c.pos(), c.pos(), bytes.size()));
    return file;
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Warnings warnings;
    auto file = parse(bytes, options, warnings);
    if (!file) return file.error();
    return to_scene(*file, std::move(warnings));
}

}  // namespace rigport::joe

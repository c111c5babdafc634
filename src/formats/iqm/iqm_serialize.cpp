// IQM serializer: records -> bytes in the reference compiler's section order and alignment
// (docs/iqm.md §3.2 step 11), everything little-endian.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "support/huge_pages.hpp"
#include "support/thread_pool.hpp"
#include "formats/iqm/iqm_write_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::iqm {
namespace write_detail {

// ---- layout (§3.2 step 11) -----------------------------------------------------------------------


static uint64_t array_bytes(const VertexArray& va, uint32_t num_vertexes) {
    return uint64_t(num_vertexes) * va.size * component_size(ComponentType(std::min(va.format, max_format)));
}

static bool write_adjacency(const IqmFile& f) { return f.has_adjacency && !f.triangles.empty(); }
static bool write_bounds(const IqmFile& f) { return !f.bounds.empty() && f.bounds.size() == f.header.num_frames; }
static uint64_t frame_values(const IqmFile& f) { return uint64_t(f.header.num_frames) * f.header.num_framechannels; }

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

static void pad_to(io::ByteWriter& w, uint64_t at) {
    while (w.size() < at) w.u8(0);
}

// The vertex arrays, each at its offset: the section is sized once (zeros: the padding, and
// values missing from a short array), then filled in chunks of values in parallel, each chunk
// encoded on its own, exactly as in one piece.
static void encode_vertex_arrays(const IqmFile& file, const Layout& l, std::vector<uint8_t>& out, uint32_t threads) {
    constexpr uint64_t values_per_chunk = 1 << 14;  // a chunk's scratch stays small (<= 128 KiB)
    struct Piece {
        const double* values;
        uint64_t count, at;
        ComponentType type;
    };
    std::vector<Piece> pieces;
    uint64_t end = out.size();
    for (size_t a = 0; a < file.vertexarrays.size(); ++a) {
        const VertexArray& va = file.vertexarrays[a];
        const auto type = ComponentType(std::min(va.format, max_format));
        const uint64_t count = uint64_t(l.header.num_vertexes) * va.size;
        const uint64_t stored = std::min<uint64_t>(count, va.values.size());
        const uint64_t grain = detail::chunk_grain(values_per_chunk);
        for (uint64_t first = 0; first < stored; first += grain)
            pieces.push_back({va.values.data() + first, std::min(grain, stored - first),
                              l.array_offsets[a] + first * component_size(type), type});
        end = std::max(end, l.array_offsets[a] + count * component_size(type));
    }
    out.resize(end);
    if (pieces.size() <= file.vertexarrays.size()) threads = 1;  // small: one piece an array, not worth a thread
    detail::parallel_for(pieces.size(), 1, threads, [&](size_t begin, size_t stop) {
        std::vector<uint8_t> bytes;
        for (size_t i = begin; i < stop; ++i) {
            bytes.clear();
            encode_components(pieces[i].values, pieces[i].count, pieces[i].type, bytes);
            std::copy(bytes.begin(), bytes.end(), out.begin() + ptrdiff_t(pieces[i].at));
        }
    });
}

// The arrays fill_arrays() encoded (LeanArrays::bytes), each copied to its offset and freed.
static void copy_vertex_arrays(const Layout& l, std::vector<uint8_t>& out, std::vector<std::vector<uint8_t>>& encoded) {
    for (size_t a = 0; a < encoded.size() && a < l.array_offsets.size(); ++a) {
        const uint64_t at = l.array_offsets[a];
        if (out.size() < at) out.resize(at);  // the alignment padding: zeros
        out.insert(out.end(), encoded[a].begin(), encoded[a].end());
        std::vector<uint8_t>().swap(encoded[a]);
    }
}

}  // namespace write_detail

using namespace write_detail;

std::vector<uint8_t> serialize(const IqmFile& file) { return write_detail::serialize(file, 0); }

std::vector<uint8_t> write_detail::serialize(const IqmFile& file, uint32_t threads, std::vector<std::vector<uint8_t>>* encoded) {
    const Layout l = plan_layout(file);
    const Header& h = l.header;
    io::ByteWriter w;
    detail::reserve_huge(w.bytes(), l.filesize);  // the largest block: one fault per 2 MiB
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
    if (encoded) copy_vertex_arrays(l, w.bytes(), *encoded);
    else encode_vertex_arrays(file, l, w.bytes(), threads);
    w.pad_to(4);

    // On a little-endian machine the uint32 lists are their bytes: one copy each.
    constexpr bool little = std::endian::native == std::endian::little;
    if (little) w.bytes(file.triangles.data(), file.triangles.size() * sizeof(Triangle));
    else
        for (auto& t : file.triangles)
            for (uint32_t v : t) w.u32(v);
    if (h.ofs_adjacency && little && file.adjacency.size() == file.triangles.size())
        w.bytes(file.adjacency.data(), file.adjacency.size() * sizeof(Triangle));
    else if (h.ofs_adjacency)
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

}  // namespace rigport::iqm

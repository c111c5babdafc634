// A tiny, independent IQM file builder for tests: lays out raw records so tests can make v1
// files, quirks and damage that rigport's own writer would never produce.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rigport::test {

struct RawArray {
    uint32_t type = 0, format = 7, size = 3;
    std::vector<uint8_t> data;  // num_vertexes * size components, little-endian
};

struct RawIqm {
    uint32_t version = 2;
    std::string text;  // NULs included by the caller; first byte should be NUL
    uint32_t num_vertexes = 0;
    std::vector<std::array<uint32_t, 6>> meshes;  // name, material, first_vertex, num_vertexes, first_triangle, num_triangles
    std::vector<RawArray> arrays;
    std::vector<uint32_t> triangles;  // 3 per triangle
    std::vector<uint32_t> adjacency;  // empty = absent
    std::vector<uint8_t> joints;      // raw records (48 bytes v2, 44 v1)
    uint32_t num_joints = 0;
    std::vector<uint8_t> poses;       // raw records (88 v2, 80 v1)
    uint32_t num_poses = 0;
    std::vector<uint8_t> anims;       // raw records (20 bytes)
    uint32_t num_anims = 0;
    uint32_t num_frames = 0, num_framechannels = 0;
    std::vector<uint16_t> frames;
    std::vector<uint8_t> bounds;      // raw 32-byte records, empty = absent
    std::vector<uint8_t> comment;
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> extensions;  // name offset, payload
    uint32_t align = 4;               // section alignment (1 makes unaligned files)
};

// Little-endian appenders.
inline void put_u32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put_i32(std::vector<uint8_t>& b, int32_t v) { put_u32(b, static_cast<uint32_t>(v)); }
inline void put_f32(std::vector<uint8_t>& b, float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    put_u32(b, u);
}
inline void put_u16(std::vector<uint8_t>& b, uint16_t v) {
    b.push_back(static_cast<uint8_t>(v));
    b.push_back(static_cast<uint8_t>(v >> 8));
}
inline uint32_t get_u32(const std::vector<uint8_t>& b, size_t at) {
    return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | uint32_t(b[at + 3]) << 24;
}
inline void set_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// A v2 joint / pose record.
inline void put_joint(std::vector<uint8_t>& b, uint32_t name, int32_t parent, std::array<float, 3> t, std::array<float, 4> q,
                      std::array<float, 3> s, bool v1 = false) {
    put_u32(b, name);
    put_i32(b, parent);
    for (float v : t) put_f32(b, v);
    for (int i = 0; i < (v1 ? 3 : 4); ++i) put_f32(b, q[i]);
    for (float v : s) put_f32(b, v);
}
inline void put_pose(std::vector<uint8_t>& b, int32_t parent, uint32_t mask, const std::vector<float>& offset,
                     const std::vector<float>& scale) {
    put_i32(b, parent);
    put_u32(b, mask);
    for (float v : offset) put_f32(b, v);
    for (float v : scale) put_f32(b, v);
}
inline void put_anim(std::vector<uint8_t>& b, uint32_t name, uint32_t first, uint32_t count, float rate, uint32_t flags) {
    put_u32(b, name);
    put_u32(b, first);
    put_u32(b, count);
    put_f32(b, rate);
    put_u32(b, flags);
}

// Header field offsets (docs/iqm.md §1.2).
enum HeaderField : size_t {
    H_VERSION = 16, H_FILESIZE = 20, H_FLAGS = 24, H_NUM_TEXT = 28, H_OFS_TEXT = 32, H_NUM_MESHES = 36, H_OFS_MESHES = 40,
    H_NUM_VERTEXARRAYS = 44, H_NUM_VERTEXES = 48, H_OFS_VERTEXARRAYS = 52, H_NUM_TRIANGLES = 56, H_OFS_TRIANGLES = 60,
    H_OFS_ADJACENCY = 64, H_NUM_JOINTS = 68, H_OFS_JOINTS = 72, H_NUM_POSES = 76, H_OFS_POSES = 80, H_NUM_ANIMS = 84,
    H_OFS_ANIMS = 88, H_NUM_FRAMES = 92, H_NUM_FRAMECHANNELS = 96, H_OFS_FRAMES = 100, H_OFS_BOUNDS = 104,
    H_NUM_COMMENT = 108, H_OFS_COMMENT = 112, H_NUM_EXTENSIONS = 116, H_OFS_EXTENSIONS = 120,
};

inline std::vector<uint8_t> build_iqm(const RawIqm& m) {
    std::vector<uint8_t> b(124, 0);
    std::memcpy(b.data(), "INTERQUAKEMODEL", 16);
    set_u32(b, H_VERSION, m.version);
    auto section = [&](size_t num_field, size_t ofs_field, uint32_t count, const std::vector<uint8_t>& bytes) {
        if (num_field) set_u32(b, num_field, count);
        if (bytes.empty()) return;
        while (b.size() % m.align) b.push_back(0);
        set_u32(b, ofs_field, static_cast<uint32_t>(b.size()));
        b.insert(b.end(), bytes.begin(), bytes.end());
    };
    section(H_NUM_TEXT, H_OFS_TEXT, static_cast<uint32_t>(m.text.size()), std::vector<uint8_t>(m.text.begin(), m.text.end()));
    std::vector<uint8_t> meshes;
    for (auto& r : m.meshes)
        for (uint32_t v : r) put_u32(meshes, v);
    section(H_NUM_MESHES, H_OFS_MESHES, static_cast<uint32_t>(m.meshes.size()), meshes);
    // Vertex array records first (offsets patched once the data is placed).
    std::vector<uint8_t> records;
    for (auto& a : m.arrays) {
        put_u32(records, a.type), put_u32(records, 0), put_u32(records, a.format), put_u32(records, a.size), put_u32(records, 0);
    }
    section(H_NUM_VERTEXARRAYS, H_OFS_VERTEXARRAYS, static_cast<uint32_t>(m.arrays.size()), records);
    set_u32(b, H_NUM_VERTEXES, m.num_vertexes);
    const size_t records_at = get_u32(b, H_OFS_VERTEXARRAYS);
    for (size_t i = 0; i < m.arrays.size(); ++i) {
        while (b.size() % m.align) b.push_back(0);
        set_u32(b, records_at + i * 20 + 16, static_cast<uint32_t>(b.size()));
        b.insert(b.end(), m.arrays[i].data.begin(), m.arrays[i].data.end());
    }
    std::vector<uint8_t> tris, adj, frames;
    for (uint32_t v : m.triangles) put_u32(tris, v);
    for (uint32_t v : m.adjacency) put_u32(adj, v);
    for (uint16_t v : m.frames) put_u16(frames, v);
    section(H_NUM_TRIANGLES, H_OFS_TRIANGLES, static_cast<uint32_t>(m.triangles.size() / 3), tris);
    section(0, H_OFS_ADJACENCY, 0, adj);
    section(H_NUM_JOINTS, H_OFS_JOINTS, m.num_joints, m.joints);
    section(H_NUM_POSES, H_OFS_POSES, m.num_poses, m.poses);
    section(H_NUM_ANIMS, H_OFS_ANIMS, m.num_anims, m.anims);
    set_u32(b, H_NUM_FRAMES, m.num_frames);
    set_u32(b, H_NUM_FRAMECHANNELS, m.num_framechannels);
    section(0, H_OFS_FRAMES, 0, frames);
    section(0, H_OFS_BOUNDS, 0, m.bounds);
    section(H_NUM_COMMENT, H_OFS_COMMENT, static_cast<uint32_t>(m.comment.size()), m.comment);
    // Extensions: a linked list, each record followed by its payload.
    uint32_t previous_next_field = H_OFS_EXTENSIONS;
    for (auto& [name, payload] : m.extensions) {
        while (b.size() % 4) b.push_back(0);
        const uint32_t at = static_cast<uint32_t>(b.size());
        set_u32(b, previous_next_field, at);
        put_u32(b, name), put_u32(b, static_cast<uint32_t>(payload.size())), put_u32(b, at + 16), put_u32(b, 0);
        b.insert(b.end(), payload.begin(), payload.end());
        previous_next_field = at + 12;
    }
    set_u32(b, H_NUM_EXTENSIONS, static_cast<uint32_t>(m.extensions.size()));
    set_u32(b, H_FILESIZE, static_cast<uint32_t>(b.size()));
    return b;
}

inline std::vector<uint8_t> floats(std::initializer_list<float> values) {
    std::vector<uint8_t> b;
    for (float v : values) put_f32(b, v);
    return b;
}

}  // namespace rigport::test

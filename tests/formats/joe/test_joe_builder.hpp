// Small JOE v3 files written byte by byte in the tests (docs/joe.md §2), independent of rigport's writer.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace rigport::test {

struct JoeFaceSpec {
    std::array<uint16_t, 3> v{}, n{}, t{};
};

struct JoeFrameSpec {
    std::vector<JoeFaceSpec> faces;
    std::vector<std::array<float, 3>> verts, normals;
    std::vector<std::array<float, 2>> texcoords;
};

struct JoeSpec {
    uint32_t magic = 0x32504449u;  // "IDP2"
    uint32_t version = 3;
    std::vector<JoeFrameSpec> frames;
    // num_faces is the first frame's face count unless set.
    int64_t num_faces = -1;
};

inline void put_u32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
inline void put_u16(std::vector<uint8_t>& b, uint16_t v) {
    b.push_back(uint8_t(v));
    b.push_back(uint8_t(v >> 8));
}
inline void put_f32(std::vector<uint8_t>& b, float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    put_u32(b, u);
}
inline uint32_t get_u32_at(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
inline void set_u32_at(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

inline std::vector<uint8_t> build_joe(const JoeSpec& s) {
    std::vector<uint8_t> b;
    put_u32(b, s.magic);
    put_u32(b, s.version);
    put_u32(b, uint32_t(s.num_faces >= 0 ? uint64_t(s.num_faces) : s.frames.empty() ? 0 : s.frames[0].faces.size()));
    put_u32(b, uint32_t(s.frames.size()));
    for (auto& f : s.frames) {
        for (auto& face : f.faces) {
            for (auto i : face.v) put_u16(b, i);
            for (auto i : face.n) put_u16(b, i);
            for (auto i : face.t) put_u16(b, i);
        }
        put_u32(b, uint32_t(f.verts.size()));
        put_u32(b, uint32_t(f.texcoords.size()));  // counts: verts, texcoords, normals ...
        put_u32(b, uint32_t(f.normals.size()));
        for (auto& v : f.verts)
            for (float x : v) put_f32(b, x);
        for (auto& n : f.normals)  // ... arrays: verts, normals, texcoords
            for (float x : n) put_f32(b, x);
        for (auto& t : f.texcoords)
            for (float x : t) put_f32(b, x);
    }
    return b;
}

// A unit quad in the z = 0 plane as two CCW faces (seen from +z) with +z normals: 4 verts, 1
// normal, 4 texcoords (v top-down: v = 0 at y = 1).
inline JoeFrameSpec quad_frame() {
    JoeFrameSpec f;
    f.verts = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    f.normals = {{0, 0, 1}};
    f.texcoords = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    f.faces = {{{0, 1, 2}, {0, 0, 0}, {0, 1, 2}}, {{0, 2, 3}, {0, 0, 0}, {0, 2, 3}}};
    return f;
}

}  // namespace rigport::test

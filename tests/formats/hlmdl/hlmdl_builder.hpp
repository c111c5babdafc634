// A small Half-Life studio model written field by field (docs/hlmdl.md "Layout"), for the reader's
// tests and the robustness harness's seed: two bones, one sequence of run-length values, a masked
// 2 x 2 texture, one mesh of one triangle strip.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rigport::test::hlmdl_fixture {

// Where the parts lie (each record right after the one before).
constexpr uint32_t bones_at = 244, group_at = 468, seq_at = 572, anim_at = 748, z_values_at = 772, rot_values_at = 780, texture_at = 784,
                   skin_at = 864, pixels_at = 868, bodypart_at = 1640, model_at = 1716, mesh_at = 1828, vertinfo_at = 1848, verts_at = 1852,
                   norminfo_at = 1900, norms_at = 1904, tricmds_at = 1916, file_size = 1952;

inline void set32(std::vector<uint8_t>& b, uint32_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + uint32_t(i)] = uint8_t(v >> (8 * i));
}
inline void setf(std::vector<uint8_t>& b, uint32_t at, float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    set32(b, at, v);
}
inline void set16(std::vector<uint8_t>& b, uint32_t at, int32_t v) {
    b[at] = uint8_t(v), b[at + 1] = uint8_t(uint32_t(v) >> 8);
}
inline void set_name(std::vector<uint8_t>& b, uint32_t at, const std::string& name) { std::memcpy(b.data() + at, name.data(), name.size()); }

// Bone "root" at (0, 0, 10); bone "child" under it at (1, 0, 0) turned a quarter about z. Sequence
// "idle", 15 fps, looping, 3 frames: root's z moves 10 + 0, 1, 2 (scale 0.1), child's z angle is
// pi/2 + 50 * 0.01. Texture "skin.bmp" 2 x 2, masked, pixels 0 1 2 255 (palette entry k = (k, 2k, 3k)).
// Mesh: one strip over four corners (vertex k, normal 0, s t in texels), vertices 0 1 on root, 2 3
// on child, at (0 0 0), (1 0 0), (0 1 0), (1 1 0) in their bones' space.
inline std::vector<uint8_t> model() {
    std::vector<uint8_t> b(file_size, 0);
    set_name(b, 0, "IDST");
    set32(b, 4, 10);
    set_name(b, 8, "models/fixture.mdl");
    set32(b, 72, file_size);
    set32(b, 140, 2), set32(b, 144, bones_at);
    set32(b, 164, 1), set32(b, 168, seq_at);
    set32(b, 172, 1), set32(b, 176, group_at);
    set32(b, 180, 1), set32(b, 184, texture_at), set32(b, 188, pixels_at);
    set32(b, 192, 1), set32(b, 196, 1), set32(b, 200, skin_at);
    set32(b, 204, 1), set32(b, 208, bodypart_at);
    // Bones.
    for (uint32_t j = 0; j < 2; ++j) {
        const uint32_t at = bones_at + 112 * j;
        set_name(b, at, j == 0 ? "root" : "child");
        set32(b, at + 32, j == 0 ? uint32_t(-1) : 0);
        for (uint32_t c = 0; c < 6; ++c) set32(b, at + 40 + 4 * c, uint32_t(-1));
        for (uint32_t c = 0; c < 6; ++c) setf(b, at + 88 + 4 * c, c < 3 ? 0.1f : 0.01f);
    }
    setf(b, bones_at + 64 + 8, 10.0f);                     // root z
    setf(b, bones_at + 112 + 64, 1.0f);                    // child x
    setf(b, bones_at + 112 + 64 + 20, float(M_PI / 2));    // child rotation z
    set_name(b, group_at, "default");
    // Sequence and its channels.
    set_name(b, seq_at, "idle");
    setf(b, seq_at + 32, 15.0f);
    set32(b, seq_at + 36, 1);
    set32(b, seq_at + 56, 3);
    set32(b, seq_at + 120, 1);
    set32(b, seq_at + 124, anim_at);
    set16(b, anim_at + 4, int32_t(z_values_at - anim_at));             // root, position z
    set16(b, anim_at + 12 + 10, int32_t(rot_values_at - anim_at - 12));  // child, rotation z
    b[z_values_at] = 3, b[z_values_at + 1] = 3;
    set16(b, z_values_at + 2, 0), set16(b, z_values_at + 4, 10), set16(b, z_values_at + 6, 20);
    b[rot_values_at] = 1, b[rot_values_at + 1] = 3;
    set16(b, rot_values_at + 2, 50);
    // Texture, skin table, pixels and palette.
    set_name(b, texture_at, "skin.bmp");
    set32(b, texture_at + 64, 64);  // masked
    set32(b, texture_at + 68, 2), set32(b, texture_at + 72, 2), set32(b, texture_at + 76, pixels_at);
    set16(b, skin_at, 0);
    b[pixels_at] = 0, b[pixels_at + 1] = 1, b[pixels_at + 2] = 2, b[pixels_at + 3] = 255;
    for (uint32_t k = 0; k < 256; ++k)
        for (uint32_t c = 0; c < 3; ++c) b[pixels_at + 4 + 3 * k + c] = uint8_t(k * (c + 1));
    // Body part, model, mesh.
    set_name(b, bodypart_at, "body");
    set32(b, bodypart_at + 64, 1), set32(b, bodypart_at + 68, 1), set32(b, bodypart_at + 72, model_at);
    set_name(b, model_at, "part");
    set32(b, model_at + 72, 1), set32(b, model_at + 76, mesh_at);
    set32(b, model_at + 80, 4), set32(b, model_at + 84, vertinfo_at), set32(b, model_at + 88, verts_at);
    set32(b, model_at + 92, 1), set32(b, model_at + 96, norminfo_at), set32(b, model_at + 100, norms_at);
    set32(b, mesh_at, 2), set32(b, mesh_at + 4, tricmds_at), set32(b, mesh_at + 8, 0);
    b[vertinfo_at] = 0, b[vertinfo_at + 1] = 0, b[vertinfo_at + 2] = 1, b[vertinfo_at + 3] = 1;
    const float verts[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (uint32_t v = 0; v < 4; ++v)
        for (uint32_t c = 0; c < 3; ++c) setf(b, verts_at + 12 * v + 4 * c, verts[v][c]);
    setf(b, norms_at + 8, 1.0f);
    set16(b, tricmds_at, 4);  // a strip of four corners
    const int32_t st[4][2] = {{0, 0}, {2, 0}, {0, 2}, {2, 2}};
    for (uint32_t k = 0; k < 4; ++k) {
        const uint32_t at = tricmds_at + 2 + 8 * k;
        set16(b, at, int32_t(k)), set16(b, at + 2, 0), set16(b, at + 4, st[k][0]), set16(b, at + 6, st[k][1]);
    }
    set16(b, tricmds_at + 34, 0);
    return b;
}

}  // namespace rigport::test::hlmdl_fixture

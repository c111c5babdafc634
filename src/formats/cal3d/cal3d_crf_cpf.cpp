// CRF binary material and CPF binary morph animation readers (docs/cal3d.md §2.4, §2.5).
#include "formats/cal3d/cal3d_binary.hpp"
#include "formats/cal3d/cal3d_write_material.hpp"

namespace rigport::cal3d {

Expected<Scene> read_crf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    BinaryReader r(bytes, options, scene.warnings);
    int32_t version = 0;
    if (auto e = r.header(FileType::Material, version)) return *e;
    uint8_t ambient[4], diffuse[4], specular[4];
    r.c.read_bytes(ambient, 4);
    r.c.read_bytes(diffuse, 4);
    r.c.read_bytes(specular, 4);
    Material m;
    const uint64_t at = r.c.pos();
    m.shininess = r.finite(r.c.f32(), at);
    const uint64_t count_at = r.c.pos();
    const int32_t map_count = r.c.i32();
    if (!r.c.ok()) return r.short_read("header");
    // A type string follows each filename in IMVU and trunk files (a classic reader would take
    // it for the next map, §2.4; the exact-size check catches that misdispatch).
    const bool typed = family_of(version) != Family::Classic;
    if (auto e = r.count(map_count, count_at, "mapCount", typed ? 8 : 4)) return *e;
    set_colors(m, ambient, diffuse, specular);
    mark_alpha_zero(scene, ambient, diffuse, specular);
    for (int32_t i = 0; i < map_count; ++i) {
        TextureMap map;
        if (auto e = r.string(map.uri, [&] { return fmt::format("map {} filename", i); })) return *e;
        if (typed)
            if (auto e = r.string(map.type_name, [&] { return fmt::format("map {} type", i); })) return *e;
        map.type = texture_type(map.type_name);
        m.maps.push_back(std::move(map));
    }
    if (auto e = r.at_end()) return *e;
    scene.materials.push_back(std::move(m));
    set_meta(scene, FileType::Material, true, version);
    return scene;
}

Expected<Scene> read_cpf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    BinaryReader r(bytes, options, scene.warnings);
    int32_t version = 0;
    if (auto e = r.header(FileType::MorphAnimation, version)) return *e;
    const uint64_t duration_at = r.c.pos();
    const float duration = r.c.f32();
    const uint64_t count_at = r.c.pos();
    const int32_t track_count = r.c.i32();
    if (!r.c.ok()) return r.short_read("header");
    if (!(duration > 0) || !std::isfinite(duration)) return r.bad(fmt::format("duration {} is not > 0", duration), duration_at);
    if (auto e = r.count(track_count, count_at, "trackCount", 8)) return *e;
    // IM: string morphName; UP 1301's reader: int morphId (its writer is broken, §2.5).
    const bool by_id = family_of(version) == Family::Trunk;
    std::vector<MorphTrack> tracks(static_cast<size_t>(track_count));
    for (int32_t i = 0; i < track_count; ++i) {
        MorphTrack& t = tracks[size_t(i)];
        if (by_id) {
            t.morph_id = r.c.i32();
            t.mesh_id = 0;
        } else if (auto e = r.string(t.morph_name, [&] { return fmt::format("track {} morph name", i); })) {
            return *e;
        }
        const uint64_t keys_at = r.c.pos();
        const int32_t key_count = r.c.i32();
        if (!r.c.ok()) return r.short_read(fmt::format("track {}", i));
        if (auto e = r.count(key_count, keys_at, [&] { return fmt::format("track {} keyCount", i); }, 8)) return *e;
        for (int32_t k = 0; k < key_count; ++k) {
            const uint64_t at = r.c.pos();
            t.times.push_back(r.finite(r.c.f32(), at));
            t.weights.push_back(r.finite(r.c.f32(), at));
        }
    }
    if (auto e = r.at_end()) return *e;
    finish_morph_animation(duration, tracks, scene);
    set_meta(scene, FileType::MorphAnimation, true, version);
    return scene;
}

}  // namespace rigport::cal3d

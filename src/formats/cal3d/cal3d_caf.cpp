// CAF binary animation reader: float keys, 0.12 quantised keys, IMVU/trunk bit-packed keys (docs/cal3d.md §2.2).
#include "formats/cal3d/cal3d_binary.hpp"

namespace rigport::cal3d {

namespace {

// LSB-first bit stream over whole bytes: stream bit 8k+j is bit j of byte k.
class Bits {
public:
    explicit Bits(const uint8_t* p) : p_(p) {}
    uint32_t take(unsigned n) {
        uint32_t v = 0;
        for (unsigned i = 0; i < n; ++i, ++bit_) v |= uint32_t((p_[bit_ / 8] >> (bit_ % 8)) & 1u) << i;
        return v;
    }

private:
    const uint8_t* p_;
    uint64_t bit_ = 0;
};

std::optional<Error> read_float_keys(BinaryReader& r, int32_t key_count, Track& t) {
    for (int32_t k = 0; k < key_count; ++k) {
        const uint64_t at = r.c.pos();
        Key key;
        key.time = r.finite(r.c.f32(), at);
        key.translation = r.vec3();
        key.rotation = r.quat();
        // IM's "no translation" sentinel (1e10, 1e10, 1e10): the bind translation.
        if (key.translation[0] >= invalid_translation * 0.5f) key.has_translation = false;
        r.finite(key.translation, at);
        for (float& x : key.rotation) x = r.finite(x, at);
        t.keys.push_back(key);
    }
    return r.c.ok() ? std::nullopt : std::optional<Error>(r.short_read("keys"));
}

// 0.12 flags bit 0 (v1200): min/scale then 12-byte keys.
std::optional<Error> read_quantised_keys(BinaryReader& r, int32_t key_count, float duration, Track& t) {
    const Vec3 min = r.vec3(), scale = r.vec3();
    for (int32_t k = 0; k < key_count; ++k) {
        Key key;
        key.time = float(r.c.u16()) / 65535.0f * duration;
        const uint32_t p = r.c.u32();
        const uint32_t q[3] = {p & 0x7FFu, (p >> 11) & 0x7FFu, (p >> 22) & 0x3FFu};
        for (int i = 0; i < 3; ++i) key.translation[i] = float(q[i]) * scale[i] + min[i];
        int16_t s[3] = {r.c.i16(), r.c.i16(), r.c.i16()};
        const int which = ((s[1] & 1) << 1) | (s[2] & 1);
        s[1] = int16_t(s[1] & ~1);
        s[2] = int16_t(s[2] & ~1);
        float c[3];
        for (int i = 0; i < 3; ++i) c[i] = float(s[i]) / 32767.0f / 1.41421f;
        const float derived = std::sqrt(std::max(0.0f, 1.0f - c[0] * c[0] - c[1] * c[1] - c[2] * c[2]));
        switch (which) {
            case 3: key.rotation = {c[0], c[1], c[2], derived}; break;
            case 2: key.rotation = {c[0], c[1], derived, c[2]}; break;
            case 1: key.rotation = {c[0], derived, c[1], c[2]}; break;
            default: key.rotation = {derived, c[0], c[1], c[2]}; break;
        }
        t.keys.push_back(key);
    }
    return r.c.ok() ? std::nullopt : std::optional<Error>(r.short_read("quantised keys"));
}

float signed_value(uint32_t m, uint32_t sign, double max_m, double range) {
    const double v = double(m) / max_m * range;
    return float(sign ? -v : v);
}

// IMVU packed track (IM loader.cpp): 4-byte header, then per key an optional translation block,
// 6 bytes of rotation + time, and the raw floats of v916 / v917.
std::optional<Error> read_packed_track(BinaryReader& r, int32_t version, Track& t) {
    const uint64_t at = r.c.pos();
    uint8_t h[4];
    r.c.read_bytes(h, 4);
    if (!r.c.ok()) return r.short_read("packed track header");
    t.bone = int32_t(h[0]) + int32_t(h[1] & 0x1F) * 256;
    const bool translation_required = h[1] & 0x80, high_range = h[1] & 0x40, dynamic = h[1] & 0x20;
    const int32_t key_count = int32_t(h[2]) | int32_t(h[3]) << 8;
    if (auto e = r.count(key_count, at + 2, "packed track keyCount", 6, 1)) return e;
    for (int32_t k = 0; k < key_count; ++k) {
        Key key;
        key.has_translation = false;
        bool wrote_translation = false;
        if (translation_required && (k == 0 || dynamic)) {
            uint8_t b[10];
            const unsigned n = high_range ? 10 : 4;
            r.c.read_bytes(b, n);
            Bits bits(b);
            const unsigned mbits = high_range ? 25 : 9;
            const double max_m = high_range ? 33554431.0 : 511.0, range = high_range ? 8388608.0 : 128.0;
            for (int i = 0; i < 3; ++i) {
                const uint32_t m = bits.take(mbits);
                key.translation[i] = signed_value(m, bits.take(1), max_m, range);
            }
            key.has_translation = wrote_translation = true;
        } else if (translation_required && !t.keys.empty()) {
            key.translation = t.keys.back().translation;  // the previous key's
            key.has_translation = t.keys.back().has_translation;
        }
        uint8_t b[6];
        r.c.read_bytes(b, 6);
        Bits bits(b);
        const uint32_t omitted = bits.take(2);
        float q[4] = {0, 0, 0, 0};
        double sum = 0;
        for (uint32_t i = 0; i < 4; ++i) {
            if (i == omitted) continue;
            const uint32_t sign = bits.take(1);
            q[i] = signed_value(bits.take(11), sign, 2047.0, 1.0);
            sum += double(q[i]) * q[i];
        }
        q[omitted] = float(std::sqrt(std::max(0.0, 1.0 - sum)));
        key.rotation = {q[0], q[1], q[2], q[3]};
        key.time = float(bits.take(10)) / 30.0f;
        if (version == 917 && wrote_translation) key.translation = r.vec3();
        if (version == 916 || version == 917) key.rotation = r.quat();
        if (!r.c.ok()) return r.short_read("packed key");
        r.finite(key.translation, at);
        for (float& x : key.rotation) x = r.finite(x, at);
        t.keys.push_back(key);
    }
    return std::nullopt;
}

}  // namespace

Expected<Scene> read_caf(std::span<const uint8_t> bytes, const LoadOptions& options) { return read_caf(bytes, options, Ids::Placeholders); }

Expected<Scene> read_caf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids) {
    Scene scene;
    BinaryReader r(bytes, options, scene.warnings);
    int32_t version = 0;
    if (auto e = r.header(FileType::Animation, version)) return *e;
    const Family family = family_of(version);
    int32_t compression = 0, flags = 0;
    if ((family == Family::Imvu && version == 919) || family == Family::Trunk) compression = r.c.i32();
    const bool packed = (family == Family::Imvu && version >= 913 && version <= 918) || compression != 0;
    const uint64_t duration_at = r.c.pos();
    const float duration = r.c.f32();
    const uint64_t count_at = r.c.pos();
    const int32_t track_count = r.c.i32();
    if (version == 1200 || version >= 1301) flags = r.c.i32();
    if (!r.c.ok()) return r.short_read("header");
    if (!(duration > 0) || !std::isfinite(duration)) return r.bad(fmt::format("duration {} is not > 0", duration), duration_at);
    if (auto e = r.count(track_count, count_at, "trackCount", packed ? 10 : 40, 1)) return *e;
    const bool quantised = version == 1200 && (flags & 1);
    if (flags & ~1) scene.warnings.add(WarningCode::UnknownFlags, fmt::format("CAF flags {:#x}", flags), count_at + 4);
    if (family == Family::Trunk && (flags & 1))
        scene.warnings.add(WarningCode::Ignored, "trunk CAF flags bit 0 is ignored (as upstream does)", count_at + 4);
    std::vector<Track> tracks(static_cast<size_t>(track_count));
    for (int32_t i = 0; i < track_count; ++i) {
        Track& t = tracks[size_t(i)];
        t.offset = r.c.pos();
        if (packed) {
            if (auto e = read_packed_track(r, version, t)) return *e;
            continue;
        }
        t.bone = r.c.i32();
        const uint64_t keys_at = r.c.pos();
        const int32_t key_count = r.c.i32();
        if (!r.c.ok()) return r.short_read(fmt::format("track {}", i));
        if (t.bone < 0 || t.bone > max_bone_id) return r.bad(fmt::format("track {}: boneId {} not in [0, {}]", i, t.bone, max_bone_id), t.offset);
        if (auto e = r.count(key_count, keys_at, [&] { return fmt::format("track {} keyCount", i); }, quantised ? 12 : 32, 1)) return *e;
        t.keys.reserve(size_t(key_count));
        auto e = quantised ? read_quantised_keys(r, key_count, duration, t) : read_float_keys(r, key_count, t);
        if (e) return *e;
    }
    if (auto e = r.at_end()) return *e;
    if (auto st = finish_animation(duration, tracks, scene, ids); !st) return st.error();
    set_meta(scene, FileType::Animation, true, version);
    return scene;
}

}  // namespace rigport::cal3d

// JOE records -> Scene: corners welded on index triples as VDrift builds its mesh (model_joe03.cpp;
// docs/joe.md §3 steps 3-6, §5, §9 rules 3-4), frames 1.. as morph targets.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "support/huge_pages.hpp"
#include "formats/joe/joe.hpp"

namespace rigport::joe {

namespace {

// Adds a warning seen n times (the count travels with it; the message stays the same).
void warn_n(Warnings& warnings, WarningCode code, const std::string& message, uint64_t n, std::optional<uint64_t> offset) {
    if (n == 0) return;
    warnings.add(code, message, offset);
    for (auto& w : warnings.items)
        if (w.code == code && w.message == message) {
            w.count += uint32_t(std::min<uint64_t>(n - 1, UINT32_MAX - w.count));
            break;
        }
}

template <size_t N>
bool finite(const std::array<float, N>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

template <size_t N>
bool same_bits(const std::array<float, N>& a, const std::array<float, N>& b) {
    return std::memcmp(a.data(), b.data(), sizeof(float) * N) == 0;
}

// Per-array value checks of one frame, counted in the file's own entries.
void check_values(const Frame& frame, uint32_t index, Warnings& warnings) {
    uint64_t bad_verts = 0, bad_normals = 0, zero_normals = 0, bad_texcoords = 0;
    std::optional<uint64_t> first_vert, first_normal, first_zero, first_texcoord;
    for (size_t i = 0; i < frame.verts.size(); ++i)
        if (!finite(frame.verts[i]) && !bad_verts++) first_vert = frame.verts_offset + 12 * i;
    for (size_t i = 0; i < frame.normals.size(); ++i) {
        const Vec3& n = frame.normals[i];
        if (!finite(n)) {
            if (!bad_normals++) first_normal = frame.normals_offset + 12 * i;
        } else if (n[0] == 0 && n[1] == 0 && n[2] == 0) {
            if (!zero_normals++) first_zero = frame.normals_offset + 12 * i;
        }
    }
    for (size_t i = 0; i < frame.texcoords.size(); ++i)
        if (!finite(frame.texcoords[i]) && !bad_texcoords++) first_texcoord = frame.texcoords_offset + 8 * i;
    warn_n(warnings, WarningCode::NonFiniteValue, fmt::format("frame {}: vertices with a non-finite coordinate (set to 0)", index), bad_verts, first_vert);
    warn_n(warnings, WarningCode::InvalidNormal, fmt::format("frame {}: non-finite normals (set to zero length)", index), bad_normals, first_normal);
    warn_n(warnings, WarningCode::InvalidNormal, fmt::format("frame {}: zero-length normals (kept)", index), zero_normals, first_zero);
    warn_n(warnings, WarningCode::NonFiniteValue, fmt::format("frame {}: texcoords with a non-finite value (set to 0)", index), bad_texcoords, first_texcoord);
}

template <size_t N>
std::array<float, N> cleaned(std::array<float, N> v) {
    for (auto& x : v)
        if (!std::isfinite(x)) x = 0.0f;
    return v;
}
Vec3 cleaned_normal(const Vec3& n) { return finite(n) ? n : Vec3{0, 0, 0}; }

// Corner (vertex, texcoord, normal) -> welded vertex number. Most vertex indices come with one
// texcoord and normal: that first pairing sits in an array indexed by the vertex index, which
// the faces walk nearly in order. Further pairings (seams) go to a flat open-addressing table,
// so a hostile file with one vertex index paired many ways still costs O(1) per corner.
class CornerIndex {
public:
    // `seams`: about how many further pairings to expect (the table grows past it if needed).
    CornerIndex(size_t num_verts, size_t seams) : first_(num_verts, Entry{0, none}) {
        size_t n = 16;
        while (n < seams * 2) n *= 2;
        rehash(n);
    }

    // The number stored for the corner, or `fresh` after storing it.
    uint32_t find_or_add(uint16_t vertex, uint16_t texcoord, uint16_t normal, uint32_t fresh) {
        const uint32_t pairing = uint32_t(texcoord) | uint32_t(normal) << 16;
        Entry& e = first_[vertex];
        if (e.id == none) {
            e = {pairing, fresh};
            return fresh;
        }
        if (e.pairing == pairing) return e.id;
        return find_or_add_extra(uint64_t(vertex) | uint64_t(pairing) << 16, fresh);
    }

private:
    static constexpr uint32_t none = ~uint32_t(0);
    static constexpr uint64_t empty = ~uint64_t(0);
    struct Entry {
        uint32_t pairing, id;
    };
    struct Slot {
        uint64_t key;
        uint32_t id;
    };

    uint32_t find_or_add_extra(uint64_t key, uint32_t fresh) {
        for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.key == key) return s.id;
            if (s.key == empty) {
                s = {key, fresh};
                if (++count_ * 2 > slots_.size()) rehash(slots_.size() * 2);  // at most half full
                return fresh;
            }
        }
    }
    // The splitmix64 finalizer: index, texcoord and normal numbers move together in real files.
    size_t slot_of(uint64_t key) const {
        key ^= key >> 30, key *= 0xBF58476D1CE4E5B9ull;
        key ^= key >> 27, key *= 0x94D049BB133111EBull;
        return size_t((key ^ (key >> 31)) & mask_);
    }
    void rehash(size_t n) {
        std::vector<Slot> old(n, Slot{empty, 0});
        old.swap(slots_);
        mask_ = n - 1;
        for (const Slot& s : old)
            if (s.key != empty) {
                size_t i = slot_of(s.key);
                while (slots_[i].key != empty) i = (i + 1) & mask_;
                slots_[i] = s;
            }
    }

    std::vector<Entry> first_;
    std::vector<Slot> slots_;
    size_t mask_ = 0, count_ = 0;
};

struct Corner {
    Vec3 position, normal;
    Vec2 texcoord;
};

Corner corner(const Frame& frame, const Face& face, int k) {
    const Vec2 uv = frame.texcoords.empty() ? Vec2{0, 0} : cleaned(frame.texcoords[face.texcoord[k]]);
    return {cleaned(frame.verts[face.vertex[k]]), cleaned_normal(frame.normals[face.normal[k]]), uv};
}

}  // namespace

Expected<Scene> to_scene(const JoeFile& file, Warnings warnings) {
    Scene scene;
    scene.warnings = std::move(warnings);
    Meta& meta = scene.meta;
    meta.source_format = "joe";
    meta.source_version = file.version;
    meta.dialect = file.magic == 0 ? "magic 0 (dof2joe)" : file.magic == magic_idp2 ? "IDP2" : fmt::format("magic {:#010x}", file.magic);
    // VDrift's coordinatesystem.h: X right, +Y forward, Z up, right-handed; metres. GL's default
    // CCW front (track objects are culled with it); a minority of car files is CW (docs/joe.md §5).
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::CounterClockwise;
    meta.unit_scale = 1.0f;
    meta.attribute_formats = {{Attribute::Position, 0, ComponentType::Float32, 3},
                              {Attribute::Texcoord, 0, ComponentType::Float32, 2},
                              {Attribute::Normal, 0, ComponentType::Float32, 3}};

    const Frame& f0 = file.frames.front();
    for (uint32_t i = 0; i < file.frames.size(); ++i) check_values(file.frames[i], i, scene.warnings);
    if (file.num_faces == 0)
        scene.warnings.add(WarningCode::ReaderDifference, "num_faces is 0: an empty mesh (VDrift asserts on it)", 8);
    for (uint32_t i = 0; i < file.frames.size(); ++i)
        if (file.frames[i].num_texcoords == 0)
            scene.warnings.add(WarningCode::Substituted,
                               fmt::format("frame {}: no texcoords; every corner gets (0,0) as VDrift substitutes", i),
                               file.frames[i].counts_offset + 4);

    Mesh mesh;
    // Unique (vertex, texcoord, normal) triples numbered in first-seen order; faces and corner
    // order unchanged (VDrift never re-winds). first_corner[v] = the corner that made vertex v.
    // Numbered first with a flat table, then the vertex arrays are filled at their final size.
    // parse() checked every vertex index against verts. Seams: about as many as the normals or
    // texcoords stored beyond one per vertex (flat-shaded parts have many).
    const size_t spare = std::max(f0.normals.size(), f0.texcoords.size());
    CornerIndex index(f0.verts.size(), std::min(f0.faces.size() * 3, spare > f0.verts.size() ? spare - f0.verts.size() : 0));
    std::vector<uint32_t> first_corner;
    first_corner.reserve(f0.faces.size() * 3);
    detail::resize_huge(mesh.triangles, f0.faces.size());
    for (size_t f = 0; f < f0.faces.size(); ++f) {
        const Face& face = f0.faces[f];
        for (int k = 0; k < 3; ++k) {
            const uint32_t v = index.find_or_add(face.vertex[k], face.texcoord[k], face.normal[k], uint32_t(first_corner.size()));
            if (v == first_corner.size()) first_corner.push_back(uint32_t(3 * f + k));
            mesh.triangles[f][k] = v;
        }
    }
    // Degenerate faces (a repeated vertex index) are kept, as VDrift keeps them, without a warning:
    // convert drops them as from every input and says so once, validate counts them (docs/joe.md).
    const size_t num_vertices = first_corner.size();
    detail::resize_huge(mesh.positions, num_vertices);
    detail::resize_huge(mesh.normals, num_vertices);
    mesh.texcoords.resize(1);
    detail::resize_huge(mesh.texcoords[0], num_vertices);
    for (size_t v = 0; v < num_vertices; ++v) {
        const uint32_t c = first_corner[v];
        const Corner corner_values = corner(f0, f0.faces[c / 3], int(c % 3));
        mesh.positions[v] = corner_values.position;
        mesh.normals[v] = corner_values.normal;
        mesh.texcoords[0][v] = corner_values.texcoord;
    }

    // Frames 1..: the same face count (num_faces is global); each becomes a morph target when its
    // corners agree with frame 0's welding (corners sharing a vertex in frame 0 share its values).
    std::vector<uint32_t> kept_frames;
    for (uint32_t fi = 1; fi < file.frames.size(); ++fi) {
        const Frame& fr = file.frames[fi];
        MorphTarget target;
        target.name = fmt::format("frame{}", fi);
        target.position_deltas.resize(mesh.positions.size());
        target.normal_deltas.resize(mesh.positions.size());
        std::vector<Corner> values(mesh.positions.size());
        bool consistent = true, texcoords_differ = false;
        for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
            const uint32_t c = first_corner[v];
            values[v] = corner(fr, fr.faces[c / 3], int(c % 3));
        }
        for (size_t f = 0; f < fr.faces.size() && consistent; ++f)
            for (int k = 0; k < 3; ++k) {
                const Corner c = corner(fr, fr.faces[f], k);
                const Corner& want = values[mesh.triangles[f][k]];
                if (!same_bits(c.position, want.position) || !same_bits(c.normal, want.normal)) consistent = false;
                if (!same_bits(c.texcoord, mesh.texcoords[0][mesh.triangles[f][k]])) texcoords_differ = true;
            }
        if (!consistent) {
            scene.warnings.add(WarningCode::DroppedData,
                               fmt::format("frame {}: its corners do not follow frame 0's vertices (different topology); not kept", fi),
                               fr.offset);
            continue;
        }
        if (texcoords_differ)
            scene.warnings.add(WarningCode::DroppedData,
                               fmt::format("frame {}: texcoords differ from frame 0; a morph target keeps positions and normals only", fi),
                               fr.texcoords_offset);
        for (uint32_t v = 0; v < mesh.positions.size(); ++v)
            for (int a = 0; a < 3; ++a) {
                target.position_deltas[v][a] = values[v].position[a] - mesh.positions[v][a];
                target.normal_deltas[v][a] = values[v].normal[a] - mesh.normals[v][a];
            }
        mesh.morph_targets.push_back(std::move(target));
        kept_frames.push_back(fi);
    }
    if (file.frames.size() > 1)
        scene.warnings.add(WarningCode::ReaderDifference, fmt::format("{} frames: VDrift renders frame 0 only; frames 1.. are kept as morph targets",
                                                           file.frames.size()), 12);
    scene.meshes.push_back(std::move(mesh));

    // The frames as a vertex animation: key i at i / default_frame_rate (JOE stores no rate),
    // weights one-hot on frame i's target (frame 0: all zero).
    if (!kept_frames.empty()) {
        Animation anim;
        anim.name = "frames";
        anim.frame_count = uint32_t(kept_frames.size() + 1);
        MorphWeightTrack track;
        track.mesh = 0;
        const size_t targets = kept_frames.size();
        for (size_t key = 0; key <= targets; ++key) {
            track.times.push_back(float(key) / default_frame_rate);
            for (size_t t = 0; t < targets; ++t) track.weights.push_back(key > 0 && t == key - 1 ? 1.0f : 0.0f);
        }
        anim.morph_tracks.push_back(std::move(track));
        scene.animations.push_back(std::move(anim));
    }
    return scene;
}

}  // namespace rigport::joe

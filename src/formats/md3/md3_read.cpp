// Quake 3 MD3 reader: header, frames, tags and surfaces, every count and offset checked against
// the file before use (docs/md3.md "Layout", "Reading").
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "formats/common/vertex_frames.hpp"
#include "formats/md3/md3.hpp"
#include "model/decompose.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::md3 {

namespace {

Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

// A fixed-size name field: the bytes up to the first NUL.
std::string name_at(std::span<const uint8_t> bytes, uint64_t at, uint32_t chars) {
    std::string s(reinterpret_cast<const char*>(bytes.data() + at), chars);
    return s.substr(0, s.find('\0'));
}

struct Header {
    uint32_t num_frames = 0, num_tags = 0, num_surfaces = 0, num_skins = 0;
    uint32_t ofs_frames = 0, ofs_tags = 0, ofs_surfaces = 0, ofs_end = 0;
};

struct Tag {
    std::string name;
    Vec3 origin{0, 0, 0};
    std::array<Vec3, 3> axis{};  // axis[i]: where the tag's own axis i points in the model
};

class Reader {
public:
    Reader(std::span<const uint8_t> bytes, const LoadOptions& options) : b_(bytes), o_(options), c_(bytes) {}

    Expected<Scene> run() {
        if (auto st = header(); !st) return st.error();
        if (auto st = frames(); !st) return st.error();
        if (auto st = tags(); !st) return st.error();
        if (auto st = surfaces(); !st) return st.error();
        animations();
        Meta& meta = scene_.meta;
        meta.source_format = "md3";
        meta.source_version = md3_version;
        // Quake 3's axes: Z up, right-handed; front faces clockwise seen from outside (docs/md3.md "Axes").
        meta.up = UpAxis::Z;
        meta.handedness = Handedness::Right;
        meta.front_face = Winding::Clockwise;
        return std::move(scene_);
    }

private:
    // A float that must be finite; 0 (with one warning per kind) otherwise.
    float finite(float v, const char* what, uint64_t at) {
        if (std::isfinite(v)) return v;
        scene_.warnings.add(WarningCode::NonFiniteValue, fmt::format("{}: a value that is not finite, read as 0", what), at);
        return 0.0f;
    }

    Vec3 vec3(const char* what) {
        const uint64_t at = c_.pos();
        Vec3 v;
        for (float& x : v) x = finite(c_.f32(), what, at);
        return v;
    }

    Status count_limit(uint32_t count, uint64_t limit, const char* what, uint64_t at) {
        if (count <= limit) return Ok{};
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceeds the limit {}", what, count, limit), at);
    }

    Status header() {
        if (b_.size() < header_size)
            return malformed(b_.size(), fmt::format("file is {} bytes, an MD3 header needs {}", b_.size(), header_size));
        if (c_.u32() != magic_idp3) return malformed(0, "magic is not IDP3");
        const uint32_t version = c_.u32();
        if (version != md3_version)
            return make_error(ErrorCode::Unsupported, fmt::format("version {}: only MD3 version 15 is known", version), 4);
        c_.seek(76);
        h_.num_frames = c_.u32();
        h_.num_tags = c_.u32();
        h_.num_surfaces = c_.u32();
        h_.num_skins = c_.u32();
        h_.ofs_frames = c_.u32();
        h_.ofs_tags = c_.u32();
        h_.ofs_surfaces = c_.u32();
        h_.ofs_end = c_.u32();
        // Quake 3 refuses a model without frames: frame 0 is the mesh.
        if (h_.num_frames == 0) return malformed(76, "num_frames is 0: frame 0 is the mesh");
        if (auto st = count_limit(h_.num_frames, o_.max_frames, "num_frames", 76); !st) return st;
        if (auto st = count_limit(h_.num_tags, o_.max_elements, "num_tags", 80); !st) return st;
        if (auto st = count_limit(h_.num_surfaces, o_.max_elements, "num_surfaces", 84); !st) return st;
        if (h_.ofs_end > b_.size())
            return malformed(104, fmt::format("ofs_end {} is past the end of the file ({} bytes)", h_.ofs_end, b_.size()));
        if (!io::range_fits(h_.ofs_frames, h_.num_frames, frame_size, h_.ofs_end))
            return malformed(92, fmt::format("{} frames at ofs_frames {} need {} bytes each, past ofs_end {}", h_.num_frames,
                                             h_.ofs_frames, frame_size, h_.ofs_end));
        const uint64_t tag_count = uint64_t(h_.num_frames) * h_.num_tags;
        if (!io::range_fits(h_.ofs_tags, tag_count, tag_size, h_.ofs_end))
            return malformed(96, fmt::format("{} frames of {} tags at ofs_tags {} need {} bytes each, past ofs_end {}", h_.num_frames,
                                             h_.num_tags, h_.ofs_tags, tag_size, h_.ofs_end));
        if (!io::range_fits(h_.ofs_surfaces, h_.num_surfaces, surface_size, h_.ofs_end))
            return malformed(100, fmt::format("{} surfaces at ofs_surfaces {} need at least {} bytes each, past ofs_end {}",
                                              h_.num_surfaces, h_.ofs_surfaces, surface_size, h_.ofs_end));
        return Ok{};
    }

    // Only the names are kept: bounds, origin and radius are recomputed by any writer.
    Status frames() {
        names_.resize(h_.num_frames);
        for (uint32_t f = 0; f < h_.num_frames; ++f)
            names_[f] = name_at(b_, uint64_t(h_.ofs_frames) + uint64_t(f) * frame_size + 40, frame_name_chars);
        return Ok{};
    }

    Status tags() {
        tags_.resize(size_t(h_.num_frames) * h_.num_tags);
        c_.seek(h_.ofs_tags);
        for (Tag& t : tags_) {
            const uint64_t at = c_.pos();
            t.name = name_at(b_, at, path_chars);
            c_.skip(path_chars);
            t.origin = vec3("tag origin");
            for (Vec3& a : t.axis) a = vec3("tag axis");
        }
        return Ok{};
    }

    Status surfaces() {
        std::map<std::string, int32_t, std::less<>> materials;
        uint64_t at = h_.ofs_surfaces;
        for (uint32_t s = 0; s < h_.num_surfaces; ++s) {
            if (!io::range_fits(at, 1, surface_size, h_.ofs_end))
                return malformed(at, fmt::format("surface {}: its header ({} bytes) runs past ofs_end {}", s, surface_size, h_.ofs_end));
            auto next = surface(s, at, materials);
            if (!next) return next.error();
            at = *next;
        }
        return Ok{};
    }

    // One surface at `at`; where the next one starts.
    Expected<uint64_t> surface(uint32_t s, uint64_t at, std::map<std::string, int32_t, std::less<>>& materials) {
        c_.seek(at);
        const uint32_t ident = c_.u32();
        if (ident != magic_idp3)
            scene_.warnings.add(WarningCode::Tolerated, fmt::format("surface {}: ident {:#010x} is not IDP3 (Quake 3 does not check it)", s, ident), at);
        Mesh mesh;
        mesh.name = name_at(b_, at + 4, path_chars);
        c_.seek(at + 72);
        const uint32_t num_frames = c_.u32(), num_shaders = c_.u32(), num_verts = c_.u32(), num_triangles = c_.u32();
        const uint32_t ofs_triangles = c_.u32(), ofs_shaders = c_.u32(), ofs_st = c_.u32(), ofs_xyz = c_.u32(), ofs_end = c_.u32();
        const std::string which = fmt::format("surface {} '{}'", s, mesh.name);
        if (num_frames != h_.num_frames)
            return malformed(at + 72, fmt::format("{}: num_frames {} differs from the header's {}", which, num_frames, h_.num_frames));
        if (auto st = count_limit(num_verts, o_.max_elements, "num_verts", at + 80); !st) return st.error();
        if (auto st = count_limit(num_triangles, o_.max_elements, "num_triangles", at + 84); !st) return st.error();
        // Sub-arrays lie inside the file, at offsets from the surface's start.
        const uint64_t limit = h_.ofs_end;
        struct Part {
            const char* what;
            uint32_t ofs;
            uint64_t count, size, field;
        } parts[] = {{"shaders", ofs_shaders, num_shaders, shader_size, 92},
                     {"triangles", ofs_triangles, num_triangles, triangle_size, 88},
                     {"st", ofs_st, num_verts, st_size, 96},
                     {"xyz normals", ofs_xyz, uint64_t(num_verts) * num_frames, xyz_normal_size, 100}};
        for (const Part& p : parts)
            if (!io::range_fits(at + p.ofs, p.count, p.size, limit))
                return malformed(at + p.field, fmt::format("{}: {} {} at offset {} need {} bytes each, past ofs_end {}", which, p.count,
                                                           p.what, at + p.ofs, p.size, limit));
        // The next surface starts after this one's header at least, so surfaces never loop.
        if (ofs_end < surface_size || at + ofs_end > limit)
            return malformed(at + 104, fmt::format("{}: ofs_end {} is not between the header's size {} and ofs_end {}", which, ofs_end,
                                                   surface_size, limit - at));

        // The first shader names the material: its texture is the shader's name.
        if (num_shaders > 0) {
            const std::string shader = name_at(b_, at + ofs_shaders, path_chars);
            if (!shader.empty()) {
                auto [it, added] = materials.try_emplace(shader, int32_t(scene_.materials.size()));
                if (added) {
                    Material m;
                    m.name = shader;
                    TextureMap map;
                    map.uri = shader;  // Diffuse
                    m.maps.push_back(std::move(map));
                    scene_.materials.push_back(std::move(m));
                }
                mesh.material = it->second;
            }
            if (num_shaders > 1)
                scene_.warnings.add(WarningCode::Ignored, fmt::format("{}: {} shaders, the first one kept as the material", which, num_shaders),
                                    at + ofs_shaders + shader_size);
        }

        mesh.triangles.resize(num_triangles);
        c_.seek(at + ofs_triangles);
        for (uint32_t t = 0; t < num_triangles; ++t)
            for (uint32_t k = 0; k < 3; ++k) {
                const uint64_t here = c_.pos();
                const uint32_t index = c_.u32();
                if (index >= num_verts)
                    return malformed(here, fmt::format("{}: triangle {} corner {}: index {} >= num_verts {}", which, t, k, index, num_verts));
                mesh.triangles[t][k] = index;
            }

        mesh.texcoords.assign(1, std::vector<Vec2>(num_verts));
        c_.seek(at + ofs_st);
        for (Vec2& st : mesh.texcoords[0]) {
            const uint64_t here = c_.pos();
            for (float& x : st) x = finite(c_.f32(), "texture coordinate", here);
        }

        std::vector<std::vector<Vec3>> positions(num_frames, std::vector<Vec3>(num_verts));
        std::vector<std::vector<Vec3>> normals(num_frames, std::vector<Vec3>(num_verts));
        c_.seek(at + ofs_xyz);
        for (uint32_t f = 0; f < num_frames; ++f)
            for (uint32_t v = 0; v < num_verts; ++v) {
                for (float& x : positions[f][v]) x = float(double(c_.i16()) * xyz_scale);
                normals[f][v] = decode_normal(c_.u16());
            }
        if (!c_.ok()) return malformed(c_.failed_at(), fmt::format("{}: a read past the end of the file", which));
        mesh.positions = positions[0];
        mesh.normals = normals[0];
        detail::add_frame_targets(mesh, names_, positions, normals);
        scene_.meshes.push_back(std::move(mesh));
        return at + ofs_end;
    }

    // Frames grouped into animations (docs/md3.md "Frames"); tags as joints with tracks.
    void animations() {
        for (uint32_t t = 0; t < h_.num_tags; ++t) {
            Joint j;
            j.name = tags_[t].name;
            j.bind = tag_transform(tags_[t]);
            scene_.skeleton.joints.push_back(std::move(j));
        }
        if (h_.num_frames < 2) return;
        // Numbered names (MD2 style, "run1" "run2" ...) group; otherwise ("", "(from ASE)", one name
        // per frame) the whole file is one animation named after the model.
        bool numbered = false;
        for (const std::string& n : names_) numbered = numbered || detail::frame_name_prefix(n).size() != n.size();
        std::vector<detail::FrameGroup> groups;
        if (numbered) {
            groups = detail::group_frames_by_name(names_);
            for (detail::FrameGroup& g : groups)
                if (g.name.empty()) g.name = model_name();
        } else {
            groups.push_back({model_name(), 0, h_.num_frames});
        }
        const float rate = o_.vertex_frame_rate > 0 && std::isfinite(o_.vertex_frame_rate) ? o_.vertex_frame_rate : default_frame_rate;
        const size_t first = scene_.animations.size();
        detail::add_frame_animations(scene_, groups, h_.num_frames, rate);
        for (size_t g = 0; g < groups.size(); ++g) add_tag_tracks(scene_.animations[first + g], groups[g], rate);
    }

    // The header's name without folders and extension ("models/x/watercan.md3" -> "watercan"), or "frames".
    std::string model_name() const {
        std::string name = name_at(b_, 8, path_chars);
        if (const size_t slash = name.find_last_of("/\\"); slash != std::string::npos) name = name.substr(slash + 1);
        if (const size_t dot = name.find_last_of('.'); dot != std::string::npos && dot > 0) name = name.substr(0, dot);
        return name.empty() ? "frames" : name;
    }

    static Transform tag_transform(const Tag& t) {
        Mat4 m = identity_matrix();
        for (int i = 0; i < 3; ++i)
            for (int r = 0; r < 3; ++r) m[i][r] = t.axis[i][r];
        for (int r = 0; r < 3; ++r) m[3][r] = t.origin[r];
        bool sheared = false;
        return decompose(m, sheared);
    }

    // Translation and rotation keys per frame of the group (scale too where a tag's axes are not unit).
    void add_tag_tracks(Animation& a, const detail::FrameGroup& g, float rate) const {
        for (uint32_t t = 0; t < h_.num_tags; ++t) {
            JointTrack tr, rot, scale;
            tr.joint = rot.joint = scale.joint = t;
            tr.channel = Channel::Translation;
            rot.channel = Channel::Rotation;
            scale.channel = Channel::Scale;
            bool scaled = false;
            for (uint32_t k = 0; k < g.count; ++k) {
                const Transform x = tag_transform(tags_[size_t(g.first + k) * h_.num_tags + t]);
                const float time = float(k) / rate;
                for (JointTrack* track : {&tr, &rot, &scale}) track->times.push_back(time);
                tr.values.insert(tr.values.end(), x.translate.begin(), x.translate.end());
                rot.values.insert(rot.values.end(), x.rotate.begin(), x.rotate.end());
                scale.values.insert(scale.values.end(), x.scale.begin(), x.scale.end());
                for (float s : x.scale) scaled = scaled || std::fabs(s - 1.0f) > 1e-6f;
            }
            a.tracks.push_back(std::move(tr));
            a.tracks.push_back(std::move(rot));
            if (scaled) a.tracks.push_back(std::move(scale));
        }
    }

    std::span<const uint8_t> b_;
    const LoadOptions& o_;
    io::ByteCursor c_;
    Header h_;
    std::vector<std::string> names_;
    std::vector<Tag> tags_;
    Scene scene_;
};

}  // namespace

bool detect(std::span<const uint8_t> bytes) {
    if (bytes.size() < 8) return false;
    io::ByteCursor c(bytes);
    return c.u32() == magic_idp3 && c.u32() == md3_version;
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) { return Reader(bytes, options).run(); }

}  // namespace rigport::md3

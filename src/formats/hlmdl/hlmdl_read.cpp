// Half-Life studio model reader (IDST version 10; docs/hlmdl.md): header, bones, body parts,
// models, meshes from triangle strips and fans, then textures and sequences (hlmdl_texture.cpp,
// hlmdl_anim.cpp). Every table is checked against the bytes before it is read.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "formats/hlmdl/hlmdl_parts.hpp"
#include "model/quatd.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::hlmdl {

bool detect(std::span<const uint8_t> bytes) {
    // A sequence group file is detected too, so that reading one says what it is.
    return bytes.size() >= 8 && (detail::u32_at(bytes, 0) == magic_idst || detail::u32_at(bytes, 0) == magic_idsq) &&
           detail::u32_at(bytes, 4) == studio_version;
}

const char* side_file(std::span<const uint8_t> bytes) {
    using namespace detail;
    if (bytes.size() < 8 || u32_at(bytes, 4) != studio_version) return nullptr;
    if (u32_at(bytes, 0) == magic_idsq) return "a Half-Life sequence group file (NAME01.mdl): it is read with the model it belongs to";
    if (u32_at(bytes, 0) != magic_idst || bytes.size() < header_size) return nullptr;
    if (i32_at(bytes, at_numbones) == 0 && i32_at(bytes, at_numbodyparts) == 0 && i32_at(bytes, at_numtextures) > 0)
        return "a Half-Life texture file (NAMEt.mdl): it is read with the model it belongs to";
    return nullptr;
}

namespace detail {

float f32_at(std::span<const uint8_t> b, uint64_t at) {
    const uint32_t bits = u32_at(b, at);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::string name_at(std::span<const uint8_t> b, uint64_t at, uint32_t size) {
    const auto* p = reinterpret_cast<const char*>(b.data() + at);
    return std::string(p, strnlen(p, size));
}

Status check_table(std::span<const uint8_t> bytes, const LoadOptions& options, const char* what, uint64_t count_at, int32_t count,
                   int32_t index, uint32_t record_size) {
    if (count < 0) return malformed(count_at, fmt::format("{} {}", count, what));
    if (count == 0) return Ok{};
    if (uint64_t(count) > options.max_elements)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceed the limit of {}", count, what, options.max_elements), count_at);
    if (index < 0 || !io::range_fits(uint64_t(index), uint64_t(count), record_size, bytes.size()))
        return malformed(count_at + 4, fmt::format("{} {} of {} bytes at {} run past the end of the file ({} bytes)", count, what, record_size, index,
                                                   bytes.size()));
    return Ok{};
}

std::optional<std::pair<std::string, std::vector<uint8_t>>> Reader::side_file(const std::vector<std::string>& names, std::string& why) const {
    if (!options.read_resource) {
        why = fmt::format("'{}': no resource reader (load from a path, or set LoadOptions::read_resource)", names.empty() ? "" : names.front());
        return std::nullopt;
    }
    std::string tried;
    for (auto& name : names) {
        auto bytes = options.read_resource(name);
        if (bytes) return std::make_pair(name, std::move(*bytes));
        tried += fmt::format("{}'{}' ({})", tried.empty() ? "" : ", ", name, bytes.error().message);
    }
    why = "tried " + tried;
    return std::nullopt;
}

namespace {

using quatd::D3;
using quatd::D4;

// A bone's bind pose in model space: rotation and position.
struct World {
    D4 rotate{0, 0, 0, 1};
    D3 translate{0, 0, 0};
    D3 apply(const D3& p) const {
        const D3 r = quatd::rotate(rotate, p);
        return {r[0] + translate[0], r[1] + translate[1], r[2] + translate[2]};
    }
};

Status read_bones(Reader& r, std::vector<World>& world) {
    const auto b = r.bytes;
    const int32_t count = i32_at(b, at_numbones), index = i32_at(b, at_numbones + 4);
    if (auto st = check_table(b, r.options, "bones", at_numbones, count, index, bone_size); !st) return st;
    uint64_t non_finite = 0;
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t at = uint64_t(index) + uint64_t(i) * bone_size;
        Bone bone;
        bone.name = name_at(b, at, 32);
        bone.parent = i32_at(b, at + 32);
        if (bone.parent < -1 || bone.parent >= i)
            return malformed(at + 32, fmt::format("bone {} '{}': parent {} is not an earlier bone", i, bone.name, bone.parent));
        for (int c = 0; c < 6; ++c) {
            bone.value[size_t(c)] = f32_at(b, at + 64 + 4 * uint64_t(c));
            bone.scale[size_t(c)] = f32_at(b, at + 88 + 4 * uint64_t(c));
            if (!std::isfinite(bone.value[size_t(c)])) bone.value[size_t(c)] = 0, ++non_finite;
            if (!std::isfinite(bone.scale[size_t(c)])) bone.scale[size_t(c)] = 0, ++non_finite;
        }
        Joint joint;
        joint.name = bone.name;
        joint.parent = bone.parent;
        const D4 q = angle_quaternion(bone.value[3], bone.value[4], bone.value[5]);
        joint.bind.translate = {bone.value[0], bone.value[1], bone.value[2]};
        joint.bind.rotate = {float(q[0]), float(q[1]), float(q[2]), float(q[3])};
        World w{q, {bone.value[0], bone.value[1], bone.value[2]}};
        if (bone.parent >= 0) {
            const World& p = world[size_t(bone.parent)];
            w = World{quatd::mul(p.rotate, q), p.apply(w.translate)};
        }
        world.push_back(w);
        r.scene.skeleton.joints.push_back(std::move(joint));
        r.bones.push_back(std::move(bone));
    }
    if (non_finite) r.warn(WarningCode::NonFiniteValue, fmt::format("{} bone values or scales not finite: 0 used", non_finite));
    return Ok{};
}

// One mesh's triangle commands (docs/hlmdl.md "Triangle commands") into a scene mesh: a vertex per
// distinct (vertex, normal, s, t), in model space through its bone's bind pose.
struct ModelArrays {
    uint64_t at = 0;  // the model record
    std::string name;
    int32_t numverts = 0, vertinfoindex = 0, vertindex = 0, numnorms = 0, norminfoindex = 0, normindex = 0;
};

Status read_mesh(Reader& r, const ModelArrays& model, const std::vector<World>& world, uint64_t mesh_at, uint32_t mesh_number,
                 const TextureSet& textures, uint64_t& corner_budget) {
    const auto b = r.bytes;
    const int32_t numtris = i32_at(b, mesh_at), triindex = i32_at(b, mesh_at + 4), skinref = i32_at(b, mesh_at + 8);
    if (numtris < 0) return malformed(mesh_at, fmt::format("model '{}' mesh {}: {} triangles", model.name, mesh_number, numtris));
    Mesh mesh;
    mesh.name = fmt::format("{}_{}", model.name, mesh_number);
    // The texture: skin family 0 maps the mesh's skinref to it; its size turns texels into 0..1.
    int32_t texture = -1;
    if (skinref >= 0 && size_t(skinref) < textures.skin.size()) texture = textures.skin[size_t(skinref)];
    else if (textures.skin.empty() && skinref >= 0 && size_t(skinref) < textures.sizes.size()) texture = skinref;
    if (texture >= 0 && size_t(texture) >= textures.sizes.size()) {
        r.warn(WarningCode::Substituted, fmt::format("mesh '{}': skin reference {} names texture {} of {}: no material", mesh.name, skinref, texture,
                                                     textures.sizes.size()), mesh_at + 8);
        texture = -1;
    } else if (texture < 0 && !textures.sizes.empty()) {
        r.warn(WarningCode::Substituted, fmt::format("mesh '{}': skin reference {} of {}: no material", mesh.name, skinref, textures.skin.size()),
               mesh_at + 8);
    }
    mesh.material = texture;
    const bool uv = texture >= 0;
    if (uv) mesh.texcoords.resize(1);

    std::unordered_map<uint64_t, uint32_t> corners;  // (vertex, normal, s, t) -> scene vertex
    std::vector<uint32_t> strip;
    if (numtris > 0 && (triindex < 0 || uint64_t(triindex) >= b.size()))
        return malformed(mesh_at + 4, fmt::format("mesh '{}': triangle commands at {}, the file is {} bytes", mesh.name, triindex, b.size()));
    uint64_t at = uint64_t(triindex);
    while (numtris > 0) {
        if (at + 2 > b.size()) return malformed(at, fmt::format("mesh '{}': triangle commands run past the end of the file (no 0 to end them)", mesh.name));
        const int16_t command = i16_at(b, at);
        at += 2;
        if (command == 0) break;
        const bool fan = command < 0;
        const uint32_t n = uint32_t(fan ? -int32_t(command) : command);
        if (!io::range_fits(at, n, 8, b.size()))
            return malformed(at - 2, fmt::format("mesh '{}': a command of {} vertices runs past the end of the file", mesh.name, n));
        if (n > corner_budget)
            return make_error(ErrorCode::LimitExceeded,
                              fmt::format("mesh '{}': the meshes' triangle commands hold more corners than the file has bytes for (meshes share commands?)",
                                          mesh.name), at - 2);
        corner_budget -= n;
        strip.clear();
        for (uint32_t k = 0; k < n; ++k, at += 8) {
            const int16_t vi = i16_at(b, at), ni = i16_at(b, at + 2), s = i16_at(b, at + 4), t = i16_at(b, at + 6);
            if (vi < 0 || vi >= model.numverts)
                return malformed(at, fmt::format("mesh '{}': vertex {} of {}", mesh.name, vi, model.numverts));
            if (ni < 0 || ni >= model.numnorms)
                return malformed(at + 2, fmt::format("mesh '{}': normal {} of {}", mesh.name, ni, model.numnorms));
            const uint64_t key = uint64_t(uint16_t(vi)) | uint64_t(uint16_t(ni)) << 16 | uint64_t(uint16_t(s)) << 32 | uint64_t(uint16_t(t)) << 48;
            auto [it, fresh] = corners.try_emplace(key, mesh.vertex_count());
            if (fresh) {
                const uint8_t vbone = b[uint64_t(model.vertinfoindex) + uint64_t(vi)], nbone = b[uint64_t(model.norminfoindex) + uint64_t(ni)];
                const uint64_t vat = uint64_t(model.vertindex) + 12 * uint64_t(vi), nat = uint64_t(model.normindex) + 12 * uint64_t(ni);
                if (vbone >= world.size())
                    return malformed(uint64_t(model.vertinfoindex) + uint64_t(vi), fmt::format("vertex {}: bone {} of {}", vi, vbone, world.size()));
                if (nbone >= world.size())
                    return malformed(uint64_t(model.norminfoindex) + uint64_t(ni), fmt::format("normal {}: bone {} of {}", ni, nbone, world.size()));
                D3 nr = quatd::rotate(world[nbone].rotate, {f32_at(b, nat), f32_at(b, nat + 4), f32_at(b, nat + 8)});
                D3 p = world[vbone].apply({f32_at(b, vat), f32_at(b, vat + 4), f32_at(b, vat + 8)});
                for (D3* v : {&p, &nr})
                    for (double& x : *v)
                        if (!std::isfinite(float(x))) x = 0, ++r.non_finite;
                mesh.positions.push_back({float(p[0]), float(p[1]), float(p[2])});
                mesh.normals.push_back({float(nr[0]), float(nr[1]), float(nr[2])});
                if (uv) {
                    const auto& size = textures.sizes[size_t(texture)];
                    mesh.texcoords[0].push_back({float(double(s) / size[0]), float(double(t) / size[1])});
                }
                mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
                mesh.skin.influences.push_back(Influence{vbone, 1.0f});
            }
            strip.push_back(it->second);
        }
        // A strip's triangle k is (k, k+1, k+2), every other one flipped to keep the winding; a
        // fan's is (0, k+1, k+2). Corners repeated (strips join so) make no triangle.
        for (uint32_t k = 0; k + 2 < n; ++k) {
            Triangle tri = fan ? Triangle{strip[0], strip[k + 1], strip[k + 2]}
                               : (k % 2 == 0 ? Triangle{strip[k], strip[k + 1], strip[k + 2]} : Triangle{strip[k + 1], strip[k], strip[k + 2]});
            if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) continue;
            mesh.triangles.push_back(tri);
        }
    }
    if (mesh.triangles.empty()) return Ok{};
    mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
    r.scene.meshes.push_back(std::move(mesh));
    return Ok{};
}

Status read_body_parts(Reader& r, const std::vector<World>& world, const TextureSet& textures) {
    const auto b = r.bytes;
    const int32_t count = i32_at(b, at_numbodyparts), index = i32_at(b, at_numbodyparts + 4);
    if (auto st = check_table(b, r.options, "body parts", at_numbodyparts, count, index, bodypart_size); !st) return st;
    uint64_t corner_budget = b.size() / 8;  // each corner is 8 bytes of a command: no more than the file holds
    std::vector<std::string> alternatives;
    for (int32_t p = 0; p < count; ++p) {
        const uint64_t at = uint64_t(index) + uint64_t(p) * bodypart_size;
        const std::string part = name_at(b, at, 64);
        const int32_t nummodels = i32_at(b, at + 64), modelindex = i32_at(b, at + 72);
        if (auto st = check_table(b, r.options, "models", at + 64, nummodels, modelindex, model_size); !st) return st;
        if (nummodels > 1) alternatives.push_back(part);
        for (int32_t m = 0; m < nummodels; ++m) {
            ModelArrays model;
            model.at = uint64_t(modelindex) + uint64_t(m) * model_size;
            // The name studiomdl stored is the reference SMD's path as the .qc gave it
            // ("../../shared_references/triangle"): its file name is the model's name.
            model.name = name_at(b, model.at, 64);
            if (const size_t slash = model.name.find_last_of("/\\"); slash != std::string::npos) model.name.erase(0, slash + 1);
            if (model.name.empty()) model.name = fmt::format("{}_{}", part, m);
            const int32_t nummesh = i32_at(b, model.at + 72), meshindex = i32_at(b, model.at + 76);
            model.numverts = i32_at(b, model.at + 80);
            model.vertinfoindex = i32_at(b, model.at + 84);
            model.vertindex = i32_at(b, model.at + 88);
            model.numnorms = i32_at(b, model.at + 92);
            model.norminfoindex = i32_at(b, model.at + 96);
            model.normindex = i32_at(b, model.at + 100);
            if (auto st = check_table(b, r.options, "meshes", model.at + 72, nummesh, meshindex, mesh_size); !st) return st;
            if (auto st = check_table(b, r.options, "vertex bones", model.at + 80, model.numverts, model.vertinfoindex, 1); !st) return st;
            // The positions' offset follows the bones' (vertinfoindex, vertindex): named by vertindex's field.
            if (model.numverts > 0 && (model.vertindex < 0 || !io::range_fits(uint64_t(model.vertindex), uint64_t(model.numverts), 12, b.size())))
                return malformed(model.at + 88, fmt::format("model '{}': {} vertices at {} run past the end of the file", model.name, model.numverts,
                                                            model.vertindex));
            if (auto st = check_table(b, r.options, "normal bones", model.at + 92, model.numnorms, model.norminfoindex, 1); !st) return st;
            if (model.numnorms > 0 && (model.normindex < 0 || !io::range_fits(uint64_t(model.normindex), uint64_t(model.numnorms), 12, b.size())))
                return malformed(model.at + 100, fmt::format("model '{}': {} normals at {} run past the end of the file", model.name, model.numnorms,
                                                             model.normindex));
            for (int32_t k = 0; k < nummesh; ++k)
                if (auto st = read_mesh(r, model, world, uint64_t(meshindex) + uint64_t(k) * mesh_size, uint32_t(k), textures, corner_budget); !st)
                    return st;
        }
    }
    if (!alternatives.empty())
        r.warn(WarningCode::Interpreted, fmt::format("{} body part(s) with several models ('{}' ...): every model read (the game draws one of each "
                                                     "at a time)", alternatives.size(), alternatives.front()));
    return Ok{};
}

}  // namespace

}  // namespace detail

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    using namespace detail;
    if (const char* what = side_file(bytes))
        return make_error(ErrorCode::Unsupported, fmt::format("{}: convert that model (NAME.mdl beside it)", what), 0);
    if (bytes.size() < header_size)
        return malformed(bytes.size(), fmt::format("file is {} bytes, a studio model header needs {}", bytes.size(), header_size));
    if (u32_at(bytes, 0) != magic_idst) return malformed(0, "not a studio model (no IDST magic)");
    if (const uint32_t v = u32_at(bytes, 4); v != studio_version)
        return make_error(ErrorCode::Unsupported, fmt::format("studio model version {} (only {}, Half-Life 1, is read)", v, studio_version), 4);
    Scene scene;
    scene.meta.source_format = "hlmdl";
    scene.meta.source_version = studio_version;
    scene.meta.up = UpAxis::Z;
    scene.meta.handedness = Handedness::Right;
    scene.meta.front_face = Winding::Clockwise;
    const int32_t length = i32_at(bytes, at_length);
    if (length < 0 || uint64_t(length) > bytes.size())
        return malformed(at_length, fmt::format("the header says the file is {} bytes, it has {}", length, bytes.size()));
    if (uint64_t(length) < bytes.size())
        scene.warnings.add(WarningCode::FileSizeMismatch, fmt::format("the header says the file is {} bytes, it has {}: the rest ignored", length, bytes.size()),
                           at_length);
    const std::span<const uint8_t> file = bytes.first(uint64_t(length));

    Reader r{file, options, scene, {}, {}, 0};
    namespace fs = std::filesystem;
    // Side files go by the model's file name first (a renamed model keeps its NAMEt.mdl beside
    // it), then by the name the file stores (docs/hlmdl.md "Side files").
    if (std::string own = fs::path(options.source_name).stem().string(); !own.empty()) r.stems.push_back(own);
    std::string stored = name_at(file, at_name, 64);
    std::replace(stored.begin(), stored.end(), '\\', '/');
    if (std::string stem = fs::path(stored).stem().string(); !stem.empty() && std::find(r.stems.begin(), r.stems.end(), stem) == r.stems.end())
        r.stems.push_back(stem);

    std::vector<World> world;
    if (auto st = read_bones(r, world); !st) return st.error();
    auto textures = read_textures(r);
    if (!textures) return textures.error();
    if (auto st = read_body_parts(r, world, *textures); !st) return st.error();
    if (auto st = read_sequences(r); !st) return st.error();
    keep_qc_lines(r);
    if (r.non_finite) r.warn(WarningCode::NonFiniteValue, fmt::format("{} vertex or normal components not finite (or beyond a float's range): 0 used", r.non_finite));
    if (!scene.meshes.empty() && scene.skeleton.joints.empty()) return malformed(at_numbones, "meshes but no bones to hang them from");
    return scene;
}

}  // namespace rigport::hlmdl

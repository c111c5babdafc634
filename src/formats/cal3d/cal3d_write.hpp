// Cal3D writers (docs/cal3d.md §2, §3, §3.8, §9 rule 10): shared sinks, the dialect's version and
// the per-file-type writers. Each writer takes a scene in Cal3D conventions (Z up, counter-clockwise;
// see to_cal3d_conventions) and writes one file of the target dialect, XML or binary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/cal3d/cal3d.hpp"
#include "rigport/io.hpp"

namespace rigport::cal3d {

using Dialect = Cal3dOptions::Dialect;

// 919, 1100, 1301.
int32_t version_of(Dialect dialect);
Family family_of(Dialect dialect);

// Little-endian binary sink (§2: int = int32, float = binary32, string = int32 len + bytes + NUL).
class ByteWriter {
public:
    void magic(FileType type);  // "CSF\0" ...
    void u8(uint8_t v) { bytes.push_back(v); }
    void i32(int32_t v);
    void f32(float v);
    void vec3(const Vec3& v) { for (float x : v) f32(x); }
    void quat(const Quat& q) { for (float x : q) f32(x); }
    // len counts the terminating NUL, which is written (§2).
    void string(std::string_view s);

    std::vector<uint8_t> bytes;
};

// XML text sink. Floats are printed shortest round-trip (std::to_chars / fmt "{}"), never with six
// digits (§3.8), so XML -> binary -> XML loses nothing. Element and attribute names are upper case.
class XmlWriter {
public:
    // The file's start: IMVU writes <HEADER MAGIC=".." VERSION="919"/> then the body element;
    // 1100 and 1301 write the root form, VERSION (and MAGIC) on the body element (§3.1, §3.8).
    // Returns the attributes the body element must carry for the root form ("" for HEADER form).
    std::string header(FileType type, Dialect dialect);

    // <NAME attrs>  ... </NAME>, one element per line, indented by depth.
    void open(std::string_view name, std::string_view attributes = {});
    void close(std::string_view name);
    // <NAME attrs>text</NAME>
    void leaf(std::string_view name, std::string_view attributes, std::string_view text);
    // <NAME attrs/>
    void empty(std::string_view name, std::string_view attributes);

    std::string text;

private:
    int depth_ = 0;
    void indent();
};

std::string xml_float(float v);                      // shortest round-trip
std::string xml_floats(const float* v, size_t n);    // space separated
std::string xml_escape(std::string_view s);          // & < > " for attribute values and text
std::string xml_attr(std::string_view name, std::string_view value);  // ` NAME="escaped"`

// Standard quaternion -> Cal3D file convention (§4.1: the conjugate; its own inverse).
inline Quat to_file(const Quat& q_std) { return to_standard(q_std); }

// The Cal3D bone id of each joint: Skeleton::source_ids when they are a permutation of 0..n-1
// (a Cal3D source keeps its bone order and ids), else the joint index. Bones are written in
// id order, so a Cal3D file read and written again keeps its layout.
std::vector<int32_t> bone_ids(const Skeleton& skeleton);

// IMVU lighting (§1.1: CSF sceneAmbient and per-bone lightType/lightColor; XSF SCENEAMBIENTCOLOR,
// LIGHTTYPE, LIGHTCOLOR), kept through a round trip in scene.meta.extensions: "cal3d:scene_ambient"
// holds 3 little-endian floats; "cal3d:bone_lights" holds per joint (scene joint order) an int32
// type and 3 floats. An absent record means all zero (IM's defaults), so readers store a record
// only when some value is not zero and the IMVU writers write zeros when there is none.
constexpr std::string_view scene_ambient_extension = "cal3d:scene_ambient";
constexpr std::string_view bone_lights_extension = "cal3d:bone_lights";
struct BoneLight {
    int32_t type = 0;
    Vec3 color{0, 0, 0};
};
// Readers: lights per bone id (file order) -> records on scene (after the skeleton is built).
void store_imvu_lighting(Scene& scene, const Vec3& ambient, const std::vector<BoneLight>& lights_by_bone);
// Writers: the scene's records (zeros when absent; a bone_lights record of the wrong size is
// ignored with a warning), lights per scene joint.
Vec3 imvu_scene_ambient(const Scene& scene);
std::vector<BoneLight> imvu_bone_lights(const Scene& scene, Warnings* warnings);
bool has_imvu_lighting(const Scene& scene);

// Per file type, one file's bytes. The scene must already be in Cal3D conventions. What the target
// cannot hold goes to options.warnings as DroppedData.
// Skeleton: every joint (src: cal3d_write_skeleton.cpp).
Expected<std::vector<uint8_t>> write_skeleton(const Scene& scene, bool binary, const SaveOptions& options);
// Skeletal animation `animation` (joint tracks) (cal3d_write_animation.cpp): one Cal3D track per
// joint, keys at the union of its translation and rotation key times (the other channel sampled
// there); STEP tracks get an extra key one float step before each change; DURATION =
// max(stated_duration, last key).
Expected<std::vector<uint8_t>> write_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options);
// Morph animation: the morph weight tracks of `animation`, one track per morph target of the
// track's mesh: IMVU binds by MORPHNAME (the target name), 1301 by MORPHID / MESHID / SUBMESH
// (cal3d_write_morph.cpp). 1100 has no morph animation files: an Unsupported error.
Expected<std::vector<uint8_t>> write_morph_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options);
// Mesh file: the listed scene meshes as its submeshes, MATERIAL = the mesh's material index,
// influences as bone ids (bone_ids), LOD / springs / PHYSIQUE in every dialect; vertex colours in
// IMVU (white when none) and 1301 XML; morphs sparse and exact, absolute in IMVU, delta in 1301,
// none in 1100 (cal3d_write_mesh.cpp, cal3d_write_mesh_xml.cpp; docs/cal3d.md).
Expected<std::vector<uint8_t>> write_mesh(const Scene& scene, const std::vector<uint32_t>& meshes, bool binary, const SaveOptions& options);
// Material file: colours as bytes, SHININESS, maps with their type (IMVU, 1301) or without (1100)
// (cal3d_write_material.cpp).
Expected<std::vector<uint8_t>> write_material(const Material& material, bool binary, const SaveOptions& options);

// The animation a one-animation file takes: the first with tracks of the file's kind
// (has_tracks), else an InvalidArgument error "the scene has no animation with <missing>". The
// others of that kind are reported: "<file> holds one animation: N <others> not written".
struct AnimationChoice {
    const char* missing;  // "joint tracks to write as a Cal3D CAF"
    const char* file;     // "a Cal3D animation file"
    const char* others;   // "other animations"
};
Expected<size_t> choose_animation(const Scene& scene, bool (*has_tracks)(const Animation&), const AnimationChoice& text,
                                  const SaveOptions& options);

// Registry entries: one file from a whole scene (.xsf: the skeleton; .xmf: every mesh as a submesh;
// .xaf / .caf: the first animation with joint tracks, .xpf / .cpf: the first with morph weight
// tracks, others dropped with a warning, none = an InvalidArgument error; .xrf: material 0 ...),
// converted to Cal3D conventions first (z_up_ccw_copy).
Expected<Output> write_csf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_xsf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_caf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_xaf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_cpf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_xpf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_cmf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_xmf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_crf(const Scene& scene, const std::string& path, const SaveOptions& options);
Expected<Output> write_xrf(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::cal3d

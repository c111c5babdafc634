// Cal3D writers (formats/cal3d.md §2, §3, §3.8, §9 rule 10): shared sinks, the dialect's version and
// the per-file-type writers. Each writer takes a scene in Cal3D conventions (Z up, counter-clockwise;
// see to_cal3d_conventions) and writes one file of the target dialect, XML or binary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/cal3d/cal3d_layout.hpp"
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

// Per file type, one file's bytes. The scene must already be in Cal3D conventions. What the target
// cannot hold goes to options.warnings as DroppedData.
// Skeleton: every joint (src: cal3d_write_skeleton.cpp).
Expected<std::vector<uint8_t>> write_skeleton(const Scene& scene, bool binary, const SaveOptions& options);
// Skeletal animation `animation` (joint tracks) (cal3d_write_animation.cpp).
Expected<std::vector<uint8_t>> write_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options);
// Morph animation: the morph weight tracks of `animation`, one track per morph target (cal3d_write_animation.cpp).
Expected<std::vector<uint8_t>> write_morph_animation(const Scene& scene, size_t animation, bool binary, const SaveOptions& options);
// Mesh file: the listed scene meshes as its submeshes (cal3d_write_mesh.cpp).
Expected<std::vector<uint8_t>> write_mesh(const Scene& scene, const std::vector<uint32_t>& meshes, bool binary, const SaveOptions& options);
// Material file (cal3d_write_material.cpp).
Expected<std::vector<uint8_t>> write_material(const Material& material, bool binary, const SaveOptions& options);

// Registry entries: one file from a whole scene (.xsf: the skeleton; .xmf: every mesh as a submesh;
// .xaf: animation 0, others dropped with a warning; .xrf: material 0 ...), converted to Cal3D
// conventions first.
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

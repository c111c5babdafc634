// The FBX writer's parts (docs/fbx.md "Writing FBX"): one Document gathers the Objects and
// Connections of a scene; each part adds its objects (joints and skins, meshes and materials,
// blend shapes, animations) and fbx_write.cpp puts the file around them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "formats/fbx/fbx_write_tree.hpp"
#include "model/quatd.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::fbx::out {

// FBX time: ticks of 1/46186158000 s (docs/fbx.md §2.6).
constexpr double ticks_per_second = 46186158000.0;
int64_t ticks(double seconds);

struct Document {
    const Scene& scene;
    const SaveOptions& options;
    Node objects{"Objects", {}, {}};
    Node connections{"Connections", {}, {}};
    std::map<std::string, size_t> counts;  // objects per Objects node name, for Definitions

    // Object ids of what later parts link to.
    std::vector<int64_t> joint_models;   // per joint
    std::vector<int64_t> mesh_models;    // per mesh
    std::vector<int64_t> mesh_geometries;
    std::vector<int64_t> materials;
    std::vector<std::vector<int64_t>> morph_channels;  // per mesh, per morph target
    std::vector<Mat4> joint_world;  // per joint: its world matrix in the bind pose
    std::vector<quatd::D4> joint_pre;  // per joint: its PreRotation (identity: none)

    Document(const Scene& s, const SaveOptions& o) : scene(s), options(o) {}

    // A deterministic id from what the object is and where it stands in the scene ("model",
    // joint 3): the same scene gives the same ids, so the same bytes.
    int64_t id(std::string_view kind, size_t index, size_t sub = 0);
    // A new object under Objects: `type` (Model, Geometry ...), its id, name and class, and its
    // subclass ("LimbNode", "Mesh", "" ...).
    Node& object(const std::string& type, int64_t object_id, const std::string& name, const std::string& cls, const std::string& subclass);
    void connect(int64_t child, int64_t parent);
    void connect_property(int64_t child, int64_t parent, const std::string& property);

private:
    std::set<int64_t> used_;
};

// Lcl Translation / Rotation / Scaling and the rest of a Model's properties; a PreRotation when
// `pre` is not the identity, the Lcl Rotation then the turn from it.
void add_model_properties(Node& model, const Transform& local, const quatd::D4& pre = {0, 0, 0, 1});
// A joint's rotation q as its Lcl Rotation holds it: the turn from its PreRotation.
quatd::D4 joint_rotation(const Document& doc, uint32_t joint, const Quat& q);
// Euler angles in degrees, XYZ order (X turned first: R = Rz Ry Rx), of a unit quaternion; of the
// two equivalent triples (and their turns by 360 degrees) the one nearest `near`.
std::array<double, 3> euler_xyz_degrees(const quatd::D4& q, const std::array<double, 3>& near);
std::array<double, 3> euler_xyz_degrees(const quatd::D4& q);
std::array<double, 3> euler_xyz_degrees(const Quat& q);
// A 4x4 matrix as FBX stores it: 16 numbers, column after column.
std::vector<double> matrix_values(const Mat4& m);
// A name for object i of a kind when the scene gives none ("joint_3").
std::string name_or(const std::string& name, const char* kind, size_t index);

void write_joints(Document& doc);      // fbx_write_skin.cpp: LimbNode models and their attributes
void write_materials(Document& doc);   // fbx_write_material.cpp: Materials, Textures, Videos
void write_meshes(Document& doc);      // fbx_write_mesh.cpp: Mesh models and Geometries
void write_skins(Document& doc);       // fbx_write_skin.cpp: Skin, Clusters, BindPose
void write_morphs(Document& doc);      // fbx_write_morph.cpp: BlendShape, channels, Shapes
void write_animations(Document& doc);  // fbx_write_anim.cpp: stacks, layers, curve nodes, curves
// The Takes node listing the stacks.
Node takes_node(const Scene& scene);

}  // namespace rigport::fbx::out

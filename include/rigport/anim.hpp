// Sampling animations: poses at a time, world and skinning matrices, CPU skinning (IQM maths).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport {

// Column-major 4x4 (as glTF and glm): m[col][row].
using Mat4 = std::array<std::array<double, 4>, 4>;

Mat4 identity_matrix();
Mat4 multiply(const Mat4& a, const Mat4& b);
Mat4 inverse_affine(const Mat4& m);
// The matrix of p' = t + R(q) * (s * p); q is normalized first.
Mat4 transform_matrix(const Transform& t);
std::array<double, 3> transform_point(const Mat4& m, const std::array<double, 3>& p);

enum class EndMode : uint8_t { Clamp, Loop };

// The local pose of every joint at `time` seconds: tracks interpolated (slerp on the shorter arc
// for rotations, lerp otherwise, Step keys held), joints without a track keep their bind pose.
// Loop wraps time into [0, duration); Clamp holds the first / last key.
std::vector<Transform> sample_pose(const Skeleton& skeleton, const Animation& animation, float time,
                                   EndMode end = EndMode::Clamp);

// The frames per second a frame-based writer samples an animation at: frame_rate when given;
// for a keyed animation without one (glTF), default_frame_rate when every key time falls on its
// frames, else the first of 24, 25, 48, 50, 60, 120 on whose frames every key falls (so keys made
// at 24 fps stay keys), else default_frame_rate. A frame-based animation without a rate has its
// keys at frame / default_frame_rate.
float sampling_rate(const Animation& animation);

// The pose of frame `frame` of a frame-based animation: time frame / sampling_rate.
std::vector<Transform> frame_pose(const Skeleton& skeleton, const Animation& animation, uint32_t frame);
// The same with sampling_rate(animation) computed once by the caller (it looks at every key).
std::vector<Transform> frame_pose(const Skeleton& skeleton, const Animation& animation, uint32_t frame, float rate);

// Frames a frame-based writer emits for an animation: its own frame_count, else its keys
// resampled at sampling_rate over [0, duration], i.e. floor(duration * rate + 0.5) + 1; an
// animation without keys has none.
uint64_t sampled_frame_count(const Animation& animation);

std::vector<Transform> bind_pose(const Skeleton& skeleton);

// World matrices from local poses, parent-first.
std::vector<Mat4> world_matrices(const Skeleton& skeleton, const std::vector<Transform>& local);

// world(pose) * inverse(world(bind)) per joint.
std::vector<Mat4> skinning_matrices(const Skeleton& skeleton, const std::vector<Transform>& local);

// Positions of a mesh skinned by the given skinning matrices (weights normalized per vertex;
// vertices without influences stay where they are).
std::vector<std::array<double, 3>> skin_positions(const Mesh& mesh, const std::vector<Mat4>& skinning);
// The same for positions given apart from the mesh (morph_positions' result), one per vertex.
std::vector<std::array<double, 3>> skin_positions(const Mesh& mesh, const std::vector<std::array<double, 3>>& positions,
                                                  const std::vector<Mat4>& skinning);

// What an engine blends between two clips (crossfades, layered locomotion): per joint, weight 0
// gives a, 1 gives b; translations and scales lerp, rotations slerp on the shorter arc. Joints
// beyond the shorter pose are a's.
std::vector<Transform> blend_poses(const std::vector<Transform>& a, const std::vector<Transform>& b, float weight);

// The morph target weights of scene mesh `mesh_index` (mesh) at `time`: each target's
// default_weight, replaced by the animation's morph-weight track for that mesh where it has one
// (linear or step, the end keys held; Loop wraps time as sample_pose does).
std::vector<float> sample_morph_weights(const Mesh& mesh, uint32_t mesh_index, const Animation& animation, float time,
                                        EndMode end = EndMode::Clamp);
// The mesh's positions with its morph targets applied: position + sum of weight * delta (skin
// them afterwards with skin_positions(mesh, positions, skinning): glTF morphs, then skins).
std::vector<std::array<double, 3>> morph_positions(const Mesh& mesh, const std::vector<float>& weights);

}  // namespace rigport

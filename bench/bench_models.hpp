// Generated models for the read benchmarks: a skinned, animated grid big enough to time in MB/s.
#pragma once

#include <cmath>
#include <string>

#include "rigport/scene.hpp"

namespace rigport::bench {

// `cells` x `cells` quads (2 triangles each) with normals, tangents and texcoords; with joints > 0,
// a chain of joints along X, two influences per vertex and `frames` frames of bending.
inline Scene grid_scene(int cells, int joints, int frames) {
    Scene scene;
    Mesh mesh;
    mesh.name = "grid";
    mesh.material = 0;
    Material material;
    material.name = "grid.png";
    scene.materials.push_back(material);
    const int n = cells + 1;
    mesh.texcoords.emplace_back();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const float fx = float(x) / cells * float(joints > 0 ? joints : 10), fy = float(y) / cells;
            mesh.positions.push_back({fx, fy * 10, 0.1f * std::sin(fx + fy)});
            mesh.normals.push_back({0, 0, 1});
            mesh.tangents.push_back({1, 0, 0, 1});
            mesh.texcoords[0].push_back({float(x) / cells, float(y) / cells});
        }
    for (int y = 0; y < cells; ++y)
        for (int x = 0; x < cells; ++x) {
            const uint32_t a = uint32_t(y * n + x), b = a + 1, c = a + uint32_t(n), d = c + 1;
            mesh.triangles.push_back({a, c, b});
            mesh.triangles.push_back({b, c, d});
        }
    if (joints > 0) {
        mesh.skin.offsets.push_back(0);
        for (auto& p : mesh.positions) {
            const uint32_t j = std::min<uint32_t>(joints - 1, uint32_t(p[0]));
            mesh.skin.influences.push_back({j, 0.75f});
            mesh.skin.influences.push_back({std::min<uint32_t>(joints - 1, j + 1), 0.25f});
            mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
        }
        for (int j = 0; j < joints; ++j) {
            Joint joint;
            joint.name = "j" + std::to_string(j);
            joint.parent = j - 1;
            joint.bind.translate = {j == 0 ? 0.0f : 1.0f, 0, 0};
            scene.skeleton.joints.push_back(joint);
        }
        Animation anim;
        anim.name = "bend";
        anim.frame_rate = 30;
        anim.frame_count = uint32_t(frames);
        anim.loop = true;
        for (int j = 0; j < joints; ++j) {
            JointTrack t;
            t.joint = uint32_t(j);
            t.channel = Channel::Rotation;
            for (int f = 0; f < frames; ++f) {
                const float angle = 0.02f * std::sin(f * 0.1f);
                t.times.push_back(float(f) / 30);
                t.values.insert(t.values.end(), {0, 0, std::sin(angle / 2), std::cos(angle / 2)});
            }
            anim.tracks.push_back(std::move(t));
        }
        scene.animations.push_back(std::move(anim));
    }
    scene.meshes.push_back(std::move(mesh));
    return scene;
}

}  // namespace rigport::bench

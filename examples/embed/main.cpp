// How an engine embeds rigport: its files live in the engine's own storage (here a folder read
// into memory, standing for a pak, a zip or an asset database), so the model is loaded from bytes
// and every file it names (a .gltf's buffers, textures) comes through a resource reader. Then an
// animation is sampled at a time, the skinning matrices a vertex shader needs are computed, and
// one joint's world matrix is printed.
//
//   embed MODEL_FOLDER MODEL ANIMATION TIME JOINT     e.g. embed assets sample.gltf wave 0.5 tip
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "rigport/rigport.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: embed MODEL_FOLDER MODEL ANIMATION TIME JOINT\n");
        return 1;
    }
    // The engine's storage: every file of the folder, by name.
    std::map<std::string, std::vector<uint8_t>> pak;
    for (auto& entry : fs::directory_iterator(argv[1])) {
        std::ifstream in(entry.path(), std::ios::binary);
        pak[entry.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
    }
    const std::string model = argv[2];
    if (!pak.count(model)) {
        std::fprintf(stderr, "%s is not in %s\n", model.c_str(), argv[1]);
        return 1;
    }

    rigport::LoadOptions options;
    options.read_resource = [&pak](const std::string& uri) -> rigport::Expected<std::vector<uint8_t>> {
        auto it = pak.find(uri);
        if (it == pak.end()) return rigport::make_error(rigport::ErrorCode::NotFound, "'" + uri + "' is not in the pak");
        return it->second;
    };
    rigport::Expected<rigport::Scene> scene = rigport::load_bytes(pak[model], model, options);
    if (!scene) {
        std::fprintf(stderr, "%s\n", scene.error().to_string().c_str());
        return 2;
    }

    const rigport::Animation* animation = nullptr;
    for (auto& a : scene->animations)
        if (a.name == argv[3]) animation = &a;
    int joint = -1;
    for (size_t j = 0; j < scene->skeleton.joints.size(); ++j)
        if (scene->skeleton.joints[j].name == argv[5]) joint = int(j);
    if (!animation || joint < 0) {
        std::fprintf(stderr, "no animation '%s' or joint '%s'\n", argv[3], argv[5]);
        return 1;
    }

    // The pose at TIME (looping, as a game plays a cycle), then what the renderer needs.
    const float time = std::stof(argv[4]);
    const std::vector<rigport::Transform> pose = rigport::sample_pose(scene->skeleton, *animation, time, rigport::EndMode::Loop);
    const std::vector<rigport::Mat4> world = rigport::world_matrices(scene->skeleton, pose);
    const std::vector<rigport::Mat4> skinning = rigport::skinning_matrices(scene->skeleton, pose);

    std::printf("rigport %s: %s, %zu joints, animation '%s' at %g s\n", RIGPORT_VERSION_STRING, model.c_str(),
                scene->skeleton.joints.size(), animation->name.c_str(), time);
    std::printf("world matrix of '%s' (rows):\n", argv[5]);
    const rigport::Mat4& m = world[size_t(joint)];  // column-major: m[col][row]
    for (int row = 0; row < 4; ++row) std::printf("%.6f %.6f %.6f %.6f\n", m[0][row], m[1][row], m[2][row], m[3][row]);
    std::printf("skinning matrices: %zu\n", skinning.size());
    return 0;
}

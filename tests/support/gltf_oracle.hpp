// Independent glTF oracles for the tests (docs/gltf.md §6): the Khronos validator and three.js
// CPU skinning, run under node from tests/js (installed by scripts/setup.sh).
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::test {

// Why the JS oracles cannot run (node not on PATH, tests/js/node_modules absent), or empty.
std::string js_oracles_missing();
// True when RIGPORT_SKIP_JS=1: missing JS oracles then skip tests instead of failing them.
bool js_oracles_skipped();

// --- Khronos glTF-Validator 2.0.0-dev.3.10 (tests/js/validate.mjs) ---

struct ValidatorMessage {
    std::string code;
    int severity = 0;  // 0 error, 1 warning, 2 info, 3 hint
    std::string pointer;
    std::string message;
};

struct ValidatorReport {
    std::string error;  // the script could not run or its output was unreadable; empty = ran
    int errors = 0, warnings = 0, infos = 0, hints = 0;
    std::vector<ValidatorMessage> messages;  // every message (the validator's limit is lifted)

    bool ran() const { return error.empty(); }
    // "E/W/I/H" counts and the first max_messages messages, one per line, for failure output.
    std::string summary(size_t max_messages = 40) const;
    size_t count(const std::string& code) const;
};

ValidatorReport validate_gltf(const std::filesystem::path& file);

// --- three.js 0.187.0 GLTFLoader + AnimationMixer (tests/js/skin.mjs) ---

// One pose to evaluate: an animation (by index or by name) at a time in seconds, or the bind pose.
struct SkinRequest {
    int animation = -1;           // glTF animation index; -1 with an empty name = bind pose
    std::string animation_name;   // used instead of the index when not empty
    double time = 0.0;

    static SkinRequest bind_pose() { return {}; }
    static SkinRequest at(int index, double t) { return {index, {}, t}; }
    static SkinRequest at(std::string name, double t) { return {-1, std::move(name), t}; }
};

struct ThreeFrame {
    std::string animation;  // the clip's name; empty for the bind pose
    double time = 0.0;
    std::vector<std::array<double, 3>> positions;  // world space, vertex order of the primitive
};

// One three.js Mesh / SkinnedMesh, in scene traversal order; frames follow the requests.
struct ThreeMesh {
    std::string name;
    int mesh_index = -1;  // glTF mesh index
    int primitive = -1;   // primitive index within that mesh
    int node = -1;        // glTF node index (of the mesh or of its primitive group)
    bool skinned = false;
    size_t vertex_count = 0;
    std::vector<ThreeFrame> frames;
};

struct ThreeAnimation {
    std::string name;
    double duration = 0.0;
    int tracks = 0;
};

struct ThreeSkinning {
    std::string error;  // empty = ran
    std::vector<ThreeMesh> meshes;
    std::vector<ThreeAnimation> animations;

    bool ran() const { return error.empty(); }
    // The mesh three.js built for glTF mesh `mesh_index`, primitive `primitive`; null if none.
    const ThreeMesh* find(int mesh_index, int primitive = 0) const;
};

// Times to compare an animation at: 0, a middle key, a time between two keys and the last key
// (over the joint and morph-weight tracks' keys).
std::vector<float> times_to_check(const Animation& animation);
// The bind pose, then every animation of the scene at its times_to_check (glTF animation i is
// scene animation i, as rigport writes and reads them).
std::vector<SkinRequest> requests_for(const Scene& scene);

// Loads the file once and evaluates every request in one node run (world-space positions as
// three.js draws them: matrixWorld · getVertexPosition, morphs and skinning applied).
ThreeSkinning three_skin(const std::filesystem::path& file, const std::vector<SkinRequest>& requests);

}  // namespace rigport::test

// Fails the current test when node or tests/js/node_modules is missing, naming scripts/setup.sh;
// with RIGPORT_SKIP_JS=1 in the environment it skips instead.
#define RIGPORT_REQUIRE_JS()                                                                        \
    do {                                                                                            \
        if (const std::string rigport_js_missing_ = ::rigport::test::js_oracles_missing();          \
            !rigport_js_missing_.empty()) {                                                         \
            if (::rigport::test::js_oracles_skipped())                                              \
                GTEST_SKIP() << rigport_js_missing_ << " (skipped: RIGPORT_SKIP_JS=1)";             \
            FAIL() << rigport_js_missing_;                                                          \
        }                                                                                           \
    } while (0)

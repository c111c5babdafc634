// save_output checks the scene it is given before any writer runs: a scene edited out of range (as
// the Python module's writable arrays allow) is an Error naming the array, the element and the
// value, for every writable format, and never a read past an array (this test runs under ASan in
// the sanitizer build).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"

namespace rigport {
namespace {

struct Edit {
    const char* what;      // the array and element, as the message names them
    const char* expected;  // words the error must hold
    std::function<void(Scene&)> apply;
};

std::vector<Edit> edits() {
    return {
        {"a triangle index of 2^32-1", "triangle 0 uses vertex 4294967295",
         [](Scene& s) { s.meshes[0].triangles[0][0] = 0xFFFFFFFFu; }},
        {"a triangle index just past the end", "uses vertex",
         [](Scene& s) { s.meshes[0].triangles[0][1] = uint32_t(s.meshes[0].positions.size()); }},
        {"a skin offset of 2^32-1", "= 4294967295", [](Scene& s) { s.meshes[0].skin.offsets[1] = 0xFFFFFFFFu; }},
        {"the last skin offset past the influences", "not the",
         [](Scene& s) { s.meshes[0].skin.offsets.back() += 5; }},
        {"a skin joint past the skeleton", "skin influence 0 is on joint",
         [](Scene& s) { s.meshes[0].skin.influences[0].joint = uint32_t(s.skeleton.joints.size()); }},
        {"a key time going back", "is before times[",
         [](Scene& s) {
             auto& t = s.animations[0].tracks[0].times;
             t[1] = t[0] - 1;
         }},
        {"a position of NaN", "", [](Scene& s) { s.meshes[0].positions[0][1] = NAN; }},
    };
}

TEST(SaveChecks, EveryWriterRefusesAnEditedSceneNamingTheElement) {
    const Scene sample = make_sample_scene();
    ASSERT_FALSE(sample.meshes.empty());
    ASSERT_FALSE(sample.meshes[0].skin.empty());
    ASSERT_FALSE(sample.animations.empty());
    size_t writers = 0;
    for (auto& f : formats()) {
        if (!f.write) continue;
        ++writers;
        const std::string path = "edited" + std::string(f.extensions.front());
        // The unedited sample is written, so each refusal below is the edit's.
        SaveOptions options;
        options.format = std::string(f.name);
        auto plain = save_output(sample, path, options);
        // (The sample has no morph animation, which a Cal3D .cpf / .xpf is made of: those two refuse
        // the unedited sample, and must still refuse each edit by naming it, not their own rule.)
        if (!plain) EXPECT_NE(plain.error().message.find("morph weight tracks"), std::string::npos) << f.name << ": " << plain.error().to_string();
        for (auto& e : edits()) {
            Scene s = sample;
            e.apply(s);
            auto out = save_output(s, path, options);
            ASSERT_FALSE(out) << f.name << ": " << e.what << " was written";
            EXPECT_EQ(out.error().path, path) << f.name;
            EXPECT_NE(out.error().message.find(e.expected), std::string::npos)
                << f.name << ": " << e.what << ": " << out.error().message;
            auto bytes = save_bytes(s, path, options);
            EXPECT_FALSE(bytes) << f.name << ": " << e.what << " (save_bytes)";
        }
    }
    EXPECT_GE(writers, 8u);
}

}  // namespace
}  // namespace rigport

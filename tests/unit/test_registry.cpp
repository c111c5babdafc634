// The registry says what each format holds, so the CLI prepares a scene for an output without
// naming formats (issue 15): IQM stores 4 influences, Cal3D keeps a clip's stated length, glTF
// carries images; every other row leaves the scene as it is.
#include <gtest/gtest.h>

#include <string>

#include "rigport/formats.hpp"

namespace rigport {
namespace {

TEST(Registry, FormatsSayWhatTheyHold) {
    for (const FormatInfo& f : formats()) {
        SCOPED_TRACE(std::string(f.name));
        const bool cal3d = f.name.rfind("cal3d", 0) == 0, gltf = f.name == "gltf" || f.name == "glb";
        EXPECT_EQ(f.max_influences, f.name == "iqm" ? 4u : 0u);
        EXPECT_EQ(f.stated_duration, cal3d);
        EXPECT_EQ(f.holds_images, gltf);
    }
}

}  // namespace
}  // namespace rigport

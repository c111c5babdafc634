// warning_lines (rigport/report.hpp): warnings of one code and file that differ only in their
// quoted names, numbers and paths fold into one line; anything else stays a line of its own.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rigport/report.hpp"

namespace rigport {
namespace {

TEST(WarningLines, FoldsPerItemMessagesAndKeepsTheRestApart) {
    Warnings w;
    w.add(WarningCode::Substituted, "usemtl 'Base': defined in no .mtl read; default material values", 160, "a.obj");
    w.add(WarningCode::Ignored, "'cstype' lines ignored", 10, "a.obj");
    for (const char* name : {"Site", "Door", "Floor", "Roof", "Sill"})
        w.add(WarningCode::Substituted, fmt::format("usemtl '{}': defined in no .mtl read; default material values", name), 160, "a.obj");
    w.add(WarningCode::Substituted, "usemtl 'Other': defined in no .mtl read; default material values", 160, "b.obj");  // another file
    w.add(WarningCode::DroppedData, "usemtl 'Base': defined in no .mtl read; default material values", 160, "a.obj");  // another code
    w.add(WarningCode::Ignored, "'cstype' lines ignored", 10, "a.obj");
    // Names, numbers and paths differ: the quoted names say which.
    w.add(WarningCode::PartMissing, "line 13: mesh 'calf.cmf' not found (/x/y/calf.cmf); left out", std::nullopt, "c.cfg");
    w.add(WarningCode::PartMissing, "line 14: mesh 'foot.cmf' not found (/x/y/foot.cmf); left out", std::nullopt, "c.cfg");
    // Numbers only: the numbers say which.
    w.add(WarningCode::InvalidNormal, "frame 0: zero-length normals", std::nullopt, "d.joe");
    w.add(WarningCode::InvalidNormal, "frame 2: zero-length normals", std::nullopt, "d.joe");

    const auto lines = warning_lines(w.items);
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_EQ(lines[0].text,
              "a.obj: offset 160: substituted: usemtl 'Base': defined in no .mtl read; default material values "
              "(6 times; also 'Site', 'Door', 'Floor' and 2 more)");
    EXPECT_EQ(lines[0].warnings, 6u);
    EXPECT_EQ(lines[1].text, "a.obj: offset 10: ignored: 'cstype' lines ignored (2 times)");
    EXPECT_EQ(lines[1].warnings, 1u);
    EXPECT_EQ(lines[2].text, "b.obj: offset 160: substituted: usemtl 'Other': defined in no .mtl read; default material values");
    EXPECT_EQ(lines[3].text, "a.obj: offset 160: dropped-data: usemtl 'Base': defined in no .mtl read; default material values");
    EXPECT_EQ(lines[4].text, "c.cfg: part-missing: line 13: mesh 'calf.cmf' not found (/x/y/calf.cmf); left out (2 times; also 'foot.cmf')");
    EXPECT_EQ(lines[5].text, "d.joe: invalid-normal: frame 0: zero-length normals (2 times; also 2)");
}

}  // namespace
}  // namespace rigport

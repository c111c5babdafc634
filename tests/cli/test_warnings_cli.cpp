// Warnings worth reading, through the real binary (docs/cli.md "Warnings"): animation channels
// for joints the mesh's skeleton lacks left out with one warning (SMD, MD5, Cal3D), one true
// statement about a JOE's degenerate faces, no "alone" note for an .md5anim merged onto its mesh,
// warnings of one kind folded into one line, and at most five lines per model unless -v.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "formats/joe/test_joe_builder.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path write_text(const fs::path& path, const std::string& text) {
    write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
    return path;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

size_t lines_with(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (auto& line : lines_of(text)) n += line.find(part) != std::string::npos;
    return n;
}

// A Source reference SMD: two bones and one triangle bound to the child.
const std::string reference_smd = R"(version 1
nodes
0 "root" -1
1 "child" 0
end
skeleton
time 0
0 0 0 0 0 0 0
1 0 0 1 0 0 0
end
triangles
skin
1 0 0 0 0 0 1 0 0
1 1 0 0 0 0 1 1 0
1 0 1 0 0 0 1 0 1
end
)";

// Its animation as 3ds Max exports it: the scene root and a footstep helper are bones too.
const std::string animation_smd = R"(version 1
nodes
0 "MAXSceneRoot.grigori" -1
1 "root" 0
2 "child" 1
3 "Bip01 Footsteps" 0
end
skeleton
time 0
0 0 0 0 0 0 0
1 0 0 0 0 0 0
2 0 0 1 0 0 0
3 5 0 0 0 0 0
time 1
0 0 0 0 0 0 0
1 0 0 0 0 0 0.5
2 0 0 1 0 0 0
3 5 0 0 0 0 0
end
)";

TEST(WarningsCli, SmdAnimationChannelsForJointsTheMeshLacksAreLeftOutWithOneWarning) {
    const fs::path dir = files_dir();
    const fs::path ref = write_text(dir / "ref.smd", reference_smd);
    const fs::path anim = write_text(dir / "walk.smd", animation_smd);
    const fs::path out = dir / "out.glb";
    auto r = run_cli({"convert", ref.string(), anim.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_with(r.err, "lacks"), 1u) << r.err;
    EXPECT_NE(r.err.find("channels for 2 joints the mesh's skeleton lacks left out: 'MAXSceneRoot.grigori', 'Bip01 Footsteps'"),
              std::string::npos)
        << r.err;
    // 'root' hangs under the extra joint in the animation: its parent among the kept joints is none.
    EXPECT_EQ(r.err.find("another parent"), std::string::npos) << r.err;
    auto info = run_cli({"info", "--json", out.string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const json j = json::parse(info.out);
    EXPECT_EQ(j["joints"], 2);
    ASSERT_EQ(j["animations"].size(), 1u);
    EXPECT_EQ(j["animations"][0]["name"], "walk");

    // An animation with no joint of the mesh's belongs to another model: still an error.
    std::string other = animation_smd;
    for (const char* name : {"\"root\"", "\"child\""}) other.replace(other.find(name), std::string(name).size(), "\"elsewhere_" + std::string(name + 1));
    const fs::path stranger = write_text(dir / "stranger.smd", other);
    auto bad = run_cli({"convert", ref.string(), stranger.string(), "-o", (dir / "bad.glb").string()});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("none of the animation's 4 joints"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir / "bad.glb"));
}

const std::string md5mesh = R"(MD5Version 10
commandline "hand-written"

numJoints 2
numMeshes 1

joints {
	"root"	-1 ( 0 0 0 ) ( 0 0 0 )
	"child"	0 ( 0 0 2 ) ( 0 0 0 )
}

mesh {
	shader "skin"
	numverts 3
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 1
	vert 2 ( 0 1 ) 2 1
	numtris 1
	tri 0 0 2 1
	numweights 3
	weight 0 0 1 ( 0 0 0 )
	weight 1 0 1 ( 1 0 0 )
	weight 2 1 1 ( 0 1 0 )
}
)";

// The md5anim of `joints` (each "name parent"), the first joint's Tx animated over 2 frames.
std::string md5anim(const std::vector<std::pair<std::string, int>>& joints) {
    std::string s = fmt::format("MD5Version 10\ncommandline \"\"\n\nnumFrames 2\nnumJoints {}\nframeRate 24\nnumAnimatedComponents 1\n\nhierarchy {{\n",
                                joints.size());
    for (size_t j = 0; j < joints.size(); ++j)
        s += fmt::format("\t\"{}\"\t{} {} {}\n", joints[j].first, joints[j].second, j == 0 ? 1 : 0, 0);
    s += "}\n\nbounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 1 )\n}\n\nbaseframe {\n";
    for (size_t j = 0; j < joints.size(); ++j) s += fmt::format("\t( 0 0 {} ) ( 0 0 0 )\n", j);
    s += "}\n\nframe 0 {\n\t0\n}\n\nframe 1 {\n\t1\n}\n";
    return s;
}

TEST(WarningsCli, Md5AnimMergedOntoItsMeshIsNoLongerAloneAndValidatesStrictly) {
    const fs::path dir = files_dir();
    const fs::path mesh = write_text(dir / "guy.md5mesh", md5mesh);
    const fs::path anim = write_text(dir / "run.md5anim", md5anim({{"root", -1}, {"child", 0}}));
    const fs::path out = dir / "out.md5mesh";
    auto r = run_cli({"convert", mesh.string(), anim.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("alone"), std::string::npos) << r.err;
    const fs::path written_anim = dir / "out_run.md5anim";
    ASSERT_TRUE(fs::exists(written_anim));
    auto v = run_cli({"validate", "--strict", out.string(), written_anim.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_EQ(v.out.find("animation-only"), std::string::npos) << v.out;
    // Read alone, the note stays: it says how the file is meant to be used.
    auto alone = run_cli({"convert", anim.string(), "-o", (dir / "alone.glb").string()});
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    EXPECT_NE(alone.err.find("an .md5anim alone"), std::string::npos) << alone.err;

    // An .md5anim with a joint the mesh lacks: its channels are left out, the rest is merged.
    const fs::path extra = write_text(dir / "extra.md5anim", md5anim({{"origin", -1}, {"root", 0}, {"child", 1}}));
    auto e = run_cli({"convert", mesh.string(), extra.string(), "-o", (dir / "extra.glb").string()});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    EXPECT_EQ(lines_with(e.err, "lacks"), 1u) << e.err;
    EXPECT_NE(e.err.find("channels for 1 joint the mesh's skeleton lacks left out: 'origin'"), std::string::npos) << e.err;
}

// A Cal3D skeleton of two bones and an animation with tracks on them and on bone 7 and 9.
TEST(WarningsCli, Cal3dTracksOnBonesTheSkeletonLacksAreLeftOutWithOneWarning) {
    const fs::path dir = files_dir();
    const fs::path skel = write_text(dir / "s.xsf", R"(<HEADER MAGIC="XSF" VERSION="919"/>
<SKELETON NUMBONES="2">
<BONE NAME="root" ID="0" NUMCHILDS="1"><TRANSLATION>0 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION><LOCALTRANSLATION>0 0 0</LOCALTRANSLATION><LOCALROTATION>0 0 0 1</LOCALROTATION><PARENTID>-1</PARENTID><CHILDID>1</CHILDID></BONE>
<BONE NAME="tip" ID="1" NUMCHILDS="0"><TRANSLATION>0 0 1</TRANSLATION><ROTATION>0 0 0 1</ROTATION><LOCALTRANSLATION>0 0 -1</LOCALTRANSLATION><LOCALROTATION>0 0 0 1</LOCALROTATION><PARENTID>0</PARENTID></BONE>
</SKELETON>
)");
    std::string xaf = "<HEADER MAGIC=\"XAF\" VERSION=\"919\"/>\n<ANIMATION DURATION=\"1\" NUMTRACKS=\"4\">\n";
    for (int bone : {0, 7, 1, 9})
        xaf += fmt::format("<TRACK BONEID=\"{}\" NUMKEYFRAMES=\"2\">"
                           "<KEYFRAME TIME=\"0\"><TRANSLATION>0 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME>"
                           "<KEYFRAME TIME=\"1\"><TRANSLATION>1 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME></TRACK>\n",
                           bone);
    xaf += "</ANIMATION>\n";
    const fs::path anim = write_text(dir / "wave.xaf", xaf);
    auto r = run_cli({"convert", skel.string(), anim.string(), "-o", (dir / "out.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_with(r.err, "lacks"), 1u) << r.err;
    EXPECT_NE(r.err.find("tracks on 2 bones the skeleton lacks left out: bone ids 7, 9"), std::string::npos) << r.err;
    auto info = run_cli({"info", "--json", (dir / "out.glb").string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(json::parse(info.out)["animations"].size(), 1u);
}

TEST(WarningsCli, JoeDegenerateFacesGetOneTrueStatement) {
    const fs::path dir = files_dir();
    JoeFrameSpec f = quad_frame();
    f.faces.push_back({{1, 1, 2}, {0, 0, 0}, {1, 1, 2}});  // a repeated vertex index
    const fs::path in = dir / "car.joe";
    write_bytes(in, build_joe({.frames = {f}}));
    auto r = run_cli({"convert", in.string(), "-o", (dir / "car.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_with(r.err, "degenerate"), 1u) << r.err;
    EXPECT_NE(r.err.find("1 degenerate triangles dropped"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("kept"), std::string::npos) << r.err;
    auto info = run_cli({"info", "--json", (dir / "car.glb").string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(json::parse(info.out)["triangles"], 2);
    // validate still counts them in the file itself.
    auto v = run_cli({"validate", in.string()});
    EXPECT_NE(v.out.find("joe.degenerate"), std::string::npos) << v.out;
}

// An OBJ whose eight materials are in no .mtl: one warning per material, folded into one line.
TEST(WarningsCli, WarningsOfOneKindAreFoldedIntoOneLine) {
    const fs::path dir = files_dir();
    std::string obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\n";
    for (int m = 0; m < 8; ++m) obj += fmt::format("usemtl paint{}\nf 1//1 2//1 3//1\n", m);
    const fs::path in = write_text(dir / "paints.obj", obj);
    auto r = run_cli({"convert", in.string(), "-o", (dir / "paints.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_with(r.err, "usemtl"), 1u) << r.err;
    EXPECT_NE(r.err.find("usemtl 'paint0': defined in no .mtl read; default material values (8 times; also 'paint1', 'paint2', 'paint3' and 4 more)"),
              std::string::npos)
        << r.err;
    // -v lists each; --json keeps one record per warning.
    auto v = run_cli({"convert", in.string(), "-o", (dir / "paints.glb").string(), "-v"});
    ASSERT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(lines_with(v.err, "usemtl"), 8u) << v.err;
    auto j = run_cli({"convert", in.string(), "-o", (dir / "paints.glb").string(), "--json", "-q"});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    size_t records = 0;
    const json record = json::parse(j.out);
    for (auto& w : record["warnings"]) records += w["message"].get<std::string>().starts_with("usemtl");
    EXPECT_EQ(records, 8u);

    // The same warning seen again is one line with its count.
    std::string twice = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n";
    for (int k = 0; k < 3; ++k) twice += "cstype bspline\n";
    const fs::path again = write_text(dir / "again.obj", twice);
    auto a = run_cli({"convert", again.string(), "-o", (dir / "again.glb").string()});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(lines_with(a.err, "'cstype' lines ignored"), 1u) << a.err;
    EXPECT_NE(a.err.find("'cstype' lines ignored (free-form geometry and display attributes are not read) (3 times)"), std::string::npos) << a.err;
}

// An OBJ with eight warnings of different kinds: five lines without -v, the last counting the
// rest; every one with -v.
TEST(WarningsCli, AModelPrintsAtMostFiveWarningLinesUnlessVerbose) {
    const fs::path dir = files_dir();
    const fs::path in = write_text(dir / "messy.obj", R"(mtllib missing.mtl
v 0 0 0
v 1 0 0
v 0 1 0
v 1 1 0
s soft
cstype bspline
frobnicate 1
l 1 2
p 3
f 1 2
f 1 2 3
f 2 4 3
)");
    const fs::path out = dir / "messy.glb";
    auto quiet = run_cli({"convert", in.string(), "-o", out.string()});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    auto verbose = run_cli({"convert", in.string(), "-o", out.string(), "-v"});
    ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
    const auto shown = lines_of(quiet.err);
    const auto all = lines_of(verbose.err);
    ASSERT_GE(all.size(), 8u) << verbose.err;
    ASSERT_EQ(shown.size(), 5u) << quiet.err;
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(shown[i], all[i]);
    std::smatch m;
    ASSERT_TRUE(std::regex_match(shown[4], m, std::regex(R"(Warning: (\d+) more warnings \(-v to list them\))"))) << shown[4];
    EXPECT_EQ(std::stoul(m[1]) + 4, all.size()) << verbose.err;
    for (auto& line : all) EXPECT_TRUE(line.starts_with("Warning: ")) << line;
}

// A Cal3D mesh read without its skeleton has bone numbers, no skeleton: the glTF writer says so.
TEST(WarningsCli, SkinWithoutASkeletonIsNotCalledAnimationOnly) {
    const fs::path dir = files_dir();
    const fs::path in = write_text(dir / "body.xmf", R"(<HEADER MAGIC="XMF" VERSION="919"/><MESH NUMSUBMESH="1">
<SUBMESH NUMVERTICES="3" NUMFACES="1" NUMLODSTEPS="0" NUMSPRINGS="0" NUMTEXCOORDS="0" MATERIAL="0" NUMMORPHS="0">
<VERTEX ID="0" NUMINFLUENCES="1"><POS>0 0 0</POS><NORM>0 0 1</NORM><INFLUENCE ID="3">1</INFLUENCE></VERTEX>
<VERTEX ID="1" NUMINFLUENCES="1"><POS>1 0 0</POS><NORM>0 0 1</NORM><INFLUENCE ID="3">1</INFLUENCE></VERTEX>
<VERTEX ID="2" NUMINFLUENCES="1"><POS>0 1 0</POS><NORM>0 0 1</NORM><INFLUENCE ID="3">1</INFLUENCE></VERTEX>
<FACE VERTEXID="0 1 2"/></SUBMESH></MESH>
)");
    auto r = run_cli({"convert", in.string(), "-o", (dir / "body.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("animation-only"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("skin influences were not written: the model has no skeleton"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rigport::test

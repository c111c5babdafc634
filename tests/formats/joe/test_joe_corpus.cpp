// The JOE / JPK corpus (docs/testing.md "Corpus counts"): every file loads, `rigport info` reports the
// stored counts, winding and VDrift's heuristic match the measured figures, JOE -> JOE keeps the
// geometry bit for bit, JOE -> glTF passes the Khronos validator, JOE -> IQM/IQE -> JOE and
// glTF -> JOE come back exactly, and JPK packs list / extract / create member for member.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>

#include "formats/joe/joe.hpp"
#include "gltf_oracle.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/process.hpp"
#include "rigport/validate.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Measured from the files (docs/testing.md "Corpus counts"): faces, V/T/N, unique corners, and winding as
// agree / disagree / perpendicular (CCW geometric normal against the summed normals; faces with a
// repeated vertex index not counted). Exact integers: no tolerance.
struct Expected_ {
    const char* file;
    uint32_t faces, verts, texcoords, normals, corners;
    uint64_t agree, disagree, perpendicular;
};
const Expected_ expected[] = {
    {"trackeditor__tracks_test1_roadtest.joe", 600, 400, 3, 600, 1800, 0, 600, 0},
    {"trackeditor__tracks_test1_starting_line.joe", 252, 118, 200, 82, 212, 0, 248, 4},
    {"vdrift-data-short__carparts_wheel_5_spoke_m.joe", 350, 211, 211, 211, 211, 350, 0, 0},
    {"vdrift-data-short__cars_360_body.joe", 7726, 3981, 4987, 3697, 5161, 7704, 2, 20},
    {"vdrift-data-short__cars_ATT_body.joe", 1366, 828, 975, 1196, 1405, 1366, 0, 0},
    {"vdrift-data-short__cars_CO_body.joe", 8042, 4457, 3729, 4460, 5085, 2324, 89, 5629},
    {"vdrift-data-short__cars_CT_glass.joe", 414, 295, 0, 298, 299, 0, 410, 0},
    {"vdrift-data-short__cars_DCH_acc.joe", 2648, 1897, 1030, 2639, 7932, 2644, 0, 0},
    {"vdrift-data-short__cars_EF_body.joe", 8730, 4279, 1, 4576, 4973, 2462, 3409, 1589},
    {"vdrift-data-short__cars_EF_glass.joe", 15152, 7905, 1, 12661, 40311, 14618, 0, 0},
    {"vdrift-data-short__cars_LE_oem_wheel.joe", 800, 434, 443, 496, 690, 138, 18, 644},
    {"vdrift-data-short__cars_XS_body.joe", 3875, 2011, 1540, 2462, 5371, 0, 3865, 10},
    {"vdrift-data-short__cars_XS_interior.joe", 474, 246, 27, 434, 1236, 0, 474, 0},
    {"vdrift-data-short__cars_XS_oem_wheel.joe", 620, 316, 374, 316, 419, 570, 0, 50},
};

fs::path joe_path(const char* file) { return corpus_dir() / "joe" / file; }

TEST(JoeCorpus, EveryFileIsListedInTheTable) {
    RIGPORT_REQUIRE_CORPUS();
    auto files = corpus_files("joe", ".joe");
    EXPECT_EQ(files.size(), std::size(expected));
    for (auto& p : files) {
        bool listed = false;
        for (auto& e : expected) listed = listed || p.filename() == e.file;
        EXPECT_TRUE(listed) << p.filename() << " has no expected figures";
    }
}

TEST(JoeCorpus, InfoReportsTheStoredCounts) {
    RIGPORT_REQUIRE_CORPUS();
    const std::regex frame_line(R"(joe frame 0: (\d+) faces, (\d+) verts, (\d+) texcoords, (\d+) normals, (\d+) corners)");
    const std::regex mesh_line(R"(meshes: 1 \((\d+) vertices, (\d+) triangles\))");
    for (auto& e : expected) {
        RunResult r = run_cli({"info", joe_path(e.file).string()});
        ASSERT_EQ(r.exit_code, 0) << e.file << ": " << r.err;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, frame_line)) << e.file << ":\n" << r.out;
        EXPECT_EQ(std::stoul(m[1]), e.faces) << e.file;
        EXPECT_EQ(std::stoul(m[2]), e.verts) << e.file;
        EXPECT_EQ(std::stoul(m[3]), e.texcoords) << e.file;
        EXPECT_EQ(std::stoul(m[4]), e.normals) << e.file;
        EXPECT_EQ(std::stoul(m[5]), e.corners) << e.file;
        // The scene holds one vertex per unique corner, as VDrift builds it.
        ASSERT_TRUE(std::regex_search(r.out, m, mesh_line)) << e.file << ":\n" << r.out;
        EXPECT_EQ(std::stoul(m[1]), e.corners) << e.file;
        EXPECT_EQ(std::stoul(m[2]), e.faces) << e.file;
    }
}

TEST(JoeCorpus, EveryFileLoadsWithTheSourceConventions) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto& e : expected) {
        auto bytes = read_bytes(joe_path(e.file));
        EXPECT_TRUE(joe::detect(bytes)) << e.file;
        auto scene = load(joe_path(e.file).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        EXPECT_TRUE(check_invariants(*scene)) << e.file;
        EXPECT_EQ(scene->meta.source_format, "joe");
        EXPECT_EQ(scene->meta.up, UpAxis::Z);
        EXPECT_EQ(scene->meta.front_face, Winding::CounterClockwise);
        ASSERT_EQ(scene->meshes.size(), 1u);
        EXPECT_EQ(scene->meshes[0].vertex_count(), e.corners) << e.file;
        EXPECT_TRUE(scene->meshes[0].morph_targets.empty());
        // Every vertex is a (v, t, n) triple of the file: its values are the stored ones.
        Warnings w;
        auto file = joe::parse(bytes, LoadOptions{}, w);
        ASSERT_TRUE(file);
        const joe::Frame& f0 = file->frames[0];
        const Mesh& m = scene->meshes[0];
        for (size_t f = 0; f < f0.faces.size(); ++f)
            for (int k = 0; k < 3; ++k) {
                const uint32_t v = m.triangles[f][k];
                ASSERT_EQ(m.positions[v], f0.verts[f0.faces[f].vertex[k]]) << e.file << " face " << f;
                ASSERT_EQ(m.normals[v], f0.normals[f0.faces[f].normal[k]]) << e.file << " face " << f;
                if (e.texcoords > 0) {
                    ASSERT_EQ(m.texcoords[0][v], f0.texcoords[f0.faces[f].texcoord[k]]) << e.file;
                }
            }
    }
}

TEST(JoeCorpus, WindingAndNormalSwapMatchTheMeasuredFigures) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto& e : expected) {
        Warnings w;
        auto file = joe::parse(read_bytes(joe_path(e.file)), LoadOptions{}, w);
        ASSERT_TRUE(file) << e.file;
        const joe::WindingCounts c = joe::count_winding(file->frames[0], false);
        EXPECT_EQ(c.agree, e.agree) << e.file;
        EXPECT_EQ(c.disagree, e.disagree) << e.file;
        EXPECT_EQ(c.perpendicular, e.perpendicular) << e.file;
    }
    // docs/joe.md §4: fires on CO (5,287 perpendicular, limit 2,010; the swap is right) and
    // LE (644; a misfire), not on EF (1,393 <= 2,182).
    struct Swap {
        const char* file;
        uint64_t perpendicular, limit;
        bool fires;
        uint64_t after_agree, after_disagree, after_perpendicular;
    };
    const Swap swaps[] = {{"vdrift-data-short__cars_CO_body.joe", 5287, 2010, true, 7997, 0, 45},
                          {"vdrift-data-short__cars_LE_oem_wheel.joe", 644, 200, true, 76, 71, 653},
                          {"vdrift-data-short__cars_EF_body.joe", 1393, 2182, false, 0, 0, 0}};
    for (auto& s : swaps) {
        const auto bytes = read_bytes(joe_path(s.file));
        Warnings w;
        auto file = joe::parse(bytes, LoadOptions{}, w);
        ASSERT_TRUE(file);
        EXPECT_EQ(joe::count_perpendicular(file->frames[0]), s.perpendicular) << s.file;
        auto scene = load_bytes(bytes, s.file);
        ASSERT_TRUE(scene);
        const NormalSwapTest t = test_vdrift_normal_swap(scene->meshes[0]);
        EXPECT_EQ(t.perpendicular, s.perpendicular) << s.file;  // the welded scene decides as the file does
        EXPECT_EQ(t.limit, s.limit) << s.file;
        EXPECT_EQ(t.fires, s.fires) << s.file;
        ValidationReport report = validate_bytes(bytes, s.file);
        bool reported = false;
        for (auto& f : report.findings) reported = reported || f.code == "vdrift.normal_swap";
        EXPECT_EQ(reported, s.fires) << s.file;
        if (!s.fires) continue;
        const joe::WindingCounts after = joe::count_winding(file->frames[0], true);
        EXPECT_EQ(after.agree, s.after_agree) << s.file;
        EXPECT_EQ(after.disagree, s.after_disagree) << s.file;
        EXPECT_EQ(after.perpendicular, s.after_perpendicular) << s.file;
    }
}

TEST(JoeCorpus, FixNormalsThroughConvertMakesCoBodyAgree) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path out = temp_dir() / "co_fixed.joe";
    RunResult r = run_cli({"convert", joe_path("vdrift-data-short__cars_CO_body.joe").string(), "--fix-normals", "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("normals swapped"), std::string::npos) << r.err;
    Warnings w;
    auto file = joe::parse(read_bytes(out), LoadOptions{}, w);
    ASSERT_TRUE(file) << file.error().to_string();
    const joe::WindingCounts c = joe::count_winding(file->frames[0], false);
    EXPECT_EQ(c.agree, 7997u);
    EXPECT_EQ(c.disagree, 0u);
    EXPECT_EQ(c.perpendicular, 45u);
    EXPECT_LE(joe::count_perpendicular(file->frames[0]), file->frames[0].faces.size() / 4);  // VDrift no longer swaps
}

// Corner values of every triangle, bit for bit (positions, texcoord set 0, and normals unless
// unit_normals: glTF stores unit normals, so a's are normalized and compared to 1e-6 absolute
// per component; zero-length ones, written as +Y there, are skipped).
void expect_same_corners(const Mesh& a, const Mesh& b, const std::string& what, bool unit_normals = false) {
    ASSERT_EQ(a.triangles.size(), b.triangles.size()) << what;
    for (size_t t = 0; t < a.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            const uint32_t va = a.triangles[t][k], vb = b.triangles[t][k];
            ASSERT_EQ(std::memcmp(&a.positions[va], &b.positions[vb], sizeof(Vec3)), 0) << what << " triangle " << t << " corner " << k;
            ASSERT_EQ(std::memcmp(&a.texcoords[0][va], &b.texcoords[0][vb], sizeof(Vec2)), 0) << what << " triangle " << t;
            if (!unit_normals) {
                ASSERT_EQ(std::memcmp(&a.normals[va], &b.normals[vb], sizeof(Vec3)), 0) << what << " triangle " << t << " corner " << k;
                continue;
            }
            const Vec3& n = a.normals[va];
            const double len = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
            if (!(len > 0)) continue;
            for (int c = 0; c < 3; ++c) ASSERT_NEAR(n[c] / len, b.normals[vb][c], 1e-6) << what << " triangle " << t << " corner " << k;
        }
}

TEST(JoeCorpus, JoeToJoeKeepsGeometryExactly) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto& e : expected) {
        auto a = load(joe_path(e.file).string());
        ASSERT_TRUE(a);
        auto bytes = save_bytes(*a, "out.joe");
        ASSERT_TRUE(bytes) << e.file << ": " << bytes.error().to_string();
        EXPECT_EQ(bytes->size(), joe::expected_size(*bytes)) << e.file;
        auto b = load_bytes(*bytes, "out.joe");
        ASSERT_TRUE(b) << e.file << ": " << b.error().to_string();
        expect_same_corners(a->meshes[0], b->meshes[0], e.file);
        // Equal values at different indices are merged by the writer, never split.
        EXPECT_LE(b->meshes[0].vertex_count(), a->meshes[0].vertex_count()) << e.file;
        // Writing is a fixed point after one pass, and deterministic.
        auto again = save_bytes(*b, "out.joe");
        ASSERT_TRUE(again);
        EXPECT_EQ(*again, *bytes) << e.file;
    }
}

TEST(JoeCorpus, ThroughIqmIqeAndGltfAndBack) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = temp_dir();
    for (auto& e : expected) {
        auto a = load(joe_path(e.file).string());
        ASSERT_TRUE(a);
        drop_degenerate_triangles(*a);  // as `convert` does for every input
        for (const char* ext : {".iqm", ".iqe", ".glb"}) {
            const fs::path mid = dir / (std::string("mid") + ext), back = dir / "back.joe";
            RunResult r1 = run_cli({"convert", joe_path(e.file).string(), "-o", mid.string()});
            ASSERT_EQ(r1.exit_code, 0) << e.file << " -> " << ext << ": " << r1.err;
            if (std::string(ext) == ".iqe") {
                // `convert` runs IQE input through the reference compiler's pipeline (cache
                // order): the reader and the JOE writer are called directly.
                auto iqe = load(mid.string());
                ASSERT_TRUE(iqe) << iqe.error().to_string();
                auto bytes = save_bytes(*iqe, back.string());
                ASSERT_TRUE(bytes) << bytes.error().to_string();
                write_bytes(back, *bytes);
            } else {
                RunResult r2 = run_cli({"convert", mid.string(), "-o", back.string()});
                ASSERT_EQ(r2.exit_code, 0) << e.file << " " << ext << " -> joe: " << r2.err;
            }
            auto b = load(back.string());
            ASSERT_TRUE(b) << b.error().to_string();
            ASSERT_EQ(b->meshes.size(), 1u);
            // Axis turns (glTF Y up and back) are exact permutations; IQM's CW winding is undone;
            // IQE writes shortest round-trip floats. Only glTF changes normals (to unit length).
            expect_same_corners(a->meshes[0], b->meshes[0], std::string(e.file) + " via " + ext, std::string(ext) == ".glb");
        }
    }
}

TEST(JoeCorpus, GltfOutputPassesTheKhronosValidator) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = temp_dir();
    std::vector<std::string> inputs;
    for (auto& e : expected) inputs.push_back(joe_path(e.file).string());
    inputs.push_back((corpus_dir() / "joe" / "vdrift-data-short__tracks_garage_objects.jpk").string() + ":Wall.017.joe");
    for (auto& input : inputs) {
        const fs::path out = dir / "out.glb";
        RunResult r = run_cli({"convert", input, "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << input << ": " << r.err;
        ValidatorReport v = validate_gltf(out);
        ASSERT_TRUE(v.ran()) << v.error;
        EXPECT_EQ(v.errors, 0) << input << ": " << v.summary();
    }
}

// ---- JPK ----------------------------------------------------------------------------------

std::map<std::string, std::vector<uint8_t>> members_of(const std::vector<uint8_t>& bytes) {
    auto pack = parse_jpk(bytes);
    EXPECT_TRUE(pack) << pack.error().to_string();
    std::map<std::string, std::vector<uint8_t>> out;
    if (!pack) return out;
    for (auto& e : pack->entries) {
        auto s = jpk_member_bytes(bytes, e);
        out[e.name] = std::vector<uint8_t>(s.begin(), s.end());  // the last duplicate wins
    }
    return out;
}

TEST(JpkCorpus, ListMatchesTheMeasuredLayout) {
    RIGPORT_REQUIRE_CORPUS();
    auto test1 = read_bytes(corpus_dir() / "joe" / "vdrift-data-short__test_test1.jpk");
    auto p1 = parse_jpk(test1);
    ASSERT_TRUE(p1) << p1.error().to_string();
    EXPECT_EQ(p1->numobjs, 1u);
    EXPECT_EQ(p1->maxstrlen, 12u);
    EXPECT_EQ(p1->fat_end, 36u);
    ASSERT_EQ(p1->entries.size(), 1u);
    EXPECT_EQ(p1->entries[0].name, "testlist.txt");  // fills its slot: no NUL
    auto s = jpk_member_bytes(test1, p1->entries[0]);
    EXPECT_EQ(std::string(s.begin(), s.end()), "This is\na test.\n");  // VDrift's own unit test

    auto garage = read_bytes(corpus_dir() / "joe" / "vdrift-data-short__tracks_garage_objects.jpk");
    auto p2 = parse_jpk(garage);
    ASSERT_TRUE(p2) << p2.error().to_string();
    EXPECT_EQ(p2->numobjs, 37u);
    EXPECT_EQ(p2->maxstrlen, 19u);
    EXPECT_EQ(p2->fat_end, 1015u);
    EXPECT_EQ(p2->data_end, 17659u);
    EXPECT_EQ(p2->trailing_bytes, 12257u);
    int full_slots = 0;
    uint64_t faces = 0;
    for (auto& e : p2->entries) {
        full_slots += e.name.size() == 19;
        EXPECT_FALSE(e.overridden);
        Warnings w;
        auto member = jpk_member_bytes(garage, e);
        ASSERT_TRUE(joe::detect(member)) << e.name;
        auto file = joe::parse(member, LoadOptions{}, w);
        ASSERT_TRUE(file) << e.name;
        faces += file->num_faces;
        const joe::WindingCounts c = joe::count_winding(file->frames[0], false);
        EXPECT_EQ(c.agree, file->num_faces) << e.name;  // all CCW
        EXPECT_LE(joe::count_perpendicular(file->frames[0]), file->num_faces / 4) << e.name;  // never fires
    }
    EXPECT_EQ(full_slots, 5);
    EXPECT_EQ(faces, 372u);

    RunResult r = run_cli({"pack", "list", (corpus_dir() / "joe" / "vdrift-data-short__tracks_garage_objects.jpk").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("37 entries"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cinderblock.002.joe"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("12257 bytes after the last member"), std::string::npos) << r.err;
}

TEST(JpkCorpus, ExtractAndCreateRoundTripMemberByMember) {
    RIGPORT_REQUIRE_CORPUS();
    for (const char* name : {"vdrift-data-short__test_test1.jpk", "vdrift-data-short__tracks_garage_objects.jpk"}) {
        const fs::path pack = corpus_dir() / "joe" / name, dir = temp_dir(), out_dir = dir / "members", repacked = dir / "re.jpk";
        const auto original = members_of(read_bytes(pack));
        ASSERT_FALSE(original.empty());
        RunResult x = run_cli({"pack", "extract", pack.string(), "-o", out_dir.string()});
        ASSERT_EQ(x.exit_code, 0) << name << ": " << x.err;
        size_t files = 0;
        for (auto& entry : fs::directory_iterator(out_dir)) {
            ++files;
            auto it = original.find(entry.path().filename().string());
            ASSERT_NE(it, original.end()) << entry.path();
            EXPECT_EQ(read_bytes(entry.path()), it->second) << entry.path();
        }
        EXPECT_EQ(files, original.size());
        RunResult c = run_cli({"pack", "create", out_dir.string(), "-o", repacked.string()});
        ASSERT_EQ(c.exit_code, 0) << name << ": " << c.err;
        const auto re = read_bytes(repacked);
        EXPECT_EQ(members_of(re), original) << name;
        auto p = parse_jpk(re);
        ASSERT_TRUE(p);
        EXPECT_EQ(p->trailing_bytes, 0u);  // written fresh: no stale bytes
        EXPECT_TRUE(p->warnings.items.empty());
        // A member read directly from the pack is the extracted file.
        for (auto& [member, bytes] : original) {
            auto direct = read_input(pack.string() + ":" + member);
            ASSERT_TRUE(direct) << direct.error().to_string();
            EXPECT_EQ(*direct, bytes) << member;
        }
    }
}

TEST(JpkCorpus, ConvertReadsAMemberDirectly) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path pack = corpus_dir() / "joe" / "vdrift-data-short__tracks_garage_objects.jpk", dir = temp_dir();
    RunResult x = run_cli({"pack", "extract", pack.string(), "-o", (dir / "m").string()});
    ASSERT_EQ(x.exit_code, 0) << x.err;
    RunResult a = run_cli({"convert", pack.string() + ":cinderblock.002.joe", "-o", (dir / "direct.glb").string()});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    RunResult b = run_cli({"convert", (dir / "m" / "cinderblock.002.joe").string(), "-o", (dir / "loose.glb").string()});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(read_bytes(dir / "direct.glb"), read_bytes(dir / "loose.glb"));
    RunResult info = run_cli({"info", pack.string() + ":Wall.017.joe"});
    EXPECT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find("joe frame 0: 24 faces"), std::string::npos) << info.out;
    RunResult missing = run_cli({"convert", pack.string() + ":nope.joe", "-o", (dir / "x.glb").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no member 'nope.joe'"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace rigport::test

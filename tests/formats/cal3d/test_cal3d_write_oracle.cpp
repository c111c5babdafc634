// Differential oracle for the Cal3D writers: Debian's /usr/bin/cal3d_converter (libcal3d 0.11,
// docs/cal3d.md §7) converts what rigport writes in the 1100 dialect, and rigport reads what it
// writes; corpus binaries converted to XML by it read as the binaries do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// 6 significant digits in the converter's XML (§3.8): 1e-5 relative, and 1e-5 absolute for values
// below 1 (quaternion components, which our reader also renormalises).
void expect_close(float a, float b, const std::string& what) {
    ASSERT_LE(std::fabs(double(a) - b), 1e-5 * std::max(1.0, std::fabs(double(a)))) << what << ": " << a << " vs " << b;
}

void expect_close_rotation(const float* a, const float* b, const std::string& what) {
    double dot = 0;
    for (int c = 0; c < 4; ++c) dot += double(a[c]) * b[c];
    for (int c = 0; c < 4; ++c) expect_close(a[c], dot < 0 ? -b[c] : b[c], what);
}

void expect_close_scenes(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.skeleton.joints.size(), b.skeleton.joints.size());
    EXPECT_EQ(a.skeleton.source_ids, b.skeleton.source_ids);
    for (size_t j = 0; j < a.skeleton.joints.size(); ++j) {
        const Joint &x = a.skeleton.joints[j], &y = b.skeleton.joints[j];
        ASSERT_EQ(x.name, y.name);
        ASSERT_EQ(x.parent, y.parent);
        if (a.skeleton.animation_only) continue;
        for (int c = 0; c < 3; ++c) expect_close(x.bind.translate[c], y.bind.translate[c], x.name);
        expect_close_rotation(x.bind.rotate.data(), y.bind.rotate.data(), x.name);
    }
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
        const Animation &x = a.animations[i], &y = b.animations[i];
        expect_close(x.stated_duration, y.stated_duration, "DURATION");
        ASSERT_EQ(x.tracks.size(), y.tracks.size());
        for (size_t t = 0; t < x.tracks.size(); ++t) {
            const JointTrack &p = x.tracks[t], &q = y.tracks[t];
            ASSERT_EQ(p.joint, q.joint);
            ASSERT_EQ(p.channel, q.channel);
            ASSERT_EQ(p.times.size(), q.times.size());
            for (size_t k = 0; k < p.times.size(); ++k) expect_close(p.times[k], q.times[k], "time");
            const uint32_t c = p.components();
            for (size_t k = 0; k < p.times.size(); ++k) {
                if (c == 4) expect_close_rotation(&p.values[k * 4], &q.values[k * 4], "key rotation");
                else
                    for (uint32_t m = 0; m < 3; ++m) expect_close(p.values[k * 3 + m], q.values[k * 3 + m], "key translation");
            }
        }
    }
}

Scene read(const fs::path& p) {
    auto s = load(p.string());
    EXPECT_TRUE(s) << p << ": " << s.error().to_string();
    return s ? std::move(*s) : Scene{};
}

const char* classic_sources[] = {
    "upstream_binary/cally/cally.csf",       "upstream_binary/paladin/paladin.csf",    "upstream_binary/dokurochan/DokuroChan.csf",
    "upstream_binary/cally/cally_walk.caf",  "upstream_binary/cally/cally_idle.caf",   "upstream_binary/paladin/paladin_idle.caf",
    "upstream_binary/dokurochan/DokuroChan_test_bone.caf",
};

// rigport writes 1100 XSF / CSF / XAF / CAF; the converter loads each (exit 0) and writes the other
// encoding; rigport reads that back as the scene it wrote. Includes a fixture with names holding
// spaces and XML special characters.
TEST(Cal3dWriteOracle, ConverterReadsOurClassicFiles) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_CAL3D_CONVERTER();
    std::vector<std::pair<std::string, Scene>> scenes;
    for (const char* p : classic_sources) scenes.emplace_back(p, read(corpus_dir() / "cal3d" / p));
    {
        Scene s;
        s.skeleton.joints.push_back(Joint{"Root & <Main> \"1\"", -1, {{1, 2, 3}, {0, 0, 0.6f, 0.8f}, {1, 1, 1}}});
        s.skeleton.joints.push_back(Joint{"Bone with spaces", 0, {{0, 10, 0}, {0.6f, 0, 0, 0.8f}, {1, 1, 1}}});
        s.skeleton.joints.push_back(Joint{"'quoted' > tail", 0, {{0, 0, -4}, {0, 0, 0, 1}, {1, 1, 1}}});
        scenes.emplace_back("fixture.xsf", std::move(s));
    }
    SaveOptions o;
    o.cal3d.dialect = cal3d::Dialect::Classic1100;
    const fs::path dir = temp_dir();
    for (auto& [name, scene] : scenes) {
        const bool skeleton = !scene.skeleton.animation_only;
        for (bool binary : {true, false}) {
            SCOPED_TRACE(name + (binary ? " as binary" : " as XML"));
            const fs::path ours = dir / (std::string(binary ? "ours." : "ours_x.") + (skeleton ? (binary ? "csf" : "xsf") : (binary ? "caf" : "xaf")));
            const fs::path theirs = dir / (std::string("theirs.") + (skeleton ? (binary ? "xsf" : "csf") : (binary ? "xaf" : "caf")));
            ASSERT_TRUE(save(scene, ours.string(), o));
            ASSERT_EQ(run_cal3d_converter(ours, theirs), 0) << "cal3d_converter rejected " << ours;
            Scene written = read(ours), converted = read(theirs);
            expect_close_scenes(written, converted);
            EXPECT_EQ(converted.meta.source_version, 1100u);
        }
    }
}

// Corpus binaries (v700 and v1100) converted to XML by the converter read as the binaries do.
TEST(Cal3dWriteOracle, ConverterXmlOfCorpusBinaries) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_CAL3D_CONVERTER();
    const fs::path dir = temp_dir();
    for (const char* p : classic_sources) {
        SCOPED_TRACE(p);
        const fs::path src = corpus_dir() / "cal3d" / p;
        const fs::path xml = dir / (src.stem().string() + (src.extension() == ".csf" ? ".xsf" : ".xaf"));
        ASSERT_EQ(run_cal3d_converter(src, xml), 0);
        expect_close_scenes(read(src), read(xml));
    }
}

}  // namespace
}  // namespace rigport::test

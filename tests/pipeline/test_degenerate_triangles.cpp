// Degenerate triangles, one rule for every route into every output (process.hpp,
// drop_degenerate_triangles): a repeated vertex or two corners at the same position is dropped,
// with a counted warning, whether the model comes as glTF, as IQE, or as glTF through IQE.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "formats/gltf/gltf_fixture.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Two good triangles, one repeating a vertex (0 0 1) and one of distinct vertices of which two
// lie at the same position (4 5 6): zero area.
const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 2, 0, 2, 2, 0, 3, 2, 0};
const std::vector<uint16_t> corners = {0, 1, 2, 1, 3, 2, 0, 0, 1, 4, 5, 6};

std::string iqe_text() {
    std::string s = "# Inter-Quake Export\nmesh m\n";
    for (size_t i = 0; i < positions.size(); i += 3)
        s += "vp " + std::to_string(positions[i]) + " " + std::to_string(positions[i + 1]) + " " + std::to_string(positions[i + 2]) + "\n";
    for (size_t i = 0; i < corners.size(); i += 3)
        s += "fm " + std::to_string(corners[i]) + " " + std::to_string(corners[i + 1]) + " " + std::to_string(corners[i + 2]) + "\n";
    return s;
}

// Converts and expects the warning that counts the two dropped triangles (when `dropping`).
void convert(const fs::path& in, const fs::path& out, bool dropping) {
    RunResult r = run_cli({"convert", in.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("2 degenerate triangles dropped") != std::string::npos, dropping) << r.err;
}

int triangles(const fs::path& file) {
    RunResult r = run_cli({"info", "--json", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["triangles"].get<int>();
}

TEST(DegenerateTriangles, DroppedOnEveryRoute) {
    const fs::path dir = files_dir();
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(positions, "VEC3")}}, f.indices(corners));
    f.finish_scene();
    write_bytes(dir / "in.glb", f.glb());
    const std::string text = iqe_text();
    write_bytes(dir / "in.iqe", std::vector<uint8_t>(text.begin(), text.end()));

    convert(dir / "in.glb", dir / "direct.iqm", true);  // glb -> iqm
    EXPECT_EQ(triangles(dir / "direct.iqm"), 2);
    convert(dir / "in.glb", dir / "mid.iqe", true);  // glb -> iqe -> iqm
    convert(dir / "mid.iqe", dir / "via_iqe.iqm", false);
    EXPECT_EQ(triangles(dir / "via_iqe.iqm"), 2);
    convert(dir / "in.iqe", dir / "text.iqm", true);  // iqe -> iqm
    EXPECT_EQ(triangles(dir / "text.iqm"), 2);
    convert(dir / "in.iqe", dir / "text.glb", true);  // and into other outputs
    EXPECT_EQ(triangles(dir / "text.glb"), 2);
    convert(dir / "in.glb", dir / "again.glb", true);
    EXPECT_EQ(triangles(dir / "again.glb"), 2);
}

}  // namespace
}  // namespace rigport::test

// docs/cli.md, "Inputs: what rigport will read", through the real binary: a model reads only from its own folder and below
// (buffers, images, .cfg members, .xrf maps, IQE materials; '..', %2E%2E, absolute paths and
// symbolic links), only regular files (no FIFO hang), `pack extract` checks every member's path
// before writing, and a missing part is an error naming the file and the line or JSON path naming
// it (--allow-missing: a warning). No byte of a file outside the model's folder reaches an output.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <set>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/compile.hpp"
#include "rigport/images.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Positions whose float bytes are the "secret" of a buffer outside the model's folder.
const std::vector<float> secret_triangle = {1234.5678f, -8765.4321f, 3141.5927f, 2718.2818f, -1414.2135f,
                                            1732.0508f, 999.125f,    -4242.4242f, 5555.5f};
const std::string secret_bone = "RIGPORT_SECRET_BONE_9f3c";

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const fs::path& p) {
    auto b = read_bytes(p);
    return {b.begin(), b.end()};
}
void write_text(const fs::path& p, const std::string& text) { write_bytes(p, bytes_of(text)); }

bool contains(const std::vector<uint8_t>& hay, const std::vector<uint8_t>& needle) {
    return !needle.empty() && std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

// True when any file under folder holds the marker bytes.
bool leaks(const fs::path& folder, const std::vector<uint8_t>& marker) {
    std::error_code ec;
    if (!fs::exists(folder, ec)) return false;
    for (auto& e : fs::recursive_directory_iterator(folder))
        if (e.is_regular_file() && contains(read_bytes(e.path()), marker)) return true;
    return false;
}

size_t file_count(const fs::path& folder) {
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(folder)) n += e.is_regular_file();
    return n;
}

// A 2x2 PNG with pixels no other test uses: its bytes are the marker of an outside image.
std::vector<uint8_t> secret_png() {
    const uint8_t rgb[12] = {13, 37, 251, 7, 99, 201, 3, 141, 59, 26, 53, 58};
    return encode_png(2, 2, rgb);
}

// A triangle glTF with its buffer named by buffer_uri and, when image_uri is set, a textured
// material naming that image.
std::vector<uint8_t> gltf_model(const std::string& buffer_uri, const std::string& image_uri = "") {
    GltfFixture f;
    const uint32_t positions = f.floats(secret_triangle, "VEC3");
    f.mesh_node({{"POSITION", positions}});
    if (!image_uri.empty()) {
        f.doc["images"] = nlohmann::json::array({{{"uri", image_uri}}});
        f.doc["textures"] = nlohmann::json::array({{{"source", 0}}});
        f.doc["materials"] = nlohmann::json::array({{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}});
        f.doc["meshes"][0]["primitives"][0]["material"] = 0;
    }
    return f.gltf(buffer_uri);
}

std::vector<uint8_t> gltf_bin() {
    GltfFixture f;
    f.floats(secret_triangle, "VEC3");
    return f.bin;
}

std::vector<uint8_t> secret_positions() {
    std::vector<uint8_t> b(12);
    std::memcpy(b.data(), secret_triangle.data(), 12);
    return b;
}

// A textured IQE quad whose material (its texture) is `texture`.
std::string quad_iqe(const std::string& texture) {
    return "# Inter-Quake Export\nmesh quad\nmaterial \"" + texture +
           "\"\nvp 0 0 0\nvt 0 1\nvp 1 0 0\nvt 1 1\nvp 1 1 0\nvt 1 0\nvp 0 1 0\nvt 0 0\nfm 0 2 1\nfm 0 3 2\n";
}

// Every test: dir/model (the model's folder), dir/out (outputs), secrets beside them in dir.
struct Confinement : ::testing::Test {
    fs::path dir = temp_dir();
    fs::path model = dir / "model";
    fs::path out = dir / "out";
    fs::path outside = dir / "outside";  // a Cal3D character outside the model's folder
    void SetUp() override {
        fs::create_directories(model);
        fs::create_directories(out);
        write_bytes(dir / "secret.bin", gltf_bin());
        write_bytes(dir / "secret.png", secret_png());
    }
    // char.cfg + char.xsf, char_sample.xmf, char_sample_texture.png.xrf, char_wave.xaf, char_pulse.xaf
    // (the built-in sample through the .cfg writer) in folder.
    void make_character(const fs::path& folder) {
        fs::create_directories(folder);
        auto s = run_cli({"sample", "-o", (folder / "sample.iqm").string()});
        ASSERT_EQ(s.exit_code, 0) << s.err;
        auto c = run_cli({"convert", (folder / "sample.iqm").string(), "-o", (folder / "char.cfg").string()});
        ASSERT_EQ(c.exit_code, 0) << c.err;
        fs::remove(folder / "sample.iqm");
        ASSERT_TRUE(fs::exists(folder / "char.xsf"));
        ASSERT_TRUE(fs::exists(folder / "char_sample_texture.png.xrf"));
    }
    // The character outside, its skeleton carrying the secret bone name.
    void make_outside_character() {
        make_character(outside);
        std::string xsf = text_of(outside / "char.xsf");
        const size_t at = xsf.find("NAME=\"tip\"");
        ASSERT_NE(at, std::string::npos);
        xsf.replace(at, 10, "NAME=\"" + secret_bone + "\"");
        write_text(outside / "char.xsf", xsf);
    }
    RunResult convert(const std::vector<std::string>& inputs, const fs::path& output, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args{"convert"};
        args.insert(args.end(), inputs.begin(), inputs.end());
        args.push_back("-o");
        args.push_back(output.string());
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args);
    }
    // A texture leading outside: never read, the model converts without it (exit 0) with a
    // warning naming `names`, and nothing of the secrets reaches the output.
    void expect_left_out(const RunResult& r, const std::vector<std::string>& names) {
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("Warning: "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("texture-not-found"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--allow-outside"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("Error: "), std::string::npos) << r.err;
        for (auto& n : names) EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not named: " << r.err;
        EXPECT_GT(file_count(out), 0u) << "the model was not written";
        EXPECT_FALSE(leaks(out, secret_png()));
        EXPECT_FALSE(leaks(out, bytes_of(secret_bone)));
    }
    // A refused run: exit 2, an error naming `names`, nothing written, nothing of the secrets out.
    void expect_refused(const RunResult& r, const std::vector<std::string>& names) {
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
        for (auto& n : names) EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not named: " << r.err;
        EXPECT_EQ(file_count(out), 0u) << "something was written";
        EXPECT_FALSE(leaks(out, secret_positions()));
        EXPECT_FALSE(leaks(out, secret_png()));
        EXPECT_FALSE(leaks(out, bytes_of(secret_bone)));
    }
};

// ---- glTF buffers ----------------------------------------------------------------------------

TEST_F(Confinement, GltfBufferUpAndOutIsRefusedAndAllowOutsideReadsIt) {
    fs::create_directories(model / "deep");
    for (const std::string uri : {"../../secret.bin", "%2E%2E/%2e%2E/secret.bin", "..%2F..%2Fsecret.bin"}) {
        SCOPED_TRACE(uri);
        write_bytes(model / "deep/model.gltf", gltf_model(uri));
        const std::string in = (model / "deep/model.gltf").string();
        expect_refused(convert({in}, out / "m.glb"), {"model.gltf", "/buffers/0/uri", "outside", "--allow-outside"});
        expect_refused(convert({in}, out / "m.iqm"), {"/buffers/0/uri"});
        EXPECT_EQ(run_cli({"info", in}).exit_code, 2);
        // validate of one file reports the refused part as a part.unreadable finding, exit 2 (the
        // file could not be checked; 5 is for findings about it).
        auto validated = run_cli({"validate", in});
        EXPECT_EQ(validated.exit_code, 2) << validated.out << validated.err;
        EXPECT_NE(validated.out.find("part.unreadable"), std::string::npos) << validated.out;
        EXPECT_NE(validated.out.find("outside"), std::string::npos) << validated.out;
        auto allowed = convert({in}, out / "m.glb", {"--allow-outside"});
        ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
        EXPECT_TRUE(leaks(out, secret_positions())) << "the marker search finds nothing: the test proves nothing";
        EXPECT_EQ(run_cli({"info", "--allow-outside", in}).exit_code, 0);
        EXPECT_EQ(run_cli({"validate", "--allow-outside", in}).exit_code, 0);
        fs::remove_all(out);
        fs::create_directories(out);
    }
}

TEST_F(Confinement, GltfBufferAbsoluteAndThroughSymlinksIsRefused) {
    // An absolute path, a symlinked file and a symlinked folder, all leading to dir/secret.bin.
    fs::create_symlink(dir / "secret.bin", model / "link.bin");
    fs::create_directory_symlink(dir, model / "up");
    for (const std::string& uri : {(dir / "secret.bin").string(), std::string("link.bin"), std::string("up/secret.bin")}) {
        SCOPED_TRACE(uri);
        write_bytes(model / "model.gltf", gltf_model(uri));
        expect_refused(convert({(model / "model.gltf").string()}, out / "m.glb"), {"/buffers/0/uri", "outside"});
    }
    // A symlink that stays inside the folder is followed.
    fs::create_directories(model / "data");
    write_bytes(model / "data/real.bin", gltf_bin());
    fs::create_symlink("data/real.bin", model / "inside.bin");
    write_bytes(model / "model.gltf", gltf_model("inside.bin"));
    auto r = convert({(model / "model.gltf").string()}, out / "m.glb");
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(Confinement, GltfMissingBufferNamesTheJsonPath) {
    write_bytes(model / "model.gltf", gltf_model("gone.bin"));
    auto r = convert({(model / "model.gltf").string()}, out / "m.glb");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("/buffers/0/uri"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gone.bin"), std::string::npos) << r.err;
    EXPECT_EQ(file_count(out), 0u);
    // --allow-missing does not make a model of a missing buffer: the geometry is in it.
    EXPECT_EQ(convert({(model / "model.gltf").string()}, out / "m.glb", {"--allow-missing"}).exit_code, 2);
    auto validated = run_cli({"validate", "--json", (model / "model.gltf").string()});
    EXPECT_EQ(validated.exit_code, 2) << validated.out << validated.err;
    EXPECT_NE(validated.out.find("\"part.missing\""), std::string::npos) << validated.out;
}

// ---- images ----------------------------------------------------------------------------------

TEST_F(Confinement, GltfImageOutsideIsLeftOutAndAllowOutsideEmbedsIt) {
    write_bytes(model / "model.bin", gltf_bin());
    for (const std::string& uri : std::vector<std::string>{"../secret.png", "%2E%2E/secret.png", (dir / "secret.png").string()}) {
        SCOPED_TRACE(uri);
        write_bytes(model / "model.gltf", gltf_model("model.bin", uri));
        const std::string in = (model / "model.gltf").string();
        expect_left_out(convert({in}, out / "m.glb"), {"secret.png", "outside"});
        expect_left_out(convert({in}, out / "m.gltf"), {"secret.png"});
        EXPECT_FALSE(nlohmann::json::parse(text_of(out / "m.gltf")).contains("images"));  // not even referenced
        auto none = convert({in}, out / "m.glb", {"--images", "none"});  // nothing looked up
        EXPECT_EQ(none.exit_code, 0) << none.err;
        EXPECT_FALSE(leaks(out, secret_png()));
        auto allowed = convert({in}, out / "m.glb", {"--allow-outside"});
        ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
        EXPECT_TRUE(leaks(out, secret_png()));
        fs::remove_all(out);
        fs::create_directories(out);
    }
}

TEST_F(Confinement, IqeMaterialOutsideIsLeftOut) {
    for (const std::string& texture : std::vector<std::string>{"../secret.png", "../secret", (dir / "secret.png").string()}) {
        SCOPED_TRACE(texture);
        write_text(model / "model.iqe", quad_iqe(texture));
        const std::string in = (model / "model.iqe").string();
        expect_left_out(convert({in}, out / "m.glb"), {texture, "outside"});
        expect_left_out(convert({in}, out / "m.gltf", {"--convert-images"}), {texture});
        auto allowed = convert({in}, out / "m.glb", {"--allow-outside"});
        ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
        EXPECT_TRUE(leaks(out, secret_png()));
        fs::remove_all(out);
        fs::create_directories(out);
    }
    // A texture behind a symlink leading out is refused too.
    fs::create_symlink(dir / "secret.png", model / "skin.png");
    write_text(model / "model.iqe", quad_iqe("skin.png"));
    expect_left_out(convert({(model / "model.iqe").string()}, out / "m.glb"), {"skin.png", "outside"});
}

TEST_F(Confinement, NonImageTextureIsNeitherEmbeddedNorReferenced) {
    write_text(model / "notes.txt", "RIGPORT_NOT_AN_IMAGE plain text");
    write_text(model / "model.iqe", quad_iqe("notes.txt"));
    auto r = convert({(model / "model.iqe").string()}, out / "m.gltf");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("not an image"), std::string::npos) << r.err;
    const auto json = nlohmann::json::parse(text_of(out / "m.gltf"));
    EXPECT_FALSE(json.contains("images")) << json.dump();  // the material keeps its name only
    EXPECT_FALSE(leaks(out, bytes_of("RIGPORT_NOT_AN_IMAGE")));
}

// An OBJ's .mtl is a side file that only adds materials: one outside the model's folder is never
// read, and the model converts without its materials, with a part-missing warning that says the
// same whether or not the file is there (docs/obj.md "Materials", docs/cli.md "Confinement").
TEST_F(Confinement, ObjMtlOutsideIsNotReadAndTheGeometryConverts) {
    write_text(dir / "secret.mtl", "newmtl skin\nKd 0.1 0.2 0.3\nmap_Kd RIGPORT_SECRET_TEXTURE.png\n");
    const std::string obj = "mtllib ../secret.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl skin\nf 1 2 3\n";
    write_text(model / "model.obj", obj);
    const std::string in = (model / "model.obj").string();
    auto r = convert({in}, out / "m.gltf");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("part-missing"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("outside"), std::string::npos) << r.err;
    EXPECT_FALSE(leaks(out, bytes_of("RIGPORT_SECRET_TEXTURE")));
    // Whether the outside file exists is not told.
    fs::remove(dir / "secret.mtl");
    auto missing = convert({in}, out / "m2.gltf");
    ASSERT_EQ(missing.exit_code, 0) << missing.err;
    std::string a = r.err, b = missing.err;
    for (std::string* t : {&a, &b})
        if (auto at = t->find("m2.gltf"); at != std::string::npos) t->replace(at, 7, "m.gltf");
    EXPECT_EQ(a, b);
    // --allow-outside reads it.
    write_text(dir / "secret.mtl", "newmtl skin\nKd 0.1 0.2 0.3\nmap_Kd RIGPORT_SECRET_TEXTURE.png\n");
    auto allowed = convert({in}, out / "m3.gltf", {"--allow-outside"});
    ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
    EXPECT_TRUE(leaks(out, bytes_of("RIGPORT_SECRET_TEXTURE")));
}

// ---- Cal3D .cfg members and .xrf maps --------------------------------------------------------

TEST_F(Confinement, CfgEntriesLeadingOutAreRefusedNamingTheLine) {
    make_outside_character();
    make_character(model);
    const std::string base = text_of(model / "char.cfg");
    struct Case {
        std::string name, cfg, line;
    };
    const std::vector<Case> cases = {
        {"dotdot", "skeleton=../outside/char.xsf\nmesh=char_sample.xmf\n", ":1:"},
        {"absolute", "mesh=char_sample.xmf\nskeleton=" + (outside / "char.xsf").string() + "\n", ":2:"},
        {"path=", "# a comment\npath=../outside\nskeleton=char.xsf\nmesh=char_sample.xmf\n", ":2:"},
        {"symlink", "skeleton=linked.xsf\nmesh=char_sample.xmf\n", ":1:"},
    };
    fs::create_symlink(outside / "char.xsf", model / "linked.xsf");
    for (auto& c : cases) {
        SCOPED_TRACE(c.name);
        write_text(model / "evil.cfg", c.cfg);
        const std::string cfg = (model / "evil.cfg").string();
        expect_refused(convert({cfg}, out / "m.iqm"), {"evil.cfg" + c.line, "outside"});
        EXPECT_EQ(run_cli({"info", cfg}).exit_code, 2);
        EXPECT_EQ(run_cli({"validate", cfg}).exit_code, 2);
        auto allowed = convert({cfg}, out / "m.iqm", {"--allow-outside"});
        ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
        EXPECT_TRUE(leaks(out, bytes_of(secret_bone)));
        fs::remove_all(out);
        fs::create_directories(out);
    }
    // The untouched character still converts.
    EXPECT_EQ(convert({(model / "char.cfg").string()}, out / "m.iqm").exit_code, 0);
    (void)base;
}

TEST_F(Confinement, XrfMapOutsideThroughACfgIsLeftOut) {
    make_character(model);
    std::string xrf = text_of(model / "char_sample_texture.png.xrf");
    const size_t at = xrf.find(">sample_texture.png<");
    ASSERT_NE(at, std::string::npos) << xrf;
    xrf.replace(at, std::string(">sample_texture.png<").size(), ">../secret.png<");
    write_text(model / "char_sample_texture.png.xrf", xrf);
    const std::string cfg = (model / "char.cfg").string();
    expect_left_out(convert({cfg}, out / "m.glb"), {"../secret.png", "outside"});
    auto allowed = convert({cfg}, out / "m.glb", {"--allow-outside"});
    ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
    EXPECT_TRUE(leaks(out, secret_png()));
}

// ---- missing parts ---------------------------------------------------------------------------

TEST_F(Confinement, CfgMissingPartsAreErrorsNamingFileAndLine) {
    make_character(model);
    struct Case {
        std::string name, from, to, line;
    };
    const std::vector<Case> cases = {
        {"misspelt animation", "animation=char_wave.xaf", "animation=char_wavee.xaf", ":3:"},
        {"only mesh", "mesh=char_sample.xmf", "mesh=char_sampel.xmf", ":5:"},
        {"skeleton", "skeleton=char.xsf", "skeleton=char.xsff", ":2:"},
    };
    const std::string good = text_of(model / "char.cfg");
    for (auto& c : cases) {
        SCOPED_TRACE(c.name);
        std::string cfg_text = good;
        const size_t at = cfg_text.find(c.from);
        ASSERT_NE(at, std::string::npos) << cfg_text;
        cfg_text.replace(at, c.from.size(), c.to);
        write_text(model / "bad.cfg", cfg_text);
        const std::string cfg = (model / "bad.cfg").string();
        const std::string missing = c.to.substr(c.to.find('=') + 1);
        for (const char* ext : {"m.iqm", "m.glb", "m.cfg"}) {
            auto r = convert({cfg}, out / ext);
            EXPECT_EQ(r.exit_code, 2) << r.err;
            EXPECT_NE(r.err.find("bad.cfg" + c.line), std::string::npos) << r.err;
            EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
            EXPECT_NE(r.err.find("--allow-missing"), std::string::npos) << r.err;
            EXPECT_EQ(file_count(out), 0u) << ext;
        }
        EXPECT_EQ(run_cli({"info", cfg}).exit_code, 2);
        EXPECT_EQ(run_cli({"validate", cfg}).exit_code, 2);
        auto allowed = convert({cfg}, out / "m.iqm", {"--allow-missing"});
        if (c.name == "skeleton") {
            // The mesh is skinned: left without its skeleton it cannot be written; the error says
            // which bones it needs, that a .csf/.xsf holds them, and which file was missing.
            EXPECT_EQ(allowed.exit_code, 2) << allowed.err;
            EXPECT_NE(allowed.err.find("char_sample.xmf"), std::string::npos) << allowed.err;
            EXPECT_NE(allowed.err.find("bones 0, 1"), std::string::npos) << allowed.err;
            EXPECT_NE(allowed.err.find(".csf or .xsf"), std::string::npos) << allowed.err;
            EXPECT_NE(allowed.err.find(missing), std::string::npos) << allowed.err;
            EXPECT_EQ(file_count(out), 0u);
        } else {
            EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
            // "Warning: PATH/bad.cfg: part-missing: line N: ...": the warning names the file and the line.
            EXPECT_NE(allowed.err.find("bad.cfg: part-missing: line " + c.line.substr(1, c.line.size() - 2) + ":"), std::string::npos) << allowed.err;
            EXPECT_TRUE(fs::exists(out / "m.iqm"));
            EXPECT_EQ(run_cli({"info", "--allow-missing", cfg}).exit_code, 0);
        }
        fs::remove_all(out);
        fs::create_directories(out);
    }
}

TEST_F(Confinement, SkinnedMeshWithoutSkeletonNamesWhatItNeeds) {
    make_character(model);
    auto r = convert({(model / "char_sample.xmf").string(), (model / "char_wave.xaf").string()}, out / "m.iqm");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("char_sample.xmf"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(".csf or .xsf"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bones 0, 1"), std::string::npos) << r.err;
    EXPECT_EQ(file_count(out), 0u);
}

// ---- only regular files ----------------------------------------------------------------------

// Runs the CLI; when it has not finished after 20 s (blocked opening the FIFO for reading), a
// writer opens the FIFO so it returns, and the test fails.
RunResult run_guarded(const std::vector<std::string>& args, const fs::path& fifo) {
    auto job = std::async(std::launch::async, [args] { return run_cli(args); });
    if (job.wait_for(std::chrono::seconds(20)) == std::future_status::timeout) {
        ADD_FAILURE() << "rigport hung on the FIFO " << fifo;
        for (int i = 0; i < 100 && job.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout; ++i) {
            int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) ::close(fd);
        }
    }
    return job.get();
}

TEST_F(Confinement, FifosAreRefusedNotOpened) {
    const fs::path fifo = model / "pipe.iqm";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    // As the input.
    for (const char* verb : {"info", "validate"}) {
        auto r = run_guarded({verb, fifo.string()}, fifo);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
    }
    auto c = run_guarded({"convert", fifo.string(), "-o", (out / "m.iqm").string()}, fifo);
    EXPECT_EQ(c.exit_code, 2) << c.err;
    // Named by a .cfg.
    const fs::path member = model / "pipe.xmf";
    ASSERT_EQ(::mkfifo(member.c_str(), 0600), 0);
    write_text(model / "pipe.cfg", "mesh=pipe.xmf\n");
    auto cfg = run_guarded({"convert", (model / "pipe.cfg").string(), "-o", (out / "m.iqm").string(), "--allow-missing"}, member);
    EXPECT_EQ(cfg.exit_code, 2) << cfg.err;
    EXPECT_NE(cfg.err.find("not a regular file"), std::string::npos) << cfg.err;
    // Named by a glTF buffer.
    const fs::path buffer = model / "pipe.bin";
    ASSERT_EQ(::mkfifo(buffer.c_str(), 0600), 0);
    write_bytes(model / "model.gltf", gltf_model("pipe.bin"));
    auto gltf = run_guarded({"convert", (model / "model.gltf").string(), "-o", (out / "m.glb").string()}, buffer);
    EXPECT_EQ(gltf.exit_code, 2) << gltf.err;
    EXPECT_NE(gltf.err.find("/buffers/0/uri"), std::string::npos) << gltf.err;
    EXPECT_EQ(file_count(out), 0u);
}

// ---- pack extract ----------------------------------------------------------------------------

TEST_F(Confinement, PackExtractThroughASymlinkedFolderWritesNothing) {
    fs::create_directories(dir / "src/sub/deeper");
    write_text(dir / "src/a.txt", "a");
    write_text(dir / "src/sub/deeper/b.txt", "b");
    ASSERT_EQ(run_cli({"pack", "create", (dir / "src").string(), "-o", (dir / "p.jpk").string()}).exit_code, 0);
    fs::create_directories(dir / "elsewhere");
    fs::create_directory_symlink(dir / "elsewhere", out / "sub");
    auto r = run_cli({"pack", "extract", (dir / "p.jpk").string(), "-o", out.string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("sub/deeper/b.txt"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "elsewhere/deeper")) << "a folder was created outside the output folder";
    EXPECT_FALSE(fs::exists(out / "a.txt")) << "a member was written before the refusal";
    // Into a fresh folder, a symlinked target file is refused the same way, before any write.
    fs::remove(out / "sub");
    fs::create_directories(out / "sub/deeper");
    fs::create_symlink(dir / "secret.bin", out / "sub/deeper/b.txt");
    auto link = run_cli({"pack", "extract", (dir / "p.jpk").string(), "-o", out.string()});
    EXPECT_EQ(link.exit_code, 3) << link.err;
    EXPECT_FALSE(fs::exists(out / "a.txt"));
    EXPECT_EQ(read_bytes(dir / "secret.bin"), gltf_bin());
    // Without the obstacles everything is extracted.
    fs::remove_all(out);
    auto ok = run_cli({"pack", "extract", (dir / "p.jpk").string(), "-o", out.string()});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(text_of(out / "sub/deeper/b.txt"), "b");
}

// ---- LoadOptions::root ------------------------------------------------------------------------

TEST_F(Confinement, LoadOptionsRootSetsTheFolder) {
    fs::create_directories(model / "deep");
    write_bytes(model / "model.bin", gltf_bin());
    write_bytes(model / "deep/model.gltf", gltf_model("../model.bin"));
    const std::string in = (model / "deep/model.gltf").string();
    auto confined = load(in);
    ASSERT_FALSE(confined);
    EXPECT_EQ(confined.error().code, ErrorCode::ReadFailed);
    EXPECT_NE(confined.error().to_string().find("/buffers/0/uri"), std::string::npos) << confined.error().to_string();
    LoadOptions wider;
    wider.root = model.string();
    auto read = load(in, wider);
    EXPECT_TRUE(read) << read.error().to_string();
    wider.root = (model / "deep").string();
    EXPECT_FALSE(load(in, wider));
    LoadOptions outside_ok;
    outside_ok.allow_outside = true;
    EXPECT_TRUE(load(in, outside_ok));
}

// ---- on_read ---------------------------------------------------------------------------------

TEST_F(Confinement, OnReadIsToldEveryFileALoadReads) {
    make_character(model);
    write_bytes(model / "model.bin", gltf_bin());
    write_bytes(model / "model.gltf", gltf_model("model.bin"));
    std::set<fs::path> seen;
    LoadOptions load;
    load.on_read = [&](const std::string& p) { seen.insert(fs::weakly_canonical(p)); };
    CompileOptions options;
    options.load = load;
    ASSERT_TRUE(compile({CompileInput{{(model / "model.gltf").string()}, {}}}, options));
    EXPECT_TRUE(seen.count(fs::weakly_canonical(model / "model.gltf")));
    EXPECT_TRUE(seen.count(fs::weakly_canonical(model / "model.bin")));
    seen.clear();
    auto character = compile({CompileInput{{(model / "char.cfg").string()}, {}}}, options);
    ASSERT_TRUE(character) << character.error().to_string();
    for (const char* name : {"char.cfg", "char.xsf", "char_sample.xmf", "char_sample_texture.png.xrf", "char_wave.xaf", "char_pulse.xaf"})
        EXPECT_TRUE(seen.count(fs::weakly_canonical(model / name))) << name;
    // Textures, through ImageOptions::on_read.
    seen.clear();
    ImageOptions images;
    images.search_dir = model.string();
    images.on_read = load.on_read;
    Warnings w;
    auto resolved = resolve_images(*character, (out / "m.glb").string(), images, w);
    ASSERT_TRUE(resolved) << resolved.error().to_string();
    EXPECT_TRUE(seen.count(fs::weakly_canonical(model / "sample_texture.png")));
}

}  // namespace
}  // namespace rigport::test

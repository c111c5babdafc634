// Build files that carry no commands and survive any legal file name (docs/cli.md "Build
// systems"), through the real rigport binary with real GNU Make and Ninja: `convert --depfile`
// read back by Make's `-include` and Ninja's deps = gcc, `batch --ninja` built twice, models whose
// side files (a .gltf's buffer and texture) and folders have hostile names; names that no escaping
// carries refused with nothing written; a canary that an injected command would create never
// appears. Also the comma rule for inputs, the Blender add-on's backend on such a path, and
// --report / --depfile / --ninja refused when they name an input or an output.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/gltf/gltf_fixture.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

bool have(const char* tool) { return std::system((std::string(tool) + " --version >/dev/null 2>&1").c_str()) == 0; }
#define REQUIRE_TOOL(tool) \
    if (!have(tool)) GTEST_SKIP() << tool << " not found: install it (scripts/setup.sh) for this test"

std::string text_of(const fs::path& p) {
    const auto bytes = read_bytes(p);
    return {bytes.begin(), bytes.end()};
}

// A URI naming a file of exactly these bytes (glTF readers percent-decode, glTF 2.0 §2.8). A name
// with ':' starts with "./" (rigport reads "c:..." as a URI scheme, as RFC 3986 has it for the raw
// form; it decodes first, so "%3A" does not help).
std::string percent_encoded(const std::string& name) {
    std::string out = name.find(':') != std::string::npos ? "./" : "";
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += char(c);
        else out += fmt::format("%{:02X}", c);
    }
    return out;
}

// A textured triangle as a .gltf whose buffer and texture are the files bin and png beside it.
// The files read converting it to .glb: the .gltf, the buffer, the texture.
void write_model(const fs::path& gltf, const std::string& bin, const std::string& png) {
    fs::create_directories(gltf.parent_path());
    GltfFixture f;
    const uint32_t pos = f.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
    const uint32_t uv = f.floats({0, 0, 1, 0, 0, 1}, "VEC2");
    const uint32_t idx = f.indices({0, 1, 2});
    f.mesh_node({{"POSITION", pos}, {"TEXCOORD_0", uv}}, int(idx));
    f.doc["meshes"][0]["primitives"][0]["material"] = 0;
    f.push("materials", {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}});
    f.push("textures", {{"source", 0}});
    f.push("images", {{"uri", percent_encoded(png)}});
    const std::vector<uint8_t> buffer = f.bin;
    write_bytes(gltf, f.gltf(percent_encoded(bin)));
    write_bytes(gltf.parent_path() / bin, buffer);
    const uint8_t rgb[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
    write_bytes(gltf.parent_path() / png, encode_png(2, 2, rgb));
}

// Every file below dir whose name starts with "PWNED": what a command injected by a file name
// (`touch${IFS}PWNED`, `$(touch PWNED_dollar)`) would leave. No fixture file is named so.
std::vector<std::string> canaries(const fs::path& dir) {
    std::vector<std::string> found;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().rfind("PWNED", 0) == 0) found.push_back(e.path().string());
    return found;
}

// `ninja -t deps` of the build in dir: each output's recorded dependencies, as Ninja holds them.
std::map<std::string, std::set<std::string>> ninja_deps(const fs::path& dir, const fs::path& build) {
    auto r = run_program("ninja", {"-C", dir.string(), "-f", build.string(), "-t", "deps"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::set<std::string>> deps;
    std::string current;
    size_t at = 0;
    while (at < r.out.size()) {
        size_t end = r.out.find('\n', at);
        if (end == std::string::npos) end = r.out.size();
        const std::string line = r.out.substr(at, end - at);
        at = end + 1;
        if (line.rfind("    ", 0) == 0) deps[current].insert(line.substr(4));
        else if (const size_t mark = line.rfind(": #deps "); mark != std::string::npos) current = line.substr(0, mark);
    }
    return deps;
}

// The hostile names: each is the stem of a model's buffer (.bin) and texture (.png).
struct Hostile {
    std::string label, name;
    bool in_depfile;           // Make and Ninja both read it back from a depfile
    bool texture_read = true;  // a texture URI's '\\' is a folder separator (src/io/images.cpp): not read
    // The files converting the model reads: the .gltf, the buffer, the texture.
    std::vector<fs::path> read(const fs::path& gltf, const std::string& stem) const {
        std::vector<fs::path> files{gltf, gltf.parent_path() / (stem + ".bin")};
        if (texture_read) files.push_back(gltf.parent_path() / (stem + ".png"));
        return files;
    }
};
const std::vector<Hostile>& hostile_names() {
    static const std::vector<Hostile> names = {
        {"pipe", "a|b;touch${IFS}PWNED_pipe", false},
        {"comma", "My Models, 2024", true},
        {"space", "two  spaces", true},
        {"hash", "a#b", true},
        {"dollar", "a$b$(touch PWNED_dollar)x", true},
        {"shell", "a&'; *<\"b`touch PWNED_shell`", false},
        {"colon", "c:d::e", true},
        {"backslash", "a\\b\\\\ c\\", true, false},  // ends with ".bin"/".png" after it, so no trailing backslash
        {"equals", "k=v", false},
        {"brackets", "tex [HD]", false},
    };
    return names;
}

// ---- convert --depfile with GNU Make ------------------------------------------------------------

// The documented use: a Makefile rule running rigport with --depfile, and `-include X.d`. Make
// builds, then finds the output up to date (every name in the depfile is a file it found), then
// out of date once the texture or the buffer is newer: it tracks them under their own names.
TEST(BuildFiles, DepfileReadBackByMake) {
    REQUIRE_TOOL("make");
    const fs::path root = files_dir();
    for (auto& h : hostile_names()) {
        SCOPED_TRACE(h.label);
        const fs::path dir = root / h.label;
        write_model(dir / "m.gltf", h.name + ".bin", h.name + ".png");
        std::ofstream(dir / "Makefile") << "m.glb: m.gltf\n\t'" << RIGPORT_CLI_PATH << "' convert m.gltf -o m.glb --depfile m.glb.d -q\n"
                                        << "-include m.glb.d\n";
        auto make = [&](std::vector<std::string> args) {
            args.insert(args.begin(), {"-C", dir.string()});
            return run_program("make", args);
        };
        auto first = make({});
        if (!h.in_depfile) {
            // Refused: the error names the file; neither the model nor the depfile is written.
            EXPECT_NE(first.exit_code, 0) << first.out;
            EXPECT_NE(first.err.find("cannot list"), std::string::npos) << first.err;
            EXPECT_NE(first.err.find(h.name.substr(0, 3)), std::string::npos) << first.err;
            EXPECT_FALSE(fs::exists(dir / "m.glb"));
            EXPECT_FALSE(fs::exists(dir / "m.glb.d"));
            EXPECT_TRUE(canaries(dir).empty());
            continue;
        }
        ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
        ASSERT_TRUE(fs::exists(dir / "m.glb.d"));
        EXPECT_EQ(make({"-q"}).exit_code, 0) << text_of(dir / "m.glb.d") << make({"-q"}).err;
        for (const fs::path& side : h.read(dir / "m.gltf", h.name)) {
            fs::last_write_time(side, fs::file_time_type::clock::now() + std::chrono::seconds(30));
            EXPECT_EQ(make({"-q"}).exit_code, 1) << side << " newer: Make must see m.glb out of date\n" << text_of(dir / "m.glb.d");
            fs::last_write_time(side, fs::file_time_type::clock::now() - std::chrono::seconds(60));
            EXPECT_EQ(make({"-q"}).exit_code, 0);
        }
        EXPECT_EQ(make({"-q"}).exit_code, 0);
        EXPECT_TRUE(canaries(dir).empty()) << canaries(dir).front();
    }
}

// The finding this was written for: a texture named so that a raw depfile holds the line
// "m.glb:;touch$${IFS}PWNED". It is refused, nothing is written, and Make runs no such recipe.
TEST(BuildFiles, DepfileLineBreakRefusedWithNothingWritten) {
    REQUIRE_TOOL("make");
    const fs::path root = files_dir();
    for (const std::string& name : {std::string("m.gltf\nm.glb:;touch${IFS}PWNED\nz:"), std::string("cr\rm.glb:;touch${IFS}PWNED")}) {
        const fs::path dir = root / (name[0] == 'm' ? "lf" : "cr");
        write_model(dir / "m.gltf", "buffer.bin", name + ".png");
        std::ofstream(dir / "Makefile") << "m.glb: m.gltf\n\t'" << RIGPORT_CLI_PATH << "' convert m.gltf -o m.glb --depfile m.glb.d -q\n"
                                        << "-include m.glb.d\n";
        auto r = run_cli({"convert", (dir / "m.gltf").string(), "-o", (dir / "m.glb").string(), "--depfile", (dir / "m.glb.d").string()});
        EXPECT_EQ(r.exit_code, 4) << r.err;
        EXPECT_NE(r.err.find("cannot list"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("touch${IFS}PWNED"), std::string::npos) << r.err;  // the file is named ...
        EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;                // ... with its line break shown escaped
        EXPECT_EQ(r.err.find("\nm.glb"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / "m.glb"));
        EXPECT_FALSE(fs::exists(dir / "m.glb.d"));
        for (int run = 0; run < 2; ++run) {
            auto make = run_program("make", {"-C", dir.string()});
            EXPECT_NE(make.exit_code, 0);
            fs::last_write_time(dir / "m.gltf", fs::file_time_type::clock::now() + std::chrono::seconds(30));
        }
        EXPECT_TRUE(canaries(dir).empty());
        EXPECT_FALSE(fs::exists(dir / "m.glb.d"));
        // --ninja-deps refuses it too, with nothing written.
        auto n = run_cli({"convert", (dir / "m.gltf").string(), "-o", (dir / "m.glb").string(), "--ninja-deps"});
        EXPECT_EQ(n.exit_code, 4) << n.err;
        EXPECT_TRUE(n.out.empty()) << n.out;
        EXPECT_FALSE(fs::exists(dir / "m.glb"));
    }
}

// The same depfiles as Ninja's deps = gcc reads them: built, then nothing to do, and `ninja -t
// deps` holds exactly the three files read.
TEST(BuildFiles, DepfileReadBackByNinja) {
    REQUIRE_TOOL("ninja");
    const fs::path root = files_dir();
    for (auto& h : hostile_names()) {
        if (!h.in_depfile) continue;
        SCOPED_TRACE(h.label);
        const fs::path dir = root / h.label;
        write_model(dir / "m.gltf", h.name + ".bin", h.name + ".png");
        std::ofstream(dir / "build.ninja") << "rule convert\n  command = '" << RIGPORT_CLI_PATH
                                           << "' convert $in -o $out --depfile $out.d -q\n  depfile = $out.d\n  deps = gcc\n"
                                           << "build m.glb: convert m.gltf\n";
        auto ninja = [&](std::vector<std::string> extra = {}) {
            std::vector<std::string> args{"-C", dir.string()};
            args.insert(args.end(), extra.begin(), extra.end());
            return run_program("ninja", args);
        };
        auto first = ninja();
        ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
        const auto second = ninja({"-d", "explain"});
        EXPECT_NE(second.out.find("no work to do"), std::string::npos) << second.out << second.err;
        // Recorded as rigport lists them (the buffer by its full path): the same files.
        auto deps = ninja_deps(dir, dir / "build.ninja");
        std::set<std::string> recorded, read;
        for (auto& d : deps["m.glb"]) recorded.insert((dir / d).lexically_normal().string());
        for (auto& f : h.read(dir / "m.gltf", h.name)) read.insert(f.string());
        EXPECT_EQ(recorded, read);
        EXPECT_TRUE(canaries(dir).empty());
    }
}

// ---- batch --ninja -------------------------------------------------------------------------------

// Every hostile name at once: as the side files of a model, and as the folder the model and its
// output are in (a build line, a shell command). Ninja converts them all, has nothing to do on
// the second run, records exactly the files each model read, and rebuilds one model when its
// texture changes. No name runs anything.
TEST(BuildFiles, NinjaBatchWithHostileNames) {
    REQUIRE_TOOL("ninja");
    const fs::path dir = files_dir();
    std::map<fs::path, std::set<std::string>> expected;  // output -> files read
    for (auto& h : hostile_names()) {
        for (bool as_folder : {false, true}) {
            const fs::path model = as_folder ? dir / "in" / (h.name + " dir") / "m.gltf" : dir / "in" / h.label / "m.gltf";
            const std::string stem = as_folder ? "side" : h.name;
            write_model(model, stem + ".bin", stem + ".png");
            const fs::path out = dir / "out" / model.parent_path().filename() / "m.glb";
            for (auto& f : (as_folder ? Hostile{} : h).read(model, stem)) expected[out].insert(f.string());
        }
    }
    // A folder whose path Ninja's deps = msvc would drop: that model's edge uses a depfile.
    write_model(dir / "in" / "Program Files" / "m.gltf", "b.bin", "t.png");
    expected[dir / "out" / "Program Files" / "m.glb"] = {(dir / "in/Program Files/m.gltf").string(), (dir / "in/Program Files/b.bin").string(),
                                                          (dir / "in/Program Files/t.png").string()};

    const fs::path build = dir / "build.ninja";
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--ninja", build.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string file = text_of(build);
    EXPECT_NE(file.find("rigport_pipe = |"), std::string::npos);
    EXPECT_NE(file.find(": convert_depfile "), std::string::npos) << "the Program Files model uses a depfile";
    // Asked for directly, --ninja-deps refuses such a path rather than have Ninja not record it.
    auto dropped = run_cli({"convert", (dir / "in/Program Files/m.gltf").string(), "-o", (dir / "pf.glb").string(), "--ninja-deps"});
    EXPECT_EQ(dropped.exit_code, 4) << dropped.err;
    EXPECT_NE(dropped.err.find("'program files'"), std::string::npos) << dropped.err;
    EXPECT_TRUE(dropped.out.empty()) << dropped.out;
    EXPECT_FALSE(fs::exists(dir / "pf.glb"));

    auto ninja = [&](std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"-C", dir.string(), "-f", build.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_program("ninja", args);
    };
    auto first = ninja({"-k", "0"});
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    for (auto& [out, files] : expected) EXPECT_TRUE(fs::exists(out)) << out;
    auto second = ninja({"-d", "explain"});
    EXPECT_NE(second.out.find("no work to do"), std::string::npos) << second.out << second.err;

    const auto deps = ninja_deps(dir, build);
    for (auto& [out, files] : expected) {
        SCOPED_TRACE(out.string());
        ASSERT_TRUE(deps.count(out.string()));
        EXPECT_EQ(deps.at(out.string()), files);
    }
    EXPECT_TRUE(canaries(dir).empty()) << canaries(dir).front();

    // One texture newer: that model alone is converted again.
    const Hostile& shell = hostile_names()[5];
    fs::last_write_time(dir / "in" / shell.label / (shell.name + ".png"), fs::file_time_type::clock::now() + std::chrono::seconds(30));
    auto third = ninja();
    ASSERT_EQ(third.exit_code, 0) << third.out << third.err;
    EXPECT_NE(third.out.find("[1/1]"), std::string::npos) << third.out;
    EXPECT_TRUE(canaries(dir).empty());
}

// A side file with a line break: the model's edge fails naming it and writes nothing; the other
// models build; no command runs from the name.
TEST(BuildFiles, NinjaBatchLineBreakRefused) {
    REQUIRE_TOOL("ninja");
    const fs::path dir = files_dir();
    write_model(dir / "in/bad/m.gltf", "b.bin", "m.gltf\nbuild x: phony\nrule y\n  command = touch PWNED\n.png");
    write_model(dir / "in/good/m.gltf", "b.bin", "t.png");
    const fs::path build = dir / "build.ninja";
    ASSERT_EQ(run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--ninja", build.string()}).exit_code, 0);
    auto r = run_program("ninja", {"-C", dir.string(), "-f", build.string(), "-k", "0"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.out.find("cannot list"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "out/bad/m.glb"));
    EXPECT_TRUE(fs::exists(dir / "out/good/m.glb"));
    EXPECT_TRUE(canaries(dir).empty());

    // A model whose own path has a line break cannot go into the build file: refused, none written.
    write_model(dir / "in2/a\nb/m.gltf", "b.bin", "t.png");
    auto refused = run_cli({"batch", (dir / "in2").string(), "-o", (dir / "out2").string(), "--format", "glb", "--ninja", (dir / "two.ninja").string()});
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("line break"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(dir / "two.ninja"));
}

// ---- the comma rule ------------------------------------------------------------------------------

std::string iqe_quad(float x) {
    return fmt::format("# Inter-Quake Export\nmesh quad\nvp {0} 0 0\nvp {1} 0 0\nvp {1} 1 0\nvp {0} 1 0\nfm 0 2 1\nfm 0 3 2\n", x, x + 1);
}
uint64_t triangles_of(const RunResult& r) {
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_object() && j.contains("counts") && j["counts"].is_object() ? j["counts"]["triangles"].get<uint64_t>() : 0;
}

// A word that names an existing file is that file, commas and all; a comma-joined list of files
// (no file has the whole name) still merges them.
TEST(BuildFiles, CommaInAnExistingFileNameIsOneFile) {
    const fs::path dir = files_dir();
    fs::create_directories(dir / "My Models, 2024");
    std::ofstream(dir / "My Models, 2024/char.iqe") << iqe_quad(0);
    auto one = run_cli({"convert", (dir / "My Models, 2024/char.iqe").string(), "-o", (dir / "char.glb").string(), "--json"});
    ASSERT_EQ(one.exit_code, 0) << one.err << one.out;
    EXPECT_EQ(triangles_of(one), 2u);

    std::ofstream(dir / "a.iqe") << iqe_quad(0);
    std::ofstream(dir / "b.iqe") << iqe_quad(5);
    const std::string joined = (dir / "a.iqe").string() + "," + (dir / "b.iqe").string();
    auto merged = run_cli({"convert", joined, "-o", (dir / "ab.iqm").string(), "--json"});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(triangles_of(merged), 4u) << "a.iqe,b.iqe merges the two";
    // Once a file has that very name (a folder "a.iqe," holding the rest of the path), the word is that file.
    fs::create_directories(fs::path(joined).parent_path());
    std::ofstream(joined) << "# Inter-Quake Export\nmesh tri\nvp 0 0 0\nvp 1 0 0\nvp 1 1 0\nfm 0 2 1\n";
    auto literal = run_cli({"convert", joined, "-o", (dir / "literal.iqm").string(), "--json"});
    ASSERT_EQ(literal.exit_code, 0) << literal.err;
    EXPECT_EQ(triangles_of(literal), 1u);
}

// The Blender add-on's backend (blender/rigport_io/backend.py, which needs no bpy) passes each
// path as an argument of its own to the rigport binary: a model in "My Models, 2024" converts.
TEST(BuildFiles, BlenderBackendConvertsAPathWithAComma) {
    REQUIRE_TOOL("python3");
    const fs::path dir = files_dir();
    fs::create_directories(dir / "My Models, 2024");
    std::ofstream(dir / "My Models, 2024/char.iqe") << iqe_quad(0);
    const fs::path script = dir / "run.py";
    std::ofstream(script) << "import importlib.util, sys\n"
                             "spec = importlib.util.spec_from_file_location('backend', sys.argv[1])\n"
                             "backend = importlib.util.module_from_spec(spec)\n"
                             "spec.loader.exec_module(backend)\n"
                             "print(backend.convert([sys.argv[2]], sys.argv[3], pref_path=sys.argv[4]))\n";
    auto r = run_program("python3", {script.string(), RIGPORT_SOURCE_DIR "/blender/rigport_io/backend.py", (dir / "My Models, 2024/char.iqe").string(),
                                     (dir / "char.glb").string(), RIGPORT_CLI_PATH});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(fs::exists(dir / "char.glb"));
}

// ---- build files naming an input or an output ------------------------------------------------

TEST(BuildFiles, DepfileNamingAnInputOrAnOutputIsRefused) {
    const fs::path dir = files_dir();
    write_model(dir / "m.gltf", "b.bin", "t.png");
    const auto model = read_bytes(dir / "m.gltf");
    struct Case {
        std::string output, depfile, named;
    };
    for (const Case& c : {Case{"out.glb", "out.glb", "the output"}, Case{"out.glb", "m.gltf", "the input"},
                          Case{"out.gltf", "out.bin", "written beside the output"}}) {
        SCOPED_TRACE(c.depfile);
        auto r = run_cli({"convert", (dir / "m.gltf").string(), "-o", (dir / c.output).string(), "--depfile", (dir / c.depfile).string()});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("--depfile '" + (dir / c.depfile).string() + "'"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / c.output));
        EXPECT_EQ(read_bytes(dir / "m.gltf"), model);
    }
    // A texture the model reads: refused as an input, nothing written.
    auto tex = read_bytes(dir / "t.png");
    auto r = run_cli({"convert", (dir / "m.gltf").string(), "-o", (dir / "out.glb").string(), "--depfile", (dir / "t.png").string()});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(read_bytes(dir / "t.png"), tex);
    EXPECT_FALSE(fs::exists(dir / "out.glb"));
}

TEST(BuildFiles, ReportOrNinjaNamingAnInputOrAnOutputIsRefused) {
    const fs::path dir = files_dir();
    write_model(dir / "rep/a.gltf", "b.bin", "t.png");
    const auto input = read_bytes(dir / "rep/a.gltf");
    const std::string out = (dir / "out").string();
    struct Case {
        std::vector<std::string> options;
        std::string message;
    };
    const std::string a_glb = (dir / "out/a.glb").string(), a_gltf = (dir / "rep/a.gltf").string(), same = (dir / "same").string();
    for (const Case& c : {Case{{"--report", a_glb}, "--report '" + a_glb + "' is the same file as the output '" + a_glb + "'"},
                          Case{{"--report", a_gltf}, "--report '" + a_gltf + "'"},
                          Case{{"--ninja", a_glb}, "--ninja '" + a_glb + "' is the same file as the output"},
                          Case{{"--ninja", a_glb + ".d"}, "the depfile"},
                          Case{{"--ninja", a_gltf}, "--ninja '" + a_gltf + "'"},
                          Case{{"--report", same, "--ninja", same}, "--report '" + same + "' and --ninja '" + same + "' are the same file"}}) {
        SCOPED_TRACE(c.message);
        std::vector<std::string> args{"batch", (dir / "rep").string(), "-o", out, "--format", "glb"};
        args.insert(args.end(), c.options.begin(), c.options.end());
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(a_glb));
        EXPECT_FALSE(fs::exists(same));
        EXPECT_EQ(read_bytes(dir / "rep/a.gltf"), input);
    }
}

}  // namespace
}  // namespace rigport::test

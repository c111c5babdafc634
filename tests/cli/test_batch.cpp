// `rigport batch` through the real binary (folders mirrored, .cfg characters as one model, failures,
// parallel determinism, --report, -q, inputs untouched, usage errors), and the diagnostics of docs/cli.md:
// --json failure objects, -q on convert, an output extension contradicting --format.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The built-in sample saved by the library (no texture beside it, so glTF outputs warn
// texture-not-found: a warning to silence).
fs::path save_sample(const fs::path& path) {
    fs::create_directories(path.parent_path());
    auto st = save(make_sample_scene(), path.string());
    EXPECT_TRUE(st) << st.error().to_string();
    return path;
}

// A Cal3D character: char.cfg with its skeleton, mesh, material and animation beside it. The
// sample's "pulse" (a scale-only animation) has no Cal3D form, so only "wave" goes in.
fs::path save_character(const fs::path& cfg) {
    fs::create_directories(cfg.parent_path());
    Scene scene = make_sample_scene();
    scene.animations.resize(1);
    auto st = save(scene, cfg.string());
    EXPECT_TRUE(st) << st.error().to_string();
    return cfg;
}

fs::path save_truncated(const fs::path& path) {
    fs::path tmp = save_sample(path.parent_path() / ("whole_" + path.filename().string()));
    auto bytes = read_bytes(tmp);
    fs::remove(tmp);
    bytes.resize(200);
    write_bytes(path, bytes);
    return path;
}

// Every regular file below dir, as sorted relative paths.
std::vector<std::string> files_below(const fs::path& dir) {
    std::vector<std::string> out;
    if (!fs::exists(dir)) return out;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

// Every file below dir with its bytes.
std::map<std::string, std::vector<uint8_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::vector<uint8_t>> out;
    for (auto& f : files_below(dir)) out[f] = read_bytes(dir / f);
    return out;
}

const std::regex summary_line(R"((^|\n)(\d+) converted, (\d+) failed, (\d+) warnings in [0-9.]+ s\n$)");

TEST(Batch, MirrorsANestedTree) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    save_sample(dir / "in" / "sub" / "b.iqe");
    save_sample(dir / "in" / "sub" / "deeper" / "c.joe");
    write_bytes(dir / "in" / "notes.txt", {'h', 'i'});   // no format reads .txt: not a model
    write_bytes(dir / "in" / "sub" / "p.jpk", {0, 0});  // packs are not expanded
    fs::create_directory_symlink(dir / "in" / "sub", dir / "in" / "linked");  // not followed
    save_sample(dir / "loose" / "d.iqm");                 // a file given directly: OUT_DIR/<stem>.glb
    auto r = run_cli({"batch", (dir / "in").string(), (dir / "loose" / "d.iqm").string(), "-o", (dir / "out").string(), "--format", "glb"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(files_below(dir / "out"), (std::vector<std::string>{"a.glb", "d.glb", "sub/b.glb", "sub/deeper/c.glb"}));
    EXPECT_NE(r.err.find("skipped " + (dir / "in" / "sub" / "p.jpk").string()), std::string::npos) << r.err;
    // Not a terminal: one line per model.
    EXPECT_NE(r.err.find("ok " + (dir / "in" / "sub" / "b.iqe").string() + " -> " + (dir / "out" / "sub" / "b.glb").string() + "\n"),
              std::string::npos)
        << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, summary_line)) << r.err;
    EXPECT_EQ(m[2], "4");
    EXPECT_EQ(m[3], "0");
    // The glb is what convert writes for the same model.
    auto c = run_cli({"convert", (dir / "in" / "a.iqm").string(), "-o", (dir / "single.glb").string(), "--format", "glb"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(read_bytes(dir / "single.glb"), read_bytes(dir / "out" / "a.glb"));
}

TEST(Batch, CfgWithItsMembersIsOneModel) {
    const fs::path dir = temp_dir();
    save_character(dir / "in" / "char" / "char.cfg");
    const auto members = files_below(dir / "in" / "char");  // the .cfg, a skeleton, mesh, material, animation
    ASSERT_EQ(members.size(), 5u);
    save_sample(dir / "in" / "char" / "lone.xsf");  // a Cal3D part no .cfg names: a model of its own
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "iqm", "--report",
                      (dir / "report.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(files_below(dir / "out"), (std::vector<std::string>{"char/char.iqm", "char/lone.iqm"}));
    json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(report.size(), 2u);
    EXPECT_EQ(report[0]["input"], (dir / "in" / "char" / "char.cfg").string());
    EXPECT_EQ(report[0]["status"], "converted");
    // The record lists the .cfg and every member read.
    EXPECT_EQ(report[0]["inputs"].size(), members.size()) << report[0]["inputs"].dump();
    EXPECT_EQ(report[0]["counts"]["animations"], 1);
    EXPECT_EQ(report[0]["counts"]["joints"], 4);
    EXPECT_EQ(report[1]["input"], (dir / "in" / "char" / "lone.xsf").string());
}

TEST(Batch, CorruptFileAmongGoodOnes) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    const fs::path bad = save_truncated(dir / "in" / "b.iqm");
    save_sample(dir / "in" / "c.iqe");
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "iqm", "-j", "2", "--report",
                      (dir / "report.json").string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(files_below(dir / "out"), (std::vector<std::string>{"a.iqm", "c.iqm"}));
    EXPECT_NE(r.err.find("FAILED " + bad.string() + ": offset "), std::string::npos) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, summary_line)) << r.err;
    EXPECT_EQ(m[2], "2");
    EXPECT_EQ(m[3], "1");
    json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(report.size(), 3u);
    const json& failed = report[1];
    EXPECT_EQ(failed["input"], bad.string());
    EXPECT_EQ(failed["status"], "failed");
    EXPECT_EQ(failed["outputs"], json::array());
    EXPECT_TRUE(failed["counts"].is_null());
    ASSERT_TRUE(failed["error"].is_object());
    EXPECT_EQ(failed["error"]["code"], "malformed");
    EXPECT_EQ(failed["error"]["path"], bad.string());
    EXPECT_TRUE(failed["error"]["offset"].is_number());
    EXPECT_FALSE(failed["error"].contains("line"));
    EXPECT_EQ(report[0]["status"], "converted");
    EXPECT_TRUE(report[0]["error"].is_null());
}

TEST(Batch, ModelsCommittedInGroupsLeaveTheirBytesAndNoTemporaries) {
    // More staged files than one commit takes (256), so the batch commits several groups of models
    // (one durability step each) and the rest at the end.
    const fs::path dir = temp_dir();
    const fs::path first = save_sample(dir / "in" / "m000.iqm");
    for (int i = 1; i < 300; ++i) fs::copy_file(first, dir / "in" / fmt::format("m{:03}.iqm", i));
    auto one = run_cli({"convert", first.string(), "-o", (dir / "one.iqe").string(), "-q"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto expected = read_bytes(dir / "one.iqe");
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "iqe", "-j", "2", "-q",
                      "--report", (dir / "report.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto files = files_below(dir / "out");
    ASSERT_EQ(files.size(), 300u);  // and no temporary among them
    for (auto& f : files) EXPECT_EQ(read_bytes(dir / "out" / f), expected) << f;
    const json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(report.size(), 300u);
    for (auto& rec : report) EXPECT_EQ(rec["status"], "converted");
}

TEST(Batch, OneAndTwoThreadsWriteTheSameBytes) {
    const fs::path dir = temp_dir();
    for (const char* name : {"a.iqm", "b.iqe", "c.joe", "x/d.iqm", "x/e.iqe", "x/y/f.iqm"}) save_sample(dir / "in" / name);
    save_character(dir / "in" / "char" / "char.cfg");
    auto one = run_cli({"batch", (dir / "in").string(), "-o", (dir / "one").string(), "--format", "gltf", "-j", "1", "-q"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto two = run_cli({"batch", (dir / "in").string(), "-o", (dir / "two").string(), "--format", "gltf", "-j", "2", "-q"});
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const auto a = snapshot(dir / "one"), b = snapshot(dir / "two");
    EXPECT_EQ(a.size(), 14u);  // 7 models, each a .gltf and its .bin
    EXPECT_TRUE(a == b);
}

TEST(Batch, ReportHasOneRecordPerModel) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    save_sample(dir / "in" / "sub" / "b.iqe");
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "gltf", "--report",
                      (dir / "report.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_TRUE(report.is_array());
    ASSERT_EQ(report.size(), 2u);
    const json& rec = report[1];
    EXPECT_EQ(rec["input"], (dir / "in" / "sub" / "b.iqe").string());
    EXPECT_EQ(rec["inputs"][0], (dir / "in" / "sub" / "b.iqe").string());
    EXPECT_EQ(rec["status"], "converted");
    EXPECT_EQ(rec["outputs"], json::array({(dir / "out" / "sub" / "b.gltf").string(), (dir / "out" / "sub" / "b.bin").string()}));
    EXPECT_EQ(rec["counts"], json({{"meshes", 1}, {"vertices", 255}, {"triangles", 416}, {"joints", 4}, {"animations", 2}}));
    ASSERT_FALSE(rec["warnings"].empty());  // the sample's texture is not beside it
    EXPECT_EQ(rec["warnings"][0]["code"], "texture-not-found");
    EXPECT_TRUE(rec["warnings"][0]["message"].is_string());
    EXPECT_TRUE(rec["warnings"][0].contains("path"));
    EXPECT_TRUE(rec["error"].is_null());
    EXPECT_TRUE(rec["seconds"].is_number_float());
    for (auto& out : rec["outputs"]) EXPECT_TRUE(fs::exists(out.get<std::string>())) << out;
}

TEST(Batch, QuietSilencesWarnings) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    save_truncated(dir / "in" / "b.iqm");
    auto loud = run_cli({"batch", (dir / "in").string(), "-o", (dir / "loud").string(), "--format", "glb"});
    EXPECT_EQ(loud.exit_code, 2);
    EXPECT_NE(loud.err.find("Warning: "), std::string::npos) << loud.err;
    auto quiet = run_cli({"batch", (dir / "in").string(), "-o", (dir / "quiet").string(), "--format", "glb", "-q"});
    EXPECT_EQ(quiet.exit_code, 2);
    EXPECT_EQ(quiet.err.find("Warning: "), std::string::npos) << quiet.err;
    EXPECT_NE(quiet.err.find("FAILED "), std::string::npos) << quiet.err;  // errors still print
    std::smatch m;
    ASSERT_TRUE(std::regex_search(quiet.err, m, summary_line)) << quiet.err;
    EXPECT_NE(m[4], "0");  // counted, not shown
    // --quiet is the same flag.
    auto longer = run_cli({"batch", (dir / "in").string(), "-o", (dir / "longer").string(), "--format", "glb", "--quiet"});
    EXPECT_EQ(longer.err.find("Warning: "), std::string::npos) << longer.err;
}

TEST(Batch, InputsAreNeverChanged) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    save_sample(dir / "in" / "a.iqe");  // -> in/a.iqm: that is an input, refused
    save_sample(dir / "in" / "b.iqe");
    save_character(dir / "in" / "char" / "char.cfg");
    const auto before = snapshot(dir / "in");
    // Converted into the input folder itself.
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "in").string(), "--format", "iqm", "-j", "2", "--report",
                      (dir / "report.json").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;  // a refused output counts as a write failure
    auto after = snapshot(dir / "in");
    for (auto& [name, bytes] : before) EXPECT_EQ(after[name], bytes) << name;
    EXPECT_TRUE(fs::exists(dir / "in" / "b.iqm"));  // the others were converted
    json report = json::parse(read_bytes(dir / "report.json"));
    size_t failed = 0;
    for (auto& rec : report)
        if (rec["status"] == "failed") {
            ++failed;
            EXPECT_EQ(rec["error"]["code"], "invalid argument") << rec.dump();
        }
    // a.iqe -> a.iqm (an input), a.iqm -> a.iqm (itself), char.cfg -> char.iqm is fine.
    EXPECT_EQ(failed, 2u) << report.dump(1);
}

TEST(Batch, TwoInputsForOneOutputFailTheLaterOne) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "m.iqe");
    save_sample(dir / "in" / "m.iqm");  // after m.iqe in sorted order: both would be m.glb
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--report",
                      (dir / "report.json").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(report.size(), 2u);
    EXPECT_EQ(report[0]["status"], "converted");
    EXPECT_EQ(report[1]["status"], "failed");
    EXPECT_NE(report[1]["error"]["message"].get<std::string>().find("m.iqe"), std::string::npos) << report[1].dump();
    // What is there is m.iqe's conversion.
    ASSERT_EQ(run_cli({"convert", (dir / "in" / "m.iqe").string(), "-o", (dir / "m.glb").string()}).exit_code, 0);
    EXPECT_EQ(read_bytes(dir / "m.glb"), read_bytes(dir / "out" / "m.glb"));
}

TEST(Batch, UsageErrorsExit1) {
    const fs::path dir = temp_dir();
    const std::string in = save_sample(dir / "in" / "a.iqm").parent_path().string();
    const std::string out = (dir / "out").string();
    fs::create_directories(dir / "empty");
    write_bytes(dir / "file", {'x'});
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"batch", in, "--format", "glb"},                             // -o missing
             {"batch", in, "-o", out},                                     // --format missing
             {"batch", "-o", out, "--format", "glb"},                      // no INPUT
             {"batch", in, "-o", out, "--format", "nosuchformat"},         // unknown format
             {"batch", (dir / "empty").string(), "-o", out, "--format", "glb"},  // no models found
             {"batch", in, "-o", (dir / "file").string(), "--format", "glb"},    // OUT_DIR is a file
             {"batch", in, "-o", out, "--format", "glb", "-j", "0"},       // no threads
         }) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << args[1] << " " << args.back() << "\n" << r.err;
        EXPECT_NE(r.err.find("Error: "), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir / "out"));
    // OUT_DIR is created when missing; its parent must exist (exit 4).
    EXPECT_EQ(run_cli({"batch", in, "-o", (dir / "no" / "such").string(), "--format", "glb"}).exit_code, 4);
    EXPECT_EQ(run_cli({"batch", in, "-o", out, "--format", "glb", "-q"}).exit_code, 0);
    EXPECT_TRUE(fs::exists(dir / "out" / "a.glb"));
}

// ---- diagnostics of convert, info and validate (docs/cli.md) -------------------------------------

TEST(CliDiagnostics, JsonFailureObject) {
    const fs::path dir = temp_dir();
    const fs::path bad = save_truncated(dir / "bad.iqm");
    // (validate reports a malformed file as a finding, exit 5; a file it cannot read is below.)
    for (const char* verb : {"convert", "info"}) {
        std::vector<std::string> args{verb, "--json", bad.string()};
        if (std::string(verb) == "convert") args.insert(args.end(), {"-o", (dir / "out.glb").string()});
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 2) << verb << r.err;
        json j = json::parse(r.out);
        ASSERT_TRUE(j.contains("error")) << r.out;
        EXPECT_EQ(j.size(), 1u) << r.out;
        EXPECT_EQ(j["error"]["code"], "malformed") << verb;
        EXPECT_TRUE(j["error"]["message"].is_string());
        EXPECT_EQ(j["error"]["path"], bad.string());
        EXPECT_TRUE(j["error"]["offset"].is_number());
        EXPECT_FALSE(j["error"].contains("line"));
        EXPECT_NE(r.err.find("Error: "), std::string::npos) << r.err;  // stderr as without --json
    }
    EXPECT_FALSE(fs::exists(dir / "out.glb"));
    // A text error has line and column, no offset; a missing file only its path.
    write_bytes(dir / "x.cfg", {'n', 'o', 'e', 'q', '\n'});
    auto text = run_cli({"info", "--json", (dir / "x.cfg").string()});
    EXPECT_EQ(text.exit_code, 2) << text.err;
    json t = json::parse(text.out)["error"];
    EXPECT_EQ(t["line"], 1);
    EXPECT_EQ(t["column"], 1);
    EXPECT_FALSE(t.contains("offset"));
    auto unreadable = run_cli({"validate", "--json", (dir / "missing.iqm").string()});
    EXPECT_EQ(unreadable.exit_code, 2);
    json missing = json::parse(unreadable.out)["error"];
    EXPECT_EQ(missing["code"], "not found");
    EXPECT_FALSE(missing.contains("line"));
    EXPECT_FALSE(missing.contains("offset"));
    // Usage errors too, with their exit code.
    auto usage = run_cli({"convert", "--json", bad.string(), "-o", (dir / "o.iqm").string(), "-s", "0"});
    EXPECT_EQ(usage.exit_code, 1);
    EXPECT_EQ(json::parse(usage.out)["error"]["code"], "invalid argument");
    auto parse = run_cli({"convert", "--json", bad.string()});  // -o missing
    EXPECT_EQ(parse.exit_code, 1);
    EXPECT_EQ(json::parse(parse.out)["error"]["code"], "invalid argument");
}

TEST(CliDiagnostics, ConvertJsonSuccessRecord) {
    const fs::path dir = temp_dir();
    const fs::path in = save_sample(dir / "a.iqm");
    auto r = run_cli({"convert", "--json", in.string(), "-o", (dir / "a.gltf").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j["status"], "converted");
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_EQ(j["outputs"], json::array({(dir / "a.gltf").string(), (dir / "a.bin").string()}));
    EXPECT_EQ(j["counts"]["vertices"], 255);
}

TEST(CliDiagnostics, QuietConvertPrintsNoWarnings) {
    const fs::path dir = temp_dir();
    const fs::path in = save_sample(dir / "a.iqm");
    auto loud = run_cli({"convert", in.string(), "-o", (dir / "a.glb").string()});
    ASSERT_EQ(loud.exit_code, 0);
    EXPECT_NE(loud.err.find("Warning: "), std::string::npos) << loud.err;
    for (const char* q : {"-q", "--quiet"}) {
        auto quiet = run_cli({"convert", in.string(), "-o", (dir / "b.glb").string(), q});
        ASSERT_EQ(quiet.exit_code, 0);
        EXPECT_TRUE(quiet.err.empty()) << quiet.err;
    }
    EXPECT_EQ(read_bytes(dir / "a.glb"), read_bytes(dir / "b.glb"));
    // Errors still print.
    auto failed = run_cli({"convert", save_truncated(dir / "bad.iqm").string(), "-o", (dir / "c.glb").string(), "-q"});
    EXPECT_EQ(failed.exit_code, 2);
    EXPECT_EQ(failed.err.rfind("Error: ", 0), 0u) << failed.err;
}

TEST(CliDiagnostics, OutputExtensionContradictingFormatIsUsage) {
    const fs::path dir = temp_dir();
    const fs::path in = save_sample(dir / "a.iqm");
    const std::string missing = (dir / "missing.iqm").string();  // read, it would give exit 2
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"convert", missing, "--format", "iqm", "-o", (dir / "x.glb").string()},
             {"convert", missing, "--format", "glb", "-o", (dir / "x.gltf").string()},
             {"convert", missing, "--format", "cal3d", "-o", (dir / "x.xsf").string()},
             {"convert", in.string(), "--format", "iqe", "-o", (dir / "x.IQM").string()},
             {"sample", "--format", "joe", "-o", (dir / "x.iqm").string()},
         }) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << args.back() << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    }
    EXPECT_EQ(files_below(dir), std::vector<std::string>{"a.iqm"});  // nothing written
    // Agreeing, or an extension no format claims.
    for (auto& [format, name] : std::vector<std::pair<std::string, std::string>>{
             {"glb", "y.glb"}, {"gltf", "y.gltf"}, {"gltf", "z.glb"}, {"iqm", "y.data"}, {"iqe", "Y.IQE"}}) {
        auto r = run_cli({"convert", in.string(), "--format", format, "-o", (dir / name).string(), "-q"});
        EXPECT_EQ(r.exit_code, 0) << format << " " << name << "\n" << r.err;
    }
}

}  // namespace
}  // namespace rigport::test

namespace rigport::test {
namespace {

// A textured quad in IQE: the material names its texture, which a glTF output reads.
void write_textured(const fs::path& iqe, const std::string& texture) {
    fs::create_directories(iqe.parent_path());
    std::ofstream(iqe) << "# Inter-Quake Export\nmesh quad\nmaterial \"" << texture
                       << "\"\nvp 0 0 0\nvt 0 1\nvp 1 0 0\nvt 1 1\nvp 1 1 0\nvt 1 0\nvp 0 1 0\nvt 0 0\nfm 0 2 1\nfm 0 3 2\n";
}
void write_png(const fs::path& path, uint8_t shade) {
    fs::create_directories(path.parent_path());
    const uint8_t rgb[12] = {shade, 0, 0, 0, shade, 0, 0, 0, shade, 255, 255, 255};
    write_bytes(path, encode_png(2, 2, rgb));
}

// convert --depfile lists the output and every file the conversion read, escaped for Make.
TEST(BuildSystems, ConvertWritesADepfileOfEveryFileRead) {
    const fs::path dir = files_dir();
    write_textured(dir / "my model.iqe", "skins/a#1.png");
    write_png(dir / "skins/a#1.png", 10);
    const fs::path out = dir / "out.glb", dep = dir / "out.glb.d";
    auto r = run_cli({"convert", (dir / "my model.iqe").string(), "-o", out.string(), "--depfile", dep.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto bytes = read_bytes(dep);
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.rfind(out.string() + ":", 0), 0u) << text;
    EXPECT_NE(text.find((dir / "my\\ model.iqe").string()), std::string::npos) << text;   // space escaped
    EXPECT_NE(text.find((dir / "skins/a\\#1.png").string()), std::string::npos) << text;  // '#' escaped
    // A Cal3D character lists its .cfg and every member.
    const fs::path cfg = save_character(dir / "char/char.cfg");
    ASSERT_EQ(run_cli({"convert", cfg.string(), "-o", (dir / "char.iqm").string(), "--depfile", (dir / "char.d").string()}).exit_code, 0);
    const auto cbytes = read_bytes(dir / "char.d");
    const std::string ctext(cbytes.begin(), cbytes.end());
    for (auto& e : fs::directory_iterator(cfg.parent_path())) EXPECT_NE(ctext.find(e.path().string()), std::string::npos) << e.path() << "\n" << ctext;
    // A failed conversion writes no depfile; standard output cannot have one.
    EXPECT_NE(run_cli({"convert", (dir / "missing.iqe").string(), "-o", (dir / "x.glb").string(), "--depfile", (dir / "x.d").string()}).exit_code, 0);
    EXPECT_FALSE(fs::exists(dir / "x.d"));
    EXPECT_EQ(run_cli({"convert", (dir / "my model.iqe").string(), "-o", "-", "--format", "iqm", "--depfile", (dir / "y.d").string()}).exit_code, 1);
}

// batch --ninja writes one edge per model; ninja converts them all, then nothing, then after a
// texture or a .cfg member changes, only the model that reads it.
TEST(BuildSystems, NinjaRebuildsOnlyWhatChanged) {
    if (std::system("ninja --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "ninja not found: install ninja-build (scripts/setup.sh)";
    const fs::path dir = files_dir();
    write_textured(dir / "in/a.iqe", "a.png");
    write_png(dir / "in/a.png", 10);
    write_textured(dir / "in/sub/b.iqe", "b.png");
    write_png(dir / "in/sub/b.png", 20);
    save_character(dir / "in/char/char.cfg");
    const fs::path build = dir / "build.ninja";
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--ninja", build.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("3 models"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out/a.glb")) << "--ninja writes the build file only";

    // -C: its logs go beside the build file, not into the folder the tests run in (a build tree).
    auto ninja = [&] { return run_program("ninja", {"-C", dir.string(), "-f", build.string()}); };
    auto first = ninja();
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    for (const char* out : {"out/a.glb", "out/sub/b.glb", "out/char/char.glb"}) EXPECT_TRUE(fs::exists(dir / out)) << out;
    EXPECT_EQ(read_bytes(dir / "out/a.glb"), [&] {
        EXPECT_EQ(run_cli({"convert", (dir / "in/a.iqe").string(), "-o", (dir / "same.glb").string()}).exit_code, 0);
        return read_bytes(dir / "same.glb");
    }()) << "an edge converts as `rigport convert` does";
    EXPECT_NE(ninja().out.find("no work to do"), std::string::npos);

    // The texture of a.iqe changes (a later time: mtime resolution is not trusted): only a.glb.
    const auto b_time = fs::last_write_time(dir / "out/sub/b.glb");
    write_png(dir / "in/a.png", 99);
    fs::last_write_time(dir / "in/a.png", fs::file_time_type::clock::now() + std::chrono::seconds(5));
    auto again = ninja();
    ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("[1/1]"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("a.iqe"), std::string::npos) << again.out;
    EXPECT_EQ(fs::last_write_time(dir / "out/sub/b.glb"), b_time);
    // Back in the past, so that a.glb (built now) stays newer than its texture.
    fs::last_write_time(dir / "in/a.png", fs::file_time_type::clock::now() - std::chrono::seconds(60));

    // A .cfg member changes: only the character.
    fs::path member;
    for (auto& e : fs::directory_iterator(dir / "in/char"))
        if (e.path().extension() == ".xmf") member = e.path();
    ASSERT_FALSE(member.empty());
    fs::last_write_time(member, fs::file_time_type::clock::now() + std::chrono::seconds(10));
    auto character = ninja();
    ASSERT_EQ(character.exit_code, 0) << character.out << character.err;
    EXPECT_NE(character.out.find("[1/1]"), std::string::npos) << character.out;
    EXPECT_NE(character.out.find("char.cfg"), std::string::npos) << character.out;
}

}  // namespace
}  // namespace rigport::test

namespace rigport::test {
namespace {

// An .md5mesh with its .md5anim files beside it is one model (its companions, docs/cli.md
// "Companions"): beside two meshes too, each takes the animation files that share its stem.
TEST(Batch, MeshWithItsAnimationFilesIsOneModel) {
    const fs::path dir = files_dir();
    fs::create_directories(dir / "in/one");
    fs::create_directories(dir / "in/two");
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in/one/hero.md5mesh").string()));
    size_t anims = 0;
    for (auto& e : fs::directory_iterator(dir / "in/one")) anims += e.path().extension() == ".md5anim";
    ASSERT_GE(anims, 1u);
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in/two/a.md5mesh").string()));
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in/two/b.md5mesh").string()));
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "--report", (dir / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto hero = load((dir / "out/one/hero.glb").string());
    ASSERT_TRUE(hero) << hero.error().to_string();
    EXPECT_EQ(hero->animations.size(), anims) << "the animations came with the mesh";
    for (auto& e : fs::directory_iterator(dir / "in/one"))
        if (e.path().extension() == ".md5anim") EXPECT_FALSE(fs::exists(dir / "out/one" / (e.path().stem().string() + ".glb"))) << e.path();
    size_t two = 0;
    for (auto& e : fs::directory_iterator(dir / "out/two")) two += e.path().extension() == ".glb";
    EXPECT_EQ(two, 2u) << "two meshes, each with its own animation files";
    for (const char* stem : {"a", "b"}) {
        auto scene = load((dir / "out/two" / (std::string(stem) + ".glb")).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        EXPECT_EQ(scene->animations.size(), anims) << stem;
    }
    const auto report_bytes = read_bytes(dir / "r.json");
    const auto report = json::parse(std::string(report_bytes.begin(), report_bytes.end()));
    EXPECT_EQ(report.size(), 3u);
}

}  // namespace
}  // namespace rigport::test

namespace rigport::test {
namespace {

// Two .glb files in one folder embed a texture under one name: converted to IQM, each writes it
// beside its output. The same bytes are one shared file; other bytes under that name are a
// collision for the model that comes second (nothing is overwritten).
TEST(Batch, ASideFileTwoModelsWriteAlikeIsShared) {
    const fs::path dir = files_dir();
    fs::create_directories(dir / "same");
    fs::create_directories(dir / "other");
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "same/a.glb").string()}).exit_code, 0);
    fs::copy_file(dir / "same/a.glb", dir / "same/b.glb");
    auto scene = load((dir / "same/a.glb").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_FALSE(scene->images.empty()) << "the sample .glb embeds its texture";
    fs::copy_file(dir / "same/a.glb", dir / "other/a.glb");
    scene->images[0].bytes.back() ^= 0x5a;  // the same name, other bytes
    ASSERT_TRUE(save(*scene, (dir / "other/b.glb").string()));

    auto r = run_cli({"batch", (dir / "same").string(), "-o", (dir / "out-same").string(), "--format", "iqm", "-j", "2", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "out-same/a.iqm") && fs::exists(dir / "out-same/b.iqm"));
    size_t images = 0;
    for (auto& e : fs::directory_iterator(dir / "out-same")) images += e.path().extension() == ".png";
    EXPECT_EQ(images, 1u);

    auto clash = run_cli({"batch", (dir / "other").string(), "-o", (dir / "out-other").string(), "--format", "iqm", "-j", "1", "-q"});
    EXPECT_NE(clash.exit_code, 0);
    EXPECT_NE(clash.err.find("with other contents"), std::string::npos) << clash.err;
    EXPECT_NE(clash.err.find("1 converted, 1 failed"), std::string::npos) << clash.err;
    EXPECT_EQ(read_bytes(dir / "out-other/a.iqm").empty(), false);
    EXPECT_FALSE(fs::exists(dir / "out-other/b.iqm"));
}

}  // namespace
}  // namespace rigport::test

// What a model file can make the CLI print, through the real binary (docs/reliability.md "Messages are safe
// to print", docs/cli.md "Messages"): names and paths from a file never reach stderr as raw control bytes
// (a material named ESC ]0;... BEL CR ESC [2K would retitle the terminal and erase the line),
// while --json and --report keep them exact; `batch` does not follow symbolic links out of its
// folders (a link to a file elsewhere would put that file's text into the log and the report)
// unless --follow-links; a reader quotes file text short and escaped (core/excerpt.hpp).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// OSC 0 (set the window title), BEL, CR, and CSI 2K (erase the line): what a crafted name
// would do to a terminal printed raw.
const std::string evil = "\x1b]0;pwned\x07\r\x1b[2K";
// ... as the CLI prints it, and as it appears in a JSON string.
const std::string evil_printed = "\\x1b]0;pwned\\x07\\r\\x1b[2K";
const std::string evil_json = "\\u001b]0;pwned\\u0007\\r\\u001b[2K";

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// What a terminal could act on: a C0 control other than the line ends the CLI prints itself,
// DEL, a C1 control (U+0080-U+009F), or a byte that is not part of valid UTF-8 (a raw 0x9B is
// CSI to some terminals).
::testing::AssertionResult no_raw_controls(const std::string& text) {
    for (size_t i = 0; i < text.size();) {
        const auto at = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
        const unsigned c = at(i);
        uint32_t cp = c;
        size_t n = 1;
        if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
        else if (c >= 0x80) cp = 0x80;  // not a lead byte: flagged below
        for (size_t k = 1; k < n; ++k) {
            if ((at(i + k) & 0xC0) != 0x80) {
                cp = 0x80;
                n = 1;
                break;
            }
            cp = (cp << 6) | (at(i + k) & 0x3F);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) cp = 0x80;
        if ((cp < 0x20 && cp != '\n') || (cp >= 0x7F && cp <= 0x9F)) {
            const size_t from = i < 60 ? 0 : i - 60;
            return ::testing::AssertionFailure() << fmt::format("raw byte 0x{:02x} at {} after: ", c, i) << text.substr(from, i - from);
        }
        i += n;
    }
    return ::testing::AssertionSuccess();
}

// A .gltf with one triangle (its buffer inline) whose material is named `material` and whose
// base colour texture is `texture` (a file that is not there), both as JSON string contents;
// `version` is asset.version.
void write_gltf(const fs::path& path, const std::string& material, const std::string& texture, const std::string& version = "2.0") {
    fs::create_directories(path.parent_path());
    const std::string text = fmt::format(
        R"({{"asset":{{"version":"{}"}},)"
        R"("buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}}],)"
        R"("bufferViews":[{{"buffer":0,"byteLength":36}}],)"
        R"("accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],)"
        R"("images":[{{"uri":"{}"}}],"textures":[{{"source":0}}],)"
        R"("materials":[{{"name":"{}","pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],)"
        R"("meshes":[{{"name":"tri","primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}}],)"
        R"("nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}})",
        version, texture, material);
    write_bytes(path, bytes_of(text));
}

fs::path save_sample(const fs::path& path) {
    fs::create_directories(path.parent_path());
    auto st = save(make_sample_scene(), path.string());
    EXPECT_TRUE(st) << st.error().to_string();
    return path;
}

TEST(TerminalSafety, ConvertEscapesNamesFromTheFileAndJsonKeepsThemExact) {
    const fs::path dir = temp_dir();
    const fs::path model = dir / "evil.gltf";
    write_gltf(model, evil_json, evil_json + ".png");
    // The texture is not there: a warning quoting its path (and so the crafted bytes).
    auto r = run_cli({"convert", model.string(), "-o", (dir / "out.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("texture-not-found"), std::string::npos) << r.err;
    EXPECT_TRUE(no_raw_controls(r.err));
    EXPECT_NE(r.err.find(evil_printed), std::string::npos) << r.err;  // shown, not obeyed

    auto j = run_cli({"convert", model.string(), "-o", (dir / "out2.glb").string(), "--json"});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    EXPECT_TRUE(no_raw_controls(j.err));
    const json record = json::parse(j.out);
    ASSERT_FALSE(record["warnings"].empty()) << j.out;
    EXPECT_NE(record["warnings"][0]["message"].get<std::string>().find(evil + ".png"), std::string::npos) << j.out;

    auto info = run_cli({"info", model.string(), "--json"});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(json::parse(info.out)["materials"][0], evil);
    // The text report shows the name escaped.
    auto text = run_cli({"info", model.string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(no_raw_controls(text.out));
}

TEST(TerminalSafety, ErrorsEscapeTextFromTheFile) {
    const fs::path dir = temp_dir();
    const fs::path model = dir / "version.gltf";
    write_gltf(model, "m", "t.png", evil_json);  // asset.version: quoted by the error
    // A .cfg naming a skeleton that is not there: validate of it with another file (checked as
    // one model) cannot read it, an error on stderr; of it alone, a finding in the report.
    const fs::path cfg = dir / "x.cfg";
    write_bytes(cfg, bytes_of("skeleton=a" + evil + ".xsf\n"));
    const fs::path sample = save_sample(dir / "s.iqm");
    const std::vector<std::vector<std::string>> runs = {{"convert", model.string(), "-o", (dir / "out.glb").string()},
                                                        {"info", model.string()},
                                                        {"validate", cfg.string(), sample.string()}};
    for (auto& args : runs) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, args[0] == "validate" ? 2 : 3) << args[0] << ": " << r.err;
        EXPECT_NE(r.err.find("Error: "), std::string::npos) << args[0] << ": " << r.err;
        EXPECT_NE(r.err.find("\\x1b]0;pwned"), std::string::npos) << args[0] << ": " << r.err;
        EXPECT_TRUE(no_raw_controls(r.err)) << args[0];
    }
    auto report = run_cli({"validate", cfg.string()});
    EXPECT_EQ(report.exit_code, 2) << report.err;
    EXPECT_NE(report.out.find("part.missing"), std::string::npos) << report.out;
    EXPECT_TRUE(no_raw_controls(report.out));
}

TEST(TerminalSafety, BatchEscapesProgressLinesWarningsAndFailures) {
    const fs::path dir = temp_dir();
    write_gltf(dir / "in" / "evil.gltf", evil_json, evil_json + ".png");
    write_gltf(dir / "in" / ("named" + evil + ".gltf"), "m", "t.png");     // a crafted file name
    write_gltf(dir / "in" / "bad.gltf", "m", "t.png", evil_json);           // fails, quoting the file
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--report",
                      (dir / "report.json").string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(no_raw_controls(r.err));
    EXPECT_NE(r.err.find("FAILED "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ok " + (dir / "in" / "named").string() + evil_printed + ".gltf"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("texture '" + evil_printed + ".png' not found"), std::string::npos) << r.err;
    // The report keeps names and paths exact.
    const json report = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(report.size(), 3u);
    bool named = false, warned = false;
    for (auto& rec : report) {
        named = named || rec["input"] == (dir / "in" / ("named" + evil + ".gltf")).string();
        for (auto& w : rec["warnings"]) warned = warned || w["message"].get<std::string>().find(evil + ".png") != std::string::npos;
    }
    EXPECT_TRUE(named) << report.dump();
    EXPECT_TRUE(warned) << report.dump();
}

// ---- batch and symbolic links ----------------------------------------------------------------

// in/ holds a model, a link leak/x.cfg to a secret file outside, and a link ext/ to a folder
// outside that holds a model.
struct LinkTree {
    fs::path dir, in, secret, outside_model;
};
LinkTree make_link_tree(const std::string& secret_text) {
    LinkTree t;
    t.dir = temp_dir();
    t.in = t.dir / "in";
    save_sample(t.in / "a.iqm");
    t.secret = t.dir / "elsewhere" / "secret.txt";
    fs::create_directories(t.secret.parent_path());
    write_bytes(t.secret, bytes_of(secret_text));
    t.outside_model = save_sample(t.dir / "elsewhere" / "models" / "m.iqm");
    fs::create_directories(t.in / "leak");
    fs::create_symlink(t.secret, t.in / "leak" / "x.cfg");
    fs::create_directory_symlink(t.outside_model.parent_path(), t.in / "ext");
    return t;
}

TEST(TerminalSafety, BatchSkipsLinksOutOfItsTree) {
    const LinkTree t = make_link_tree("api_key hunter2\n");
    const fs::path report = t.dir / "report.json";
    auto r = run_cli({"batch", t.in.string(), "-o", (t.dir / "out").string(), "--format", "glb", "--report", report.string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("hunter2"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("skipped " + (t.in / "leak" / "x.cfg").string() + ": a symbolic link to a file outside"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("skipped " + (t.in / "ext").string() + ": a symbolic link to a folder outside"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(t.secret.string()), std::string::npos) << r.err;  // the note names the link, not where it leads
    const std::string report_text(reinterpret_cast<const char*>(read_bytes(report).data()), read_bytes(report).size());
    EXPECT_EQ(report_text.find("hunter2"), std::string::npos) << report_text;
    const json records = json::parse(report_text);
    ASSERT_EQ(records.size(), 1u) << report_text;  // a.iqm alone
    EXPECT_EQ(records[0]["input"], (t.in / "a.iqm").string());
    EXPECT_FALSE(fs::exists(t.dir / "out" / "ext"));
}

TEST(TerminalSafety, BatchFollowsLinksOutOfItsTreeWhenAsked) {
    // The secret's one long line, with a control sequence far in: the error quotes its start,
    // short and escaped.
    const LinkTree t = make_link_tree("api_key hunter2 " + std::string(10000, 'x') + "\x1b[2K\n");
    const fs::path report = t.dir / "report.json";
    auto r = run_cli({"batch", t.in.string(), "-o", (t.dir / "out").string(), "--format", "glb", "--report", report.string(), "-q",
                      "--follow-links"});
    EXPECT_EQ(r.exit_code, 2) << r.err;  // the .cfg it leads to is not a Cal3D character
    EXPECT_TRUE(no_raw_controls(r.err));
    const json records = json::parse(read_bytes(report));
    ASSERT_EQ(records.size(), 3u) << records.dump();
    EXPECT_EQ(records[0]["input"], (t.in / "a.iqm").string());
    EXPECT_EQ(records[1]["input"], (t.in / "ext" / "m.iqm").string());
    EXPECT_EQ(records[1]["status"], "converted");
    EXPECT_TRUE(fs::exists(t.dir / "out" / "ext" / "m.glb"));
    const json& failed = records[2];
    EXPECT_EQ(failed["input"], (t.in / "leak" / "x.cfg").string());
    const std::string message = failed["error"]["message"];
    EXPECT_NE(message.find("'api_key hunter2 xxx"), std::string::npos) << message;
    EXPECT_LT(message.size(), 120u) << message;
    const auto line = r.err.find("FAILED " + (t.in / "leak" / "x.cfg").string());
    ASSERT_NE(line, std::string::npos) << r.err;
    EXPECT_LT(r.err.find('\n', line) - line, 300u) << r.err;
}

TEST(TerminalSafety, BatchConvertsAFileReachedThroughALinkInsideItsTreeOnce) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "models" / "a.iqm");
    fs::create_symlink(dir / "in" / "models" / "a.iqm", dir / "in" / "0link.iqm");    // inside: followed, sorted first
    fs::create_directory_symlink(dir / "in" / "models", dir / "in" / "0models");       // a folder inside: not walked again
    save_sample(dir / "elsewhere" / "b.iqm");
    fs::create_symlink(dir / "elsewhere" / "b.iqm", dir / "given.iqm");                // named on the command line: read
    auto r = run_cli({"batch", (dir / "in").string(), (dir / "given.iqm").string(), "-o", (dir / "out").string(), "--format", "glb",
                      "--report", (dir / "report.json").string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("skipped"), std::string::npos) << r.err;
    const json records = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(records.size(), 2u) << records.dump();
    // The file under its own path (not the link's name, though the link sorts first).
    EXPECT_EQ(records[0]["input"], (dir / "in" / "models" / "a.iqm").string());
    EXPECT_EQ(records[0]["outputs"][0], (dir / "out" / "models" / "a.glb").string());
    EXPECT_EQ(records[1]["input"], (dir / "given.iqm").string());
    EXPECT_EQ(records[1]["status"], "converted");
    EXPECT_FALSE(fs::exists(dir / "out" / "0link.glb"));
    EXPECT_FALSE(fs::exists(dir / "out" / "0models"));
}

TEST(TerminalSafety, BatchFollowsALoopOfFolderLinksOnce) {
    const fs::path dir = temp_dir();
    save_sample(dir / "in" / "a.iqm");
    save_sample(dir / "elsewhere" / "b.iqm");
    fs::create_directory_symlink(dir / "elsewhere", dir / "in" / "ext");
    fs::create_directory_symlink(dir / "elsewhere", dir / "elsewhere" / "again");  // a loop
    fs::create_directory_symlink(dir / "in", dir / "elsewhere" / "back");          // back into the tree
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--follow-links", "-q", "--report",
                      (dir / "report.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json records = json::parse(read_bytes(dir / "report.json"));
    ASSERT_EQ(records.size(), 2u) << records.dump();
    EXPECT_EQ(records[0]["input"], (dir / "in" / "a.iqm").string());
    EXPECT_EQ(records[1]["input"], (dir / "in" / "ext" / "b.iqm").string());
}

// ---- readers quote file text short and escaped -----------------------------------------------

// 10 KB of one "word": bytes 1-255 without blanks, line ends, quotes and the separators of the
// formats below, so each reader takes it whole as one token, key or line; many are control bytes.
std::string garbage() {
    std::string g = "Z";
    uint32_t x = 12345;
    const std::string refused = " \t\r\n\v\f=#;\"':,{}()[]/\\*";
    while (g.size() < 10000) {
        x = x * 1103515245u + 12345u;
        const char c = char((x >> 16) % 255 + 1);
        if (refused.find(c) == std::string::npos) g += c;
    }
    return g;
}

// The first warning or the error of loading a file holding text, which must quote part of
// the garbage: short, no raw control byte, valid UTF-8 (nlohmann's strict dump throws otherwise).
void expect_short_quote(const std::string& name, const std::string& text, bool warning = false) {
    SCOPED_TRACE(name);
    const fs::path path = temp_dir() / name;
    write_bytes(path, bytes_of(text));
    auto scene = load(path.string());
    std::vector<std::string> messages;
    if (warning) {
        ASSERT_TRUE(scene) << scene.error().to_string();
        for (auto& w : scene->warnings.items) messages.push_back(w.message);
    } else {
        ASSERT_FALSE(scene);
        messages.push_back(scene.error().message);
    }
    bool quoted = false;
    for (auto& message : messages) {
        quoted = quoted || message.find("...") != std::string::npos;  // a cut quote of the garbage
        EXPECT_LT(message.size(), 140u) << message;
        EXPECT_TRUE(no_raw_controls(message));
        EXPECT_NO_THROW((void)json(message).dump()) << message;
    }
    EXPECT_TRUE(quoted) << ::testing::PrintToString(messages);
}

TEST(TerminalSafety, ReadersQuoteALongLineOfGarbageShortAndEscaped) {
    const std::string g = garbage();
    expect_short_quote("not_key_value.cfg", g + "\n");
    expect_short_quote("unknown_key.cfg", g + "=x\n", true);
    expect_short_quote("number.obj", "v 1 2 " + g + "\n");
    expect_short_quote("keyword.obj", g + " 1 2\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", true);
    expect_short_quote("number.iqe", "# Inter-Quake Export\nmesh m\nvp 1 2 " + g + "\n");
    expect_short_quote("command.iqe", "# Inter-Quake Export\nmesh m\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfa 0 1 2\n" + g + " 1\n", true);
    expect_short_quote("node.smd", "version 1\nnodes\n" + g + "\nend\n");
    expect_short_quote("keyword.md5mesh", "MD5Version 10\n" + g + "\n");
    expect_short_quote("name.fbx", "; FBX 7.4.0 project file\n" + g + "\n");
    // JSON: a value that should be an index, printed back by the reader.
    expect_short_quote("index.gltf", R"({"asset":{"version":"2.0"},"scene":"Z)" + std::string(10000, 'A') + R"(\u001b"})");
}

}  // namespace
}  // namespace rigport::test

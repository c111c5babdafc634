// `rigport view`: the page holds the model (as rigport's GLB) and three.js, survives names from
// files, protects its inputs; and in a real browser (Debian's chromium, headless, WebGL on
// SwiftShader) it loads with no error, shows the model over the expected share of the screen, and
// another animation changes the picture.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include <stb_image.h>

#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

std::string text_of(const fs::path& p) {
    auto b = read_bytes(p);
    return std::string(b.begin(), b.end());
}

std::vector<uint8_t> unbase64(const std::string& s) {
    std::vector<uint8_t> out;
    uint32_t v = 0;
    int bits = 0;
    for (char c : s) {
        int d = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
        if (d < 0) continue;
        v = v << 6 | uint32_t(d);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(uint8_t(v >> bits));
        }
    }
    return out;
}

// The page's data block, parsed.
nlohmann::json page_data(const std::string& html) {
    const std::string open = "<script id=\"rigport-data\" type=\"application/json\">";
    const size_t at = html.find(open);
    if (at == std::string::npos) return {};
    const size_t end = html.find("</script>", at);
    return nlohmann::json::parse(html.substr(at + open.size(), end - at - open.size()));
}

bool have_chromium() { return run_program("sh", {"-c", "command -v chromium"}).exit_code == 0; }

#define REQUIRE_CHROMIUM()                                                                                    \
    do {                                                                                                      \
        RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();                                                               \
        if (!have_chromium()) GTEST_SKIP() << "chromium not found: scripts/setup.sh installs it for this test"; \
    } while (0)

// Headless chromium on the page with `hash` (#anim=...&time=...&paused=1): the DOM after `budget`
// ms of virtual time, or a screenshot of 640 x 480.
RunResult chromium(const fs::path& page, const std::string& hash, const std::string& what, const fs::path& profile, int budget) {
    return run_program("timeout", {"180", "chromium", "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-dev-shm-usage",
                                   "--hide-scrollbars", "--window-size=640,480", "--virtual-time-budget=" + std::to_string(budget),
                                   "--user-data-dir=" + profile.string(), what, "file://" + fs::absolute(page).string() + "#" + hash});
}

std::string status_of(const std::string& dom) {
    const std::string open = "<pre id=\"status\">";
    const size_t at = dom.find(open);
    if (at == std::string::npos) return "(no status in the page: " + dom.substr(0, 200) + ")";
    return dom.substr(at + open.size(), dom.find("</pre>", at) - at - open.size());
}

// The page's status line once it has left "loading", and the virtual-time budget that took.
// Virtual time does not wait for work off the main thread (a texture decoded in the background),
// so on a busy machine the first budget can end before the model is in: try longer ones.
struct Loaded {
    std::string status, err;
    int budget = 0;
};
Loaded load_page(const fs::path& page, const std::string& hash, const fs::path& profile) {
    Loaded l;
    for (int budget : {5000, 15000, 30000}) {
        const auto dom = chromium(page, hash, "--dump-dom", profile, budget);
        l = {status_of(dom.out), dom.err.substr(0, 2000), budget};
        if (l.status != "loading") break;
    }
    return l;
}

struct Shot {
    int w = 0, h = 0;
    std::vector<uint8_t> rgb;
};
Shot screenshot(const fs::path& page, const std::string& hash, const fs::path& dir, const std::string& name, int budget) {
    const fs::path png = dir / (name + ".png");
    chromium(page, hash, "--screenshot=" + png.string(), dir / ("profile-" + name), budget);
    Shot s;
    int n = 0;
    if (stbi_uc* p = stbi_load(png.string().c_str(), &s.w, &s.h, &n, 3)) {
        s.rgb.assign(p, p + size_t(s.w) * s.h * 3);
        stbi_image_free(p);
    }
    return s;
}

// Share of the pixels right of the panel (x >= 300) and above the status line that are not the
// page's background colour (#2c3038): the model on screen.
double model_share(const Shot& s) {
    size_t model = 0, all = 0;
    for (int y = 0; y < s.h - 30; ++y)
        for (int x = 300; x < s.w; ++x) {
            const uint8_t* p = &s.rgb[(size_t(y) * s.w + x) * 3];
            ++all;
            model += std::abs(p[0] - 0x2c) + std::abs(p[1] - 0x30) + std::abs(p[2] - 0x38) > 12;
        }
    return all ? double(model) / double(all) : 0;
}

double difference(const Shot& a, const Shot& b) {
    if (a.rgb.size() != b.rgb.size() || a.rgb.empty()) return 1;
    size_t differ = 0;
    for (size_t i = 0; i < a.rgb.size(); i += 3)
        differ += std::abs(a.rgb[i] - b.rgb[i]) + std::abs(a.rgb[i + 1] - b.rgb[i + 1]) + std::abs(a.rgb[i + 2] - b.rgb[i + 2]) > 24;
    return double(differ) / double(a.rgb.size() / 3);
}

}  // namespace

TEST(ViewCli, PageHoldsTheModelAndThreeJs) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    auto r = run_cli({"view", (dir / "s.iqm").string(), "-o", (dir / "s.html").string()});
    if (r.exit_code == 3) GTEST_SKIP() << r.err;  // built without three.js (no tests/js/node_modules)
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string html = text_of(dir / "s.html");
    const auto data = page_data(html);
    ASSERT_TRUE(data.is_object());
    // The model is rigport's GLB of it, textures inside: it reads back as the sample.
    auto glb = unbase64(data["model"].get<std::string>());
    auto back = load_bytes(glb, "embedded.glb");
    ASSERT_TRUE(back) << back.error().to_string();
    const Scene sample = make_sample_scene();
    EXPECT_EQ(back->vertex_count(), sample.vertex_count());
    EXPECT_EQ(back->animations.size(), sample.animations.size());
    EXPECT_FALSE(back->images.empty());  // the checkerboard texture, embedded
    EXPECT_EQ(data["info"]["format"], "iqm");
    EXPECT_EQ(data["info"]["joints"], sample.skeleton.joints.size());
    // three.js under bare names, no relative import left (a blob: URL cannot resolve one).
    for (const char* name : {"three", "three/core", "three/addons/loaders/GLTFLoader.js", "three/addons/controls/OrbitControls.js"}) {
        ASSERT_TRUE(data["modules"].contains(name)) << name;
        auto source = unbase64(data["modules"][name].get<std::string>());
        const std::string js(source.begin(), source.end());
        EXPECT_EQ(js.find("from '../"), std::string::npos) << name;
        EXPECT_EQ(js.find("from './"), std::string::npos) << name;
    }
    EXPECT_NE(html.find("The MIT License"), std::string::npos);  // three.js's licence goes with it
}

TEST(ViewCli, NamesFromFilesCannotBreakThePage) {
    // A joint named to end the data block, a mesh named like the page's placeholder, a file name
    // with markup: the data still parses whole and the title shows the name as text.
    const fs::path dir = files_dir();
    const fs::path model = dir / "a<b>@DATA@&.iqe";
    const std::string iqe = "# Inter-Quake Export\njoint \"</script><b>x\" -1\npq 0 0 0 0 0 0 1\nmesh \"@DATA@\"\n"
                            "vp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfm 0 1 2\n";
    write_bytes(model, std::vector<uint8_t>(iqe.begin(), iqe.end()));
    auto r = run_cli({"view", model.string(), "-o", (dir / "p.html").string()});
    if (r.exit_code == 3) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string html = text_of(dir / "p.html");
    const auto data = page_data(html);
    ASSERT_TRUE(data.is_object());
    EXPECT_EQ(data["info"]["path"], model.string());
    EXPECT_EQ(data["info"]["skeleton"][0]["name"], "</script><b>x");
    EXPECT_EQ(data["info"]["meshes"][0]["name"], "@DATA@");
    EXPECT_NE(html.find("<title>a&lt;b&gt;&#64;DATA&#64;&amp;.iqe - rigport view</title>"), std::string::npos);
}

TEST(ViewCli, ATextureThatIsNoImageIsAWarning) {
    // docs/view.md: what the glTF export reports is a warning, as in convert; a texture file that
    // is no image is left out (docs/cli.md), also when it would be converted (TGA and friends).
    const fs::path dir = files_dir();
    const std::string not_image = "RIGPORT_NOT_AN_IMAGE plain text";
    for (const char* name : {"b1.png", "skin.tga"}) write_bytes(dir / name, std::vector<uint8_t>(not_image.begin(), not_image.end()));
    const std::string iqe = "# Inter-Quake Export\nmesh a\nmaterial b1.png\nvp 0 0 0\nvt 0 0\nvp 1 0 0\nvt 1 0\nvp 0 1 0\nvt 0 1\nfm 0 1 2\n"
                            "mesh b\nmaterial skin.tga\nvp 1 0 0\nvt 0 0\nvp 2 0 0\nvt 1 0\nvp 1 1 0\nvt 0 1\nfm 0 1 2\n";
    write_bytes(dir / "m.iqe", std::vector<uint8_t>(iqe.begin(), iqe.end()));
    auto r = run_cli({"view", (dir / "m.iqe").string(), "-o", (dir / "m.html").string()});
    if (r.exit_code == 3) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("b1.png is not an image"), std::string::npos) << r.err;
    // The second texture's warning differs only in its names: folded into the first's line.
    EXPECT_NE(r.err.find("(2 times; also 'skin.tga')"), std::string::npos) << r.err;
    const std::string html = text_of(dir / "m.html");
    EXPECT_EQ(html.find(not_image), std::string::npos);
    auto glb = unbase64(page_data(html)["model"].get<std::string>());
    auto back = load_bytes(glb, "embedded.glb");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(back->images.empty());
    EXPECT_EQ(back->meshes.size(), 2u);
}

TEST(ViewCli, ErrorsLeaveFilesAlone) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    const auto before = read_bytes(dir / "s.iqm");
    auto r = run_cli({"view", (dir / "s.iqm").string(), "-o", (dir / "s.iqm").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(read_bytes(dir / "s.iqm"), before);
    r = run_cli({"view", (dir / "s.iqm").string(), "-o", (dir / "sample_texture.png").string()});  // a file the model reads
    EXPECT_EQ(r.exit_code, 1) << r.err;
    r = run_cli({"view", (dir / "missing.iqm").string(), "-o", (dir / "m.html").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(fs::exists(dir / "m.html"));
}

TEST(ViewBrowser, SampleLoadsShowsTheModelAndAnimationsChangeIt) {
    REQUIRE_CHROMIUM();
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    auto r = run_cli({"view", (dir / "s.iqm").string(), "-o", (dir / "s.html").string()});
    if (r.exit_code == 3) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto page = load_page(dir / "s.html", "anim=wave&time=0.25&paused=1", dir / "profile-dom");
    EXPECT_EQ(page.status, "ready: 1 meshes, 2 animations, showing wave at 0.25 s") << page.err;
    const Shot wave = screenshot(dir / "s.html", "anim=wave&time=0.25&paused=1", dir, "wave", page.budget);
    const Shot pulse = screenshot(dir / "s.html", "anim=pulse&time=0.5&paused=1", dir, "pulse", page.budget);
    ASSERT_EQ(wave.w, 640);
    ASSERT_EQ(wave.h, 480);
    // The camera frames the model: it covers a fair part of the view, not a speck, not all of it.
    EXPECT_GT(model_share(wave), 0.05);
    EXPECT_LT(model_share(wave), 0.7);
    EXPECT_GT(difference(wave, pulse), 0.01) << "another animation, the same picture";
}

// A model of every format rigport reads: the page loads without an error and shows it.
class ViewBrowserCorpus : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(ViewBrowserCorpus, LoadsAndShows) {
    RIGPORT_REQUIRE_CORPUS();
    REQUIRE_CHROMIUM();
    const fs::path dir = files_dir();
    std::vector<std::string> args = {"view"};
    for (auto& a : corpus_args(GetParam())) args.push_back(a);
    args.insert(args.end(), {"-o", (dir / "m.html").string()});
    auto r = run_cli(args);
    if (r.exit_code == 3) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto page = load_page(dir / "m.html", "paused=1", dir / "profile-dom");
    EXPECT_EQ(page.status.rfind("ready: ", 0), 0u) << page.status << " after " << page.budget << " ms\n" << page.err;
    EXPECT_GT(model_share(screenshot(dir / "m.html", "paused=1", dir, "shot", page.budget)), 0.03);
}

INSTANTIATE_TEST_SUITE_P(Models, ViewBrowserCorpus, ::testing::ValuesIn(corpus_model_per_format()), corpus_format_name);

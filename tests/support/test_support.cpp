// Shared test helpers (see test_support.hpp).
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <string_view>
#include <fstream>
#include <iterator>
#include <sstream>

namespace rigport::test {
namespace fs = std::filesystem;

bool sanitizer_build() { return std::string_view(RIGPORT_SANITIZE_BUILD).size() > 0; }

fs::path corpus_dir() {
    if (const char* env = std::getenv("RIGPORT_CORPUS"); env && *env) {
        fs::path p(env);
        return fs::is_directory(p) ? p : fs::path();
    }
    fs::path p = fs::path(RIGPORT_SOURCE_DIR) / ".." / "shared" / "corpus";
    return fs::is_directory(p) ? fs::canonical(p) : fs::path();
}

std::vector<fs::path> corpus_files(const std::string& sub, const std::string& ext) {
    std::vector<fs::path> out;
    fs::path dir = corpus_dir();
    if (dir.empty() || !fs::is_directory(dir / sub)) return out;
    for (auto& e : fs::directory_iterator(dir / sub))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

const std::vector<std::vector<std::string>>& corpus_model_per_format() {
    static const std::vector<std::vector<std::string>> models = {
        {"iqm/mrfixit.iqm"},
        {"iqe/unvanquished_mgturret.iqe"},
        {"cal3d/upstream_binary/cally/cally.cfg", "--allow-missing"},  // the corpus has some of cally's meshes
        {"joe/vdrift-data-short__cars_360_body.joe"},
        {"gltf/CesiumMan.glb"},
        {"md5/assimp_assimp__BoarMan.md5mesh"},
        {"smd/assimp_assimp__WusonSMD.smd"},
        {"obj/zeux_meshoptimizer__pirate.obj"},
    };
    return models;
}

std::vector<std::string> corpus_args(const std::vector<std::string>& words) {
    std::vector<std::string> args;
    for (auto& w : words) args.push_back(w.rfind("--", 0) == 0 ? w : (corpus_dir() / w).string());
    return args;
}

std::string corpus_format_name(const ::testing::TestParamInfo<std::vector<std::string>>& info) {
    return info.param[0].substr(0, info.param[0].find('/'));
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

namespace {

fs::path process_root() { return fs::temp_directory_path() / ("rigport-test-" + std::to_string(::getpid())); }

std::string test_folder_name(const ::testing::TestInfo& info) {
    std::string name = std::string(info.test_suite_name()) + "." + info.name();
    std::replace(name.begin(), name.end(), '/', '_');
    return name;
}

// A test that passed (or was skipped) leaves nothing in the temp folder; a failed test's folder
// stays for a look. Without this every run of the suite left tens of megabytes behind.
class RemoveFoldersOfPassedTests : public ::testing::EmptyTestEventListener {
    void OnTestEnd(const ::testing::TestInfo& info) override {
        if (info.result() && info.result()->Failed()) return;
        std::error_code ec;
        const fs::path p = process_root() / test_folder_name(info);
        fs::remove_all(p, ec);
        fs::remove_all(fs::path(p.string() + ".files"), ec);
    }
    void OnTestProgramEnd(const ::testing::UnitTest&) override {
        std::error_code ec;
        fs::remove_all(process_root() / "cli-capture", ec);
        fs::remove(process_root(), ec);  // only when empty: failed tests' folders stay
    }
};

const bool cleaner_installed = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new RemoveFoldersOfPassedTests);
    return true;
}();

}  // namespace

fs::path temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    fs::path p = process_root() / (info ? test_folder_name(*info) : std::string("rigport"));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

fs::path files_dir() {
    fs::path p = temp_dir();
    p += ".files";
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

static std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

static std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<uint8_t> encode_png(int w, int h, const uint8_t* rgb) {
    std::vector<uint8_t> png;
    stbi_write_png_to_func(
        [](void* c, void* d, int n) {
            auto* out = static_cast<std::vector<uint8_t>*>(c);
            out->insert(out->end(), static_cast<uint8_t*>(d), static_cast<uint8_t*>(d) + n);
        },
        &png, w, h, 3, rgb, w * 3);
    return png;
}

RunResult run_cli(const std::vector<std::string>& args) { return run_program(RIGPORT_CLI_PATH, args); }

RunResult run_program(const std::string& program, const std::vector<std::string>& args) {
    // Not temp_dir(): that empties the calling test's directory, where its inputs may live.
    fs::path dir = process_root() / "cli-capture";
    fs::create_directories(dir);
    fs::path out = dir / "stdout", err = dir / "stderr";
    std::string cmd = quote(program);
    for (auto& a : args) cmd += " " + quote(a);
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string());
    int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

const char* const cal3d_converter = "/usr/bin/cal3d_converter";

bool have_cal3d_converter() { return fs::exists(cal3d_converter); }

int run_cal3d_converter(const fs::path& in, const fs::path& out) {
    const std::string cmd = quote(cal3d_converter) + " " + quote(in.string()) + " " + quote(out.string()) + " >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::array<double, 3>> obj_vertex_positions(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::array<double, 3>> out;
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("v ", 0) == 0) {
            std::istringstream s(line.substr(2));
            std::array<double, 3> p{};
            s >> p[0] >> p[1] >> p[2];
            out.push_back(p);
        }
    return out;
}

double farthest_point(const std::vector<std::array<double, 3>>& a, const std::vector<std::array<double, 3>>& b) {
    std::vector<std::array<double, 3>> sorted = b;
    std::sort(sorted.begin(), sorted.end());
    double worst = 0;
    for (auto& p : a) {
        // Outward from p's x in both directions, until the x gap alone exceeds the best so far.
        double best = INFINITY;
        const auto at = std::lower_bound(sorted.begin(), sorted.end(), std::array<double, 3>{p[0], -INFINITY, -INFINITY});
        for (auto it = at; it != sorted.end() && (*it)[0] - p[0] < best; ++it)
            best = std::min(best, std::hypot((*it)[0] - p[0], (*it)[1] - p[1], (*it)[2] - p[2]));
        for (auto it = at; it != sorted.begin() && p[0] - (*std::prev(it))[0] < best; --it) {
            const auto& q = *std::prev(it);
            best = std::min(best, std::hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]));
        }
        worst = std::max(worst, best);
    }
    return worst;
}

std::vector<std::array<double, 3>> mesh_positions(const rigport::Scene& scene) {
    std::vector<std::array<double, 3>> out;
    for (auto& m : scene.meshes)
        for (auto& p : m.positions) out.push_back({p[0], p[1], p[2]});
    return out;
}

double largest_coordinate(const std::vector<std::array<double, 3>>& points) {
    double size = 0;
    for (auto& p : points) size = std::max({size, std::fabs(p[0]), std::fabs(p[1]), std::fabs(p[2])});
    return size;
}

double point_set_distance(const std::vector<std::array<double, 3>>& a, const std::vector<std::array<double, 3>>& b) {
    return std::max(farthest_point(a, b), farthest_point(b, a));
}

}  // namespace rigport::test

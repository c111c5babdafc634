// The glTF oracles' C++ side (see gltf_oracle.hpp): runs tests/js/*.mjs with node, output to files.
#include "gltf_oracle.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

namespace rigport::test {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path js_dir() { return fs::path(RIGPORT_SOURCE_DIR) / "tests" / "js"; }

// The first executable `node` on PATH, or empty.
fs::path find_node() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (size_t from = 0; from <= dirs.size();) {
        size_t colon = dirs.find(':', from);
        if (colon == std::string::npos) colon = dirs.size();
        const std::string dir = dirs.substr(from, colon - from);
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "node";  // empty entry = cwd
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        from = colon + 1;
    }
    return {};
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Checks that every package the lock pins is installed at the pinned version.
std::string check_node_modules() {
    const fs::path lock_path = js_dir() / "package-lock.json";
    json lock = json::parse(slurp(lock_path), nullptr, false);
    if (lock.is_discarded() || !lock.contains("packages")) return "cannot read " + lock_path.string();
    for (auto& [key, entry] : lock["packages"].items()) {
        if (key.empty()) continue;  // the root project itself
        const fs::path installed = js_dir() / key / "package.json";
        json pkg = json::parse(slurp(installed), nullptr, false);
        if (pkg.is_discarded()) return "tests/js/" + key + " is not installed";
        if (pkg.value("version", "") != entry.value("version", ""))
            return "tests/js/" + key + " is " + pkg.value("version", "?") + ", the lock pins " +
                   entry.value("version", "?");
    }
    return {};
}

struct NodeRun {
    std::string error;  // empty when node exited 0
    std::string out;
};

// Runs `node SCRIPT ARGS... [< stdin_text]`; stdout and stderr go through files (skin.mjs prints
// megabytes), which are removed afterwards.
NodeRun run_node(const std::string& script, const std::vector<std::string>& args, const std::string* stdin_text) {
    static std::atomic<unsigned> counter{0};
    const fs::path dir = fs::temp_directory_path() / ("rigport-test-" + std::to_string(::getpid())) /
                         ("node-" + std::to_string(counter++));
    fs::create_directories(dir);
    const fs::path out = dir / "stdout", err = dir / "stderr", in = dir / "stdin";
    std::string cmd = quote(find_node().string()) + " " + quote((js_dir() / script).string());
    for (auto& a : args) cmd += " " + quote(a);
    if (stdin_text) {
        std::ofstream(in, std::ios::binary) << *stdin_text;
        cmd += " <" + quote(in.string());
    }
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string());
    const int status = std::system(cmd.c_str());
    NodeRun r;
    r.out = slurp(out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.error = "node " + script + " exited with " + std::to_string(code) + ": " + slurp(err);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return r;
}

}  // namespace

std::string js_oracles_missing() {
    static const std::string reason = []() -> std::string {
        std::string why;
        if (find_node().empty())
            why = "node is not on PATH";
        else
            why = check_node_modules();
        return why.empty() ? why : "glTF oracles unavailable: " + why + "; run scripts/setup.sh";
    }();
    return reason;
}

bool js_oracles_skipped() {
    const char* env = std::getenv("RIGPORT_SKIP_JS");
    return env && std::string(env) == "1";
}

std::string ValidatorReport::summary(size_t max_messages) const {
    std::ostringstream s;
    s << "validator: " << errors << " errors, " << warnings << " warnings, " << infos << " infos, " << hints
      << " hints";
    static const char* const names[] = {"error", "warning", "info", "hint"};
    for (size_t i = 0; i < messages.size() && i < max_messages; ++i) {
        const auto& m = messages[i];
        s << "\n  " << (m.severity >= 0 && m.severity < 4 ? names[m.severity] : "?") << " " << m.code << " "
          << m.pointer << ": " << m.message;
    }
    if (messages.size() > max_messages) s << "\n  ... " << messages.size() - max_messages << " more";
    return s.str();
}

size_t ValidatorReport::count(const std::string& code) const {
    size_t n = 0;
    for (const auto& m : messages) n += m.code == code;
    return n;
}

ValidatorReport validate_gltf(const fs::path& file) {
    ValidatorReport report;
    NodeRun run = run_node("validate.mjs", {file.string()}, nullptr);
    if (!run.error.empty()) {
        report.error = run.error;
        return report;
    }
    json j = json::parse(run.out, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        report.error = "validate.mjs printed no JSON object: " + run.out.substr(0, 200);
        return report;
    }
    report.errors = j.value("numErrors", -1);
    report.warnings = j.value("numWarnings", -1);
    report.infos = j.value("numInfos", -1);
    report.hints = j.value("numHints", -1);
    for (const auto& m : j.value("messages", json::array()))
        report.messages.push_back({m.value("code", ""), m.value("severity", -1), m.value("pointer", ""),
                                   m.value("message", "")});
    return report;
}

const ThreeMesh* ThreeSkinning::find(int mesh_index, int primitive) const {
    for (const auto& m : meshes)
        if (m.mesh_index == mesh_index && m.primitive == primitive) return &m;
    return nullptr;
}

ThreeSkinning three_skin(const fs::path& file, const std::vector<SkinRequest>& requests) {
    ThreeSkinning result;
    json request = json::array();
    for (const auto& r : requests) {
        json animation = nullptr;
        if (!r.animation_name.empty())
            animation = r.animation_name;
        else if (r.animation >= 0)
            animation = r.animation;
        request.push_back({{"animation", animation}, {"time", r.time}});
    }
    const std::string request_text = request.dump();
    NodeRun run = run_node("skin.mjs", {file.string(), "-"}, &request_text);
    if (!run.error.empty()) {
        result.error = run.error;
        return result;
    }
    json j = json::parse(run.out, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        result.error = "skin.mjs printed no JSON object: " + run.out.substr(0, 200);
        return result;
    }
    for (const auto& a : j.value("animations", json::array()))
        result.animations.push_back({a.value("name", ""), a.value("duration", 0.0), a.value("tracks", 0)});
    for (const auto& m : j.value("meshes", json::array())) {
        ThreeMesh mesh;
        mesh.name = m.value("name", "");
        mesh.mesh_index = m.value("meshIndex", -1);
        mesh.primitive = m.value("primitive", -1);
        mesh.node = m.value("node", -1);
        mesh.skinned = m.value("skinned", false);
        mesh.vertex_count = m.value("vertexCount", size_t{0});
        for (const auto& f : m.value("frames", json::array())) {
            ThreeFrame frame;
            frame.animation = f["animation"].is_string() ? f["animation"].get<std::string>() : "";
            frame.time = f.value("time", 0.0);
            const auto& p = f["positions"];
            frame.positions.resize(p.size() / 3);
            for (size_t i = 0; i < frame.positions.size(); ++i)
                for (size_t k = 0; k < 3; ++k) {
                    // JSON has no NaN or infinity: JSON.stringify writes them as null.
                    const auto& v = p[3 * i + k];
                    frame.positions[i][k] = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
                }
            mesh.frames.push_back(std::move(frame));
        }
        result.meshes.push_back(std::move(mesh));
    }
    return result;
}

std::vector<float> times_to_check(const Animation& a) {
    std::vector<float> keys;
    for (const auto& t : a.tracks) keys.insert(keys.end(), t.times.begin(), t.times.end());
    for (const auto& t : a.morph_tracks) keys.insert(keys.end(), t.times.begin(), t.times.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<float> out{0.0f};
    if (!keys.empty()) {
        const size_t mid = keys.size() / 2;
        out.push_back(keys[mid]);
        if (keys.size() >= 2) {
            const size_t i = std::min(mid, keys.size() - 2);
            out.push_back(keys[i] + 0.37f * (keys[i + 1] - keys[i]));
        }
        out.push_back(keys.back());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<SkinRequest> requests_for(const Scene& scene) {
    std::vector<SkinRequest> out{SkinRequest::bind_pose()};
    for (size_t a = 0; a < scene.animations.size(); ++a)
        for (float t : times_to_check(scene.animations[a])) out.push_back(SkinRequest::at(int(a), double(t)));
    return out;
}

}  // namespace rigport::test

// Confinement of the files a model names (docs/cli.md, "Inputs: what rigport will read"): weakly canonical paths on both sides, then
// a component-wise prefix check, so "../", "%2E%2E/" (decoded by the caller), absolute paths and
// symbolic links leading out of the folder are all caught the same way.
#include "io/confine.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

namespace rigport::detail {

namespace fs = std::filesystem;

namespace {

// Absolute, with '..' and the symbolic links of the existing part resolved.
fs::path resolve(const fs::path& p, std::error_code& ec) {
    fs::path abs = fs::absolute(p.empty() ? fs::path(".") : p, ec);
    if (ec) return {};
    fs::path out = fs::weakly_canonical(abs, ec);
    if (ec) return {};
    return out.lexically_normal();
}

// True when every component of root is the same component of p (empty trailing ones ignored).
bool inside(const fs::path& root, const fs::path& p) {
    auto q = p.begin();
    for (auto r = root.begin(); r != root.end(); ++r) {
        if (r->empty()) continue;  // "/a/b/" ends with an empty name
        while (q != p.end() && q->empty()) ++q;
        if (q == p.end() || *r != *q) return false;
        ++q;
    }
    return true;
}

}  // namespace

std::string confinement_root(const std::string& model_path, const std::string& root) {
    if (!root.empty()) return root;
    const fs::path folder = fs::path(model_path).parent_path();
    return folder.empty() ? std::string(".") : folder.string();
}

Expected<std::string> confine(const std::string& target, const std::vector<std::string>& roots, bool allow_outside) {
    std::error_code ec;
    const fs::path resolved = resolve(target, ec);
    if (ec) return make_error(ErrorCode::ReadFailed, fmt::format("cannot resolve '{}': {}", target, ec.message()));
    if (allow_outside) return resolved.string();
    std::string tops;
    for (size_t i = 0; i < roots.size(); ++i) {
        const fs::path top = resolve(roots[i], ec);
        if (ec) return make_error(ErrorCode::ReadFailed, fmt::format("cannot resolve the {} '{}': {}",
                                                                    i == 0 ? "model's folder" : "texture folder", roots[i], ec.message()));
        if (inside(top, resolved)) return resolved.string();
        tops += (i == 0 ? "" : i + 1 == roots.size() ? " and " : ", ") + top.string();
    }
    return make_error(ErrorCode::ReadFailed,
                      fmt::format("resolves to {}, outside {}: refused (a model reads only from its own folder and below{}; "
                                  "--allow-outside lifts this)",
                                  resolved.string(), tops, roots.size() > 1 ? ", a texture also from the --texture-path folders" : ""));
}

Expected<std::string> confine(const std::string& target, const std::string& root, bool allow_outside) {
    return confine(target, std::vector<std::string>{root}, allow_outside);
}

}  // namespace rigport::detail

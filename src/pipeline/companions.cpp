// A mesh file's companions: the animation files beside it that go with it, by stem (MD5) or by a
// model list beside it (SMD's .qc), as docs/cli.md "Companions" states the rule.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "io/confine.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

namespace fs = std::filesystem;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool ends_with_ci(std::string_view name, std::string_view ext) {
    return name.size() > ext.size() && lower(name.substr(name.size() - ext.size())) == ext;
}

// The stem of a file name: without its last extension.
std::string_view stem_of(std::string_view name) {
    const size_t dot = name.rfind('.');
    return dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
}

fs::path folder_path(const std::string& folder) { return folder.empty() ? fs::path(".") : fs::path(folder); }

// The regular files of a folder (links to them too), sorted by name; empty when it cannot be listed.
std::vector<std::string> list_files(const fs::path& folder) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) names.push_back(it->path().filename().string());
    if (ec) return {};
    std::sort(names.begin(), names.end());
    return names;
}

// A mesh file of a format that names its animation files by extension: of its extensions, not that one.
const FormatInfo* stem_format(std::string_view name) {
    const FormatInfo* f = find_format_by_extension(name);
    if (!f || f->animation_extension.empty()) return nullptr;
    return f;
}

// Which animation files go with which mesh file by stem (FormatInfo::animation_extension): each
// animation file to the mesh file of its format whose stem begins its stem, the longest such stem
// winning; letter case ignored, a stem in the same case preferred among equals, then the first name.
std::vector<std::pair<std::string, std::vector<std::string>>> pair_by_stem(const std::vector<std::string>& names) {
    std::map<std::string, std::vector<std::string>> pairs;
    // (format, lower-case stem) -> the mesh files with that stem, by name.
    std::map<std::pair<const FormatInfo*, std::string>, std::vector<std::string>> meshes;
    for (auto& n : names)
        if (const FormatInfo* f = stem_format(n); f && !ends_with_ci(n, f->animation_extension))
            meshes[{f, lower(stem_of(n))}].push_back(n);
    if (meshes.empty()) return {};
    for (auto& n : names) {
        const FormatInfo* f = stem_format(n);
        if (!f || !ends_with_ci(n, f->animation_extension)) continue;
        const std::string_view stem = stem_of(n);
        const std::string key = lower(stem);
        for (size_t length = key.size(); length > 0; --length) {
            auto it = meshes.find({f, key.substr(0, length)});
            if (it == meshes.end()) continue;
            const std::string* owner = &it->second.front();
            for (auto& m : it->second)
                if (stem_of(m) == stem.substr(0, length)) {
                    owner = &m;
                    break;
                }
            pairs[*owner].push_back(n);
            break;
        }
    }
    return {pairs.begin(), pairs.end()};
}

// A name a list gives (relative to its folder) as the file it names: as written when it exists,
// else the file of its folder with that name in another letter case. Empty when neither exists,
// or when it leads outside the list's folder and allow_outside is off.
std::string resolve_listed(const fs::path& folder, const std::string& given, const std::vector<std::string>& beside, bool allow_outside) {
    const fs::path name = fs::path(given).lexically_normal();
    if (name.empty()) return {};
    const fs::path joined = folder / name;  // an absolute name stays as it is, and is outside unless allow_outside
    std::error_code ec;
    if (!detail::confine(joined.string(), folder.string(), allow_outside)) return {};
    if (fs::is_regular_file(joined, ec)) return joined.string();
    // Another letter case: the folder's listing for a name beside the list, else the named folder's.
    const std::string wanted = lower(joined.filename().string());
    const bool here = name.parent_path().empty();
    const std::vector<std::string> listed = here ? std::vector<std::string>{} : list_files(joined.parent_path());
    for (auto& n : here ? beside : listed)
        if (lower(n) == wanted) return (joined.parent_path() / n).string();
    return {};
}

// The path of name beside the mesh: its folder as given joined with it.
std::string beside(const std::string& folder, const std::string& name) { return folder.empty() ? name : (fs::path(folder) / name).string(); }

// A path's identity for matching a mesh against the files a list names: absolute, lexically normal.
std::string identity(const std::string& path) {
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    return (ec ? fs::path(path) : p).lexically_normal().string();
}

}  // namespace

CompanionFolder read_companion_folder(const std::string& folder, const LoadOptions& options) {
    CompanionFolder out;
    out.path = folder;
    if (options.read_file) return out;
    out.names = list_files(folder_path(folder));
    out.by_stem = pair_by_stem(out.names);
    for (auto& n : out.names) {
        for (auto& f : formats()) {
            if (!f.model_list || f.model_list_extension.empty() || !ends_with_ci(n, f.model_list_extension)) continue;
            CompanionFolder::List list;
            list.path = beside(folder, n);
            list.format = &f;
            auto bytes = read_file(list.path, options.max_file_bytes);
            if (!bytes) continue;  // an unreadable list names nothing
            const ModelList named = f.model_list(*bytes);
            auto keep = [&](const std::vector<std::string>& given, std::vector<std::string>& into) {
                std::set<std::string> seen;
                for (auto& g : given) {
                    std::string file = resolve_listed(folder_path(folder), g, out.names, options.allow_outside);
                    if (file.empty() || find_format_by_extension(file) != &f || !seen.insert(identity(file)).second) continue;
                    // Beside the list: named as the folder given joins it ("in/walk.smd", not "in/./walk.smd").
                    if (fs::path(g).lexically_normal().parent_path().empty()) file = beside(folder, fs::path(file).filename().string());
                    into.push_back(std::move(file));
                }
            };
            keep(named.meshes, list.meshes);
            keep(named.animations, list.animations);
            if (!list.meshes.empty()) out.lists.push_back(std::move(list));
            break;
        }
    }
    return out;
}

std::vector<std::string> find_companions(const std::string& path, const CompanionFolder& folder, const LoadOptions& options) {
    std::vector<std::string> found;
    if (!options.companions || options.read_file) return found;
    const FormatInfo* f = find_format_by_extension(path);
    if (!f) return found;
    const std::string name = fs::path(path).filename().string();
    for (auto& [mesh, animations] : folder.by_stem)
        if (mesh == name)
            for (auto& a : animations) found.push_back(beside(folder.path, a));
    const std::string self = identity(path);
    for (auto& list : folder.lists) {
        if (list.format != f) continue;
        if (std::none_of(list.meshes.begin(), list.meshes.end(), [&](const std::string& m) { return identity(m) == self; })) continue;
        for (auto& a : list.animations)
            if (identity(a) != self && std::none_of(found.begin(), found.end(), [&](const std::string& g) { return identity(g) == identity(a); }))
                found.push_back(a);
        if (options.on_read) options.on_read(list.path);
        break;  // the first list naming this mesh
    }
    return found;
}

std::vector<std::string> find_companions(const std::string& path, const LoadOptions& options) {
    if (!options.companions || options.read_file) return {};
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return {};  // a pack member (PACK.jpk:MEMBER), a missing file
    const FormatInfo* f = find_format_by_extension(path);
    if (!f || (f->animation_extension.empty() && !f->model_list)) return {};
    return find_companions(path, read_companion_folder(fs::path(path).parent_path().string(), options), options);
}

}  // namespace rigport

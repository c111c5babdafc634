// JPK packs on disk: extraction that never writes outside its folder and member collection for
// `pack create` (docs/joe.md §7, §9 rules 13-14).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "support/excerpt.hpp"
#include "model/guarded.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"

namespace rigport {

namespace fs = std::filesystem;

namespace {

Error file_error(ErrorCode code, std::string message, const std::string& path) {
    Error e = make_error(code, std::move(message));
    e.path = path;
    return e;
}

// True when `p` lies inside `root` (both already canonical), component by component; empty
// components ("/a/b/" ends with one) are ignored.
bool inside(const fs::path& root, const fs::path& p) {
    auto q = p.begin();
    for (auto r = root.begin(); r != root.end(); ++r) {
        if (r->empty()) continue;
        while (q != p.end() && q->empty()) ++q;
        if (q == p.end() || *r != *q) return false;
        ++q;
    }
    return true;
}

// Where every member would go, checked before anything is created or written (docs/joe.md
// §9 rule 13): each existing parent folder, resolved through its symbolic links, lies inside
// root and is a folder; the target itself is absent or a regular file, never a symbolic link; no
// member is also the folder of another. Escapes are Unsupported (exit 3), other obstacles
// WriteFailed.
Status check_extract_targets(const JpkPack& pack, const fs::path& root) {
    std::set<std::string> files;
    for (auto& e : pack.entries)
        if (!e.overridden) files.insert(e.name);
    std::error_code ec;
    std::set<fs::path> checked;  // folders already resolved: members share a few folders
    for (auto& e : pack.entries) {
        if (e.overridden) continue;
        for (size_t slash = e.name.find('/'); slash != std::string::npos; slash = e.name.find('/', slash + 1))
            if (files.count(e.name.substr(0, slash)))
                return file_error(ErrorCode::Unsupported,
                                  fmt::format("member '{}' is also the folder of member '{}'; nothing extracted", detail::excerpt(e.name.substr(0, slash), 80), detail::excerpt(e.name, 80)),
                                  root.string());
        const fs::path target = root / fs::path(e.name);
        fs::path folder = root;
        for (const fs::path& part : fs::path(e.name).parent_path()) {
            folder /= part;
            if (checked.count(folder)) continue;
            const fs::file_status st = fs::symlink_status(folder, ec);
            if (!fs::exists(st)) break;  // created later, inside the last existing folder
            const fs::path resolved = fs::canonical(folder, ec);
            if (ec || !inside(root, resolved))
                return file_error(ErrorCode::Unsupported,
                                  fmt::format("member '{}' would be written outside {} (through {}); nothing extracted", detail::excerpt(e.name, 80),
                                              root.string(), folder.string()),
                                  target.string());
            if (!fs::is_directory(resolved, ec))
                return file_error(ErrorCode::WriteFailed, fmt::format("member '{}': {} is not a folder; nothing extracted", detail::excerpt(e.name, 80), folder.string()),
                                  target.string());
            checked.insert(folder);
        }
        const fs::file_status st = fs::symlink_status(target, ec);
        if (fs::is_symlink(st))
            return file_error(ErrorCode::Unsupported,
                              fmt::format("member '{}': the target is a symbolic link; not followed, nothing extracted", detail::excerpt(e.name, 80)),
                              target.string());
        if (fs::exists(st) && !fs::is_regular_file(st))
            return file_error(ErrorCode::WriteFailed, fmt::format("member '{}': the target is not a regular file; nothing extracted", detail::excerpt(e.name, 80)),
                              target.string());
    }
    return Ok{};
}

}  // namespace

static Expected<std::vector<std::string>> extract_jpk_unguarded(std::span<const uint8_t> pack_bytes, const std::string& dir,
                                                                const WriteOptions& options) {
    auto pack = parse_jpk(pack_bytes);
    if (!pack) return pack.error();
    // Every name is checked before anything is written.
    for (auto& e : pack->entries)
        if (!jpk_name_is_safe(e.name))
            return make_error(ErrorCode::Unsupported,
                              fmt::format("member '{}': not a safe relative name ('..', absolute or drive paths, backslashes); "
                                          "nothing extracted", detail::excerpt(e.name, 80)),
                              e.fat_offset + 8);
    std::error_code ec;
    fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    if (ec) return file_error(ErrorCode::WriteFailed, fmt::format("cannot resolve the folder: {}", ec.message()), dir);
    if (!root.has_filename()) root = root.parent_path();  // "out/"
    if (fs::exists(root, ec) && !fs::is_directory(root, ec)) return file_error(ErrorCode::WriteFailed, "not a folder", dir);
    if (auto st = check_extract_targets(*pack, root); !st) return st.error();
    // What every write checks (a member that would replace the pack itself, a read-only file),
    // for every member before the first one is written.
    // A member whose folder does not exist yet replaces nothing.
    for (auto& e : pack->entries) {
        const fs::path target = root / fs::path(e.name);
        if (!e.overridden && fs::is_directory(target.parent_path(), ec))
            if (auto st = check_output(target.string(), options); !st) return st.error();
    }
    fs::create_directories(root, ec);
    if (ec) return file_error(ErrorCode::WriteFailed, fmt::format("cannot create the folder: {}", ec.message()), dir);
    // Every member is staged, then all are made durable in one step and renamed (WriteGroup): a
    // member that fails replaces nothing, and the extract pays one sync, not one per member.
    std::vector<std::string> written;
    WriteGroup group;
    std::set<fs::path> made;  // folders created (or found) and checked inside root
    for (auto& e : pack->entries) {
        if (e.overridden) continue;  // VDrift reads the last entry of a name
        const fs::path target = root / fs::path(e.name);
        if (!made.count(target.parent_path())) {
            fs::create_directories(target.parent_path(), ec);
            if (ec)
                return file_error(ErrorCode::WriteFailed, fmt::format("cannot create the folder: {}", ec.message()), target.parent_path().string());
            // Checked again after creating it, in case the folder changed since check_extract_targets.
            const fs::path parent = fs::canonical(target.parent_path(), ec);
            if (ec || !inside(root, parent))
                return file_error(ErrorCode::Unsupported, fmt::format("member '{}' would be written outside {}", detail::excerpt(e.name, 80), root.string()),
                                  target.string());
            made.insert(target.parent_path());
        }
        if (fs::is_symlink(target, ec))
            return file_error(ErrorCode::Unsupported, fmt::format("member '{}': the target is a symbolic link; not followed", detail::excerpt(e.name, 80)),
                              target.string());
        if (auto st = group.stage(target.string(), jpk_member_bytes(pack_bytes, e), options); !st) return st.error();
        written.push_back(e.name);
    }
    // And once more just before the renames, which go through the same folder names.
    for (auto& folder : made) {
        const fs::path resolved = fs::canonical(folder, ec);
        if (ec || !inside(root, resolved))
            return file_error(ErrorCode::Unsupported, fmt::format("{} now leads outside {}; nothing extracted", folder.string(), root.string()),
                              folder.string());
    }
    if (auto st = group.commit(); !st) return st.error();
    return written;
}

Expected<std::vector<std::string>> extract_jpk(std::span<const uint8_t> pack_bytes, const std::string& dir, const WriteOptions& options) {
    return detail::guarded(dir, "extracting", [&] { return extract_jpk_unguarded(pack_bytes, dir, options); });
}

static Expected<std::vector<JpkMember>> collect_jpk_members_unguarded(const std::string& dir, uint64_t max_bytes) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return file_error(ErrorCode::NotFound, "not a folder", dir);
    std::vector<std::string> names;
    fs::recursive_directory_iterator it(dir, ec), end;
    if (ec) return file_error(ErrorCode::ReadFailed, fmt::format("cannot list the folder: {}", ec.message()), dir);
    for (; it != end; it.increment(ec)) {
        if (ec) return file_error(ErrorCode::ReadFailed, fmt::format("cannot list the folder: {}", ec.message()), dir);
        if (it->is_directory(ec)) continue;
        if (!it->is_regular_file(ec))
            return file_error(ErrorCode::Unsupported, "neither a regular file nor a folder: cannot be packed", it->path().string());
        names.push_back(fs::relative(it->path(), dir, ec).generic_string());
        if (ec) return file_error(ErrorCode::ReadFailed, ec.message(), it->path().string());
    }
    std::sort(names.begin(), names.end());  // deterministic member order
    std::vector<JpkMember> members;
    for (auto& name : names) {
        if (!jpk_name_is_safe(name))
            return file_error(ErrorCode::Unsupported, fmt::format("'{}' is not a name a JPK can hold safely", name), dir);
        auto bytes = read_file((fs::path(dir) / name).string(), max_bytes);
        if (!bytes) return bytes.error();
        members.push_back({name, std::move(*bytes)});
    }
    return members;
}

Expected<std::vector<JpkMember>> collect_jpk_members(const std::string& dir, uint64_t max_bytes) {
    return detail::guarded(dir, "reading", [&] { return collect_jpk_members_unguarded(dir, max_bytes); });
}

}  // namespace rigport

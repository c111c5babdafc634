// JPK packs on disk: extraction that never writes outside its folder, member collection for
// `pack create`, and "PACK.jpk:MEMBER" inputs (formats/joe.md §7, §9 rules 13-14).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

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

// True when `p` lies inside `root` (both already canonical).
bool inside(const fs::path& root, const fs::path& p) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q)
        if (q == p.end() || *r != *q) return false;
    return true;
}

}  // namespace

Expected<std::vector<std::string>> extract_jpk(std::span<const uint8_t> pack_bytes, const std::string& dir) {
    auto pack = parse_jpk(pack_bytes);
    if (!pack) return pack.error();
    // Every name is checked before anything is written.
    for (auto& e : pack->entries)
        if (!jpk_name_is_safe(e.name))
            return make_error(ErrorCode::Unsupported,
                              fmt::format("member '{}': not a safe relative name ('..', absolute or drive paths, backslashes); "
                                          "nothing extracted", e.name),
                              e.fat_offset + 8);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return file_error(ErrorCode::WriteFailed, fmt::format("cannot create the folder: {}", ec.message()), dir);
    const fs::path root = fs::canonical(dir, ec);
    if (ec) return file_error(ErrorCode::WriteFailed, fmt::format("cannot resolve the folder: {}", ec.message()), dir);
    std::vector<std::string> written;
    for (auto& e : pack->entries) {
        if (e.overridden) continue;  // VDrift reads the last entry of a name
        const fs::path target = root / fs::path(e.name);
        fs::create_directories(target.parent_path(), ec);
        if (ec) return file_error(ErrorCode::WriteFailed, fmt::format("cannot create the folder: {}", ec.message()), target.parent_path().string());
        // A subfolder that is a symlink could lead elsewhere: the resolved folder must stay inside.
        const fs::path parent = fs::canonical(target.parent_path(), ec);
        if (ec || !inside(root, parent))
            return file_error(ErrorCode::WriteFailed, fmt::format("member '{}' would be written outside {}", e.name, root.string()),
                              target.string());
        if (fs::is_symlink(target, ec))
            return file_error(ErrorCode::WriteFailed, fmt::format("member '{}': the target is a symbolic link; not followed", e.name),
                              target.string());
        if (auto st = write_file_atomic(target.string(), jpk_member_bytes(pack_bytes, e)); !st) return st.error();
        written.push_back(e.name);
    }
    return written;
}

Expected<std::vector<JpkMember>> collect_jpk_members(const std::string& dir, uint64_t max_bytes) {
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

Expected<std::vector<uint8_t>> read_input(const std::string& path, uint64_t max_bytes) {
    std::error_code ec;
    auto split = split_jpk_member_path(path);
    if (!split || fs::exists(path, ec)) return read_file(path, max_bytes);
    const auto& [pack_path, member] = *split;
    auto bytes = read_file(pack_path, max_bytes);
    if (!bytes) return bytes.error();
    auto pack = parse_jpk(*bytes);
    if (!pack) {
        Error e = pack.error();
        if (e.path.empty()) e.path = pack_path;
        return e;
    }
    const JpkEntry* entry = find_jpk_member(*pack, member);
    if (!entry) return file_error(ErrorCode::NotFound, fmt::format("no member '{}' in the pack ({} entries)", member, pack->entries.size()), pack_path);
    auto span = jpk_member_bytes(*bytes, *entry);
    return std::vector<uint8_t>(span.begin(), span.end());
}

}  // namespace rigport

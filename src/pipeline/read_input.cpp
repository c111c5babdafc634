// What an input path reads (rigport/io.hpp read_input): a file, or one member of an archive named
// as ARCHIVE:MEMBER when no file has that name. Archives are the registry's archive rows (a JPK
// pack, whose folder src/formats/joe/ reads it): nothing here knows one (docs/architecture.md).
#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <system_error>

#include "model/guarded.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

Error file_error(ErrorCode code, std::string message, const std::string& path) {
    Error e = make_error(code, std::move(message));
    e.path = path;
    return e;
}

// A file by path, or an archive's member for ARCHIVE:MEMBER when no file has that name; files
// come from `storage` (LoadOptions::read_file) when given, else from the disk.
Expected<std::vector<uint8_t>> read_input_unguarded(const std::string& path, uint64_t max_bytes, const std::function<void(const std::string&)>& on_read,
                                                    const std::function<Expected<std::vector<uint8_t>>(const std::string&)>& storage) {
    auto fetch = [&](const std::string& p) -> Expected<std::vector<uint8_t>> {
        if (!storage) return read_file(p, max_bytes);
        auto bytes = storage(p);
        if (bytes && bytes->size() > max_bytes) return file_error(ErrorCode::LimitExceeded, fmt::format("{} bytes, the limit is {}", bytes->size(), max_bytes), p);
        return bytes;
    };
    const ArchiveInfo* archive = nullptr;
    std::optional<std::pair<std::string, std::string>> split;
    for (auto& a : archives())
        if (a.split_member_path && a.read_member && (split = a.split_member_path(path))) {
            archive = &a;
            break;
        }
    std::error_code ec;
    if (!split || (!storage && std::filesystem::exists(path, ec))) {
        auto bytes = fetch(path);
        if (bytes && on_read) on_read(path);
        return bytes;
    }
    if (storage) {  // a storage file may be called ARCHIVE:MEMBER itself
        auto whole = fetch(path);
        if (whole || whole.error().code != ErrorCode::NotFound) {
            if (whole && on_read) on_read(path);
            return whole;
        }
    }
    const auto& [archive_path, member] = *split;
    auto bytes = fetch(archive_path);
    if (!bytes) return bytes.error();
    if (on_read) on_read(archive_path);
    auto member_bytes = archive->read_member(*bytes, member);
    if (!member_bytes) {
        Error e = member_bytes.error();
        if (e.path.empty()) e.path = archive_path;
        return e;
    }
    return member_bytes;
}

}  // namespace

Expected<std::vector<uint8_t>> read_input(const std::string& path, uint64_t max_bytes, const std::function<void(const std::string&)>& on_read) {
    return detail::guarded(path, "reading", [&] { return read_input_unguarded(path, max_bytes, on_read, nullptr); });
}

Expected<std::vector<uint8_t>> read_input(const std::string& path, const LoadOptions& options) {
    return detail::guarded(path, "reading", [&] { return read_input_unguarded(path, options.max_file_bytes, options.on_read, options.read_file); });
}

}  // namespace rigport

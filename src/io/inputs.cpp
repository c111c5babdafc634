// What an input path reads, looked at on disk: the pack behind "PACK.jpk:MEMBER", a JPK pack's
// listing (rigport/convert.hpp input_file, rigport/report.hpp read_pack_listing).
#include <cstring>
#include <filesystem>
#include <fstream>

#include "rigport/convert.hpp"
#include "rigport/jpk.hpp"
#include "rigport/report.hpp"

namespace rigport {

std::string input_file(const std::string& path) {
    std::error_code ec;
    if (auto split = split_jpk_member_path(path); split && !std::filesystem::exists(path, ec)) return split->first;
    return path;
}

std::optional<Expected<JpkPack>> read_pack_listing(const std::string& path) {
    // The signature first: a model is not read twice to find it is not a pack. Only a regular
    // file is opened (a named pipe would block).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    char head[sizeof(jpk_signature)] = {};
    std::ifstream(path, std::ios::binary).read(head, sizeof(head));
    if (std::memcmp(head, jpk_signature, sizeof(head)) != 0) return std::nullopt;
    auto bytes = read_file(path);
    if (!bytes || !detect_jpk(*bytes)) return std::nullopt;
    auto pack = parse_jpk(*bytes);
    if (!pack) pack.error().path = path;
    return pack;
}

}  // namespace rigport

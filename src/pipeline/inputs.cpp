// What an input path reads, looked at on disk: the archive behind "ARCHIVE:MEMBER"
// (rigport/convert.hpp input_file), as the registry's archive rows split it.
#include <filesystem>

#include "rigport/convert.hpp"
#include "rigport/formats.hpp"

namespace rigport {

std::string input_file(const std::string& path) {
    std::error_code ec;
    if (auto split = split_archive_member_path(path); split && !std::filesystem::exists(path, ec)) return split->first;
    return path;
}

}  // namespace rigport

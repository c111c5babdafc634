// Atomic replacement, first step: a file written under a temporary name beside its target. The
// WriteGroup (io.hpp) makes its staged files durable in one step, then renames them into place.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rigport/error.hpp"

namespace rigport::detail {

// A file written under a temporary name beside its target: not yet synced, not yet in place.
struct StagedFile {
    std::string temporary, path;
};

// Writes bytes to "PATH.rigport-tmp-PID-XXXXXXXX" (keeping the permission bits of a file it will
// replace), without fsync; on failure nothing is left behind.
Expected<StagedFile> stage_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace rigport::detail

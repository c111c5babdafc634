// Atomic replacement in two steps, so several files (a .gltf and its .bin) are all written out
// before any of them replaces what was there.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rigport/error.hpp"

namespace rigport::detail {

// A file written and flushed under a temporary name beside its target, not yet in place.
struct StagedFile {
    std::string temporary, path;
};

Expected<StagedFile> stage_file(const std::string& path, std::span<const uint8_t> bytes);
// Renames the temporary over the target (removing the temporary if that fails).
Status commit_file(const StagedFile& file);
// Removes the temporary; the target is untouched.
void discard_file(const StagedFile& file);

}  // namespace rigport::detail

// What the batch's files share inside the library: path identities, and which model writes which
// file (docs/library.md "Batch").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "rigport/batch.hpp"

namespace rigport::pipeline {

// A path's identity for comparisons: absolute, lexically normal; symlinks resolved where it exists.
std::string path_identity(const std::string& path);

// Two independent 64-bit hashes and the size of a side file's bytes: equal digests mean equal
// contents (a chance collision of both would need ~2^64 files).
struct Digest {
    uint64_t a = 0, b = 0, size = 0;
    bool operator==(const Digest&) const = default;
};

// Which model writes which file: the main outputs are decided up front; side files (a .gltf's
// .bin, images, a .cfg's parts) are claimed when written, so no model replaces another's file,
// the report or any file of the inputs.
class Claims {
public:
    Claims(const BatchPlan& plan, const BatchOptions& options);

    // A side file another model also writes with the same bytes (a texture two .glb files embed
    // under one name) is shared: both write it, identically. Different bytes are a collision.
    Status claim(size_t model, const std::vector<std::string>& paths, const std::vector<std::span<const uint8_t>>& contents);

private:
    static constexpr size_t report_owner = SIZE_MAX;
    const BatchPlan& plan_;
    std::string report_name_;
    std::mutex mutex_;
    std::map<std::string, size_t> owner_;
    std::map<std::string, Digest> side_digest_;  // a side file's contents, by identity
    std::map<std::pair<dev_t, ino_t>, std::string> inputs_;
};

}  // namespace rigport::pipeline

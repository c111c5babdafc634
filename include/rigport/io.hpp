// Loading and saving scenes: the library's front door. Only this layer touches the filesystem.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Every default is correct; the limits bound what hostile input can make us allocate.
struct LoadOptions {
    std::string format;                     // registry name; empty = detect from content, then extension
    uint64_t max_file_bytes = 1ull << 31;   // refuse larger inputs
    uint64_t max_elements = 1ull << 26;     // any single count (vertices, triangles, keys ...)
    uint64_t max_frames = 1ull << 20;       // animation frames of a frame-based file
};

struct SaveOptions {
    std::string format;  // registry name; empty = from the output extension
    // IQM: write joints (with names) even for a file without meshes (the compiler's -j).
    bool force_joints = false;
    // Where a writer reports what the target format cannot hold (null = not reported).
    Warnings* warnings = nullptr;
};

Expected<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_bytes = 1ull << 31);

// Writes to a temporary file beside path, then renames it over path: a failure never leaves a
// partial file and never destroys the old one.
Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

Expected<Scene> load(const std::string& path, const LoadOptions& options = {});
// path is used for format detection by extension and in error messages only.
Expected<Scene> load_bytes(std::span<const uint8_t> bytes, const std::string& path,
                           const LoadOptions& options = {});

Expected<std::vector<uint8_t>> save_bytes(const Scene& scene, const std::string& path,
                                          const SaveOptions& options = {});
Status save(const Scene& scene, const std::string& path, const SaveOptions& options = {});

}  // namespace rigport

// IQE (Inter-Quake Export, docs/iqe.md §1; iqe.txt 2010-04-20 + `vx` 2012-01-11): the parsed document.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "process/compiler_source.hpp"
#include "process/smooth_normals.hpp"
#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport::iqe {

// What the text holds, as a scene plus what only the compiler needs.
struct Document {
    // Meshes in first-seen order of (mesh name, material); repeated blocks of the same pair are
    // merged with every triangle kept (bug 2). Vertices are the file's own, unwelded; faces
    // resolved to mesh-local indices (fa absolute, fm relative, negatives from the end, polygons
    // fanned). Joints parent-first with their bind pose (missing pq = identity); animations with
    // one key per frame at frame / framerate. Conventions in meta as for IQM (Z up, clockwise).
    Scene scene;
    std::vector<MeshSmoothing> smoothing;  // one per scene mesh
    bool has_normals = false;              // any `vn` line: no normal generation at all
    bool has_tangents = false;             // any `vx` line
};

bool detect(std::span<const uint8_t> bytes);  // "# Inter-Quake Export" in the first line
Expected<Document> parse(std::span<const uint8_t> bytes, const LoadOptions& options);
// parse() and its scene, unprocessed (no normals generated): what `load` gives.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// parse() as the compiler wants it (FormatInfo::read_compiler_source): the scene, its smoothing
// groups and whether it has normals, the warnings naming nothing yet (the caller sets the path).
Expected<CompilerSource> read_compiler_source(std::span<const uint8_t> bytes, const LoadOptions& options);
// Tests only: parse in chunks of `bytes` (0 = the default, 512 KiB) and split files of two chunks
// or more, so that small fixtures take the parallel path; the result must not change.
void set_chunk_bytes_for_testing(size_t bytes);
// Everything the scene holds that IQE can express, so IQM -> IQE -> IQM keeps the data.
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options);

}  // namespace rigport::iqe

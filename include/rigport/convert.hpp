// One model converted as `rigport convert` does it: compile, images, save, safe write. The one code
// path behind the CLI's convert, batch and view, and the Python module's convert().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rigport/compile.hpp"
#include "rigport/error.hpp"
#include "rigport/formats.hpp"
#include "rigport/images.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/targets.hpp"

namespace rigport {

// The output format: format_name, else the extension of path. Refused (InvalidArgument) when
// neither names a format, or when path's extension is one a registered format claims and the
// format named does not (`--format iqm -o x.glb`); a format without a writer is Unsupported.
// Its messages name the caller's options as `names` says: the library's words by default, the
// CLI's flags ("-o", "--format", "rigport formats") or Python's keywords when they call it.
struct OutputFormatNames {
    std::string output = "output";
    std::string format = "format";
    std::string listing = "formats()";  // where the format names are listed
};
Expected<const FormatInfo*> find_output_format(const std::string& path, const std::string& format_name, const OutputFormatNames& names = {});

// The file an input path reads: the pack of a "PACK.jpk:MEMBER" that names no file itself.
std::string input_file(const std::string& path);

// The content-addressed cache of conversions (docs/scale.md): a model whose files, options and
// rigport version were converted before has its outputs written from the entry instead of being
// converted again, the same bytes through the same safe write.
struct CacheOptions {
    std::string dir;         // the cache folder (created if missing); empty = no cache
    uint64_t max_bytes = 0;  // after storing an entry, the least recently used go until this fits; 0 = no limit
};

// What convert's options decided, already checked (every value valid).
// A field that changes the output is part of the cache's key: src/pipeline/cache.cpp
// (options_text) names each one, and docs/scale.md "The key" lists them.
struct ConvertOptions {
    const FormatInfo* format = nullptr;  // the output format (has a writer)
    LoadOptions load;                    // --allow-outside, --allow-missing
    TransformOptions transform;          // -s, -r, -t
    std::optional<ClipEnd> clip_end;     // --clip-end; unset = what the output format wants
    bool force_joints = false;           // --forcejoints
    bool fix_normals = false;            // --fix-normals
    bool force = false;                  // --force
    GltfOptions::AxisMode axis = GltfOptions::AxisMode::Bake;
    std::string unit;                    // --unit: SaveOptions::unit (docs/units.md)
    bool loop_key = false;
    ImageOptions images;                 // --images, --convert-images
    Cal3dOptions cal3d;                  // --cal3d-dialect, --cal3d-binary
    Md3Options md3;                      // --md3-tags
    FbxOptions fbx;                      // --fbx-ascii, --fbx-version
    GltfCompression gltf_compression;    // --compress, --compress-level, --position-bits
    uint32_t threads = 0;                // --threads: one model's compile and write; 0 = every core
    // --target: the fixes the engine's profile allows, applied before writing, and a model that
    // still breaks a limit refused (docs/targets.md "Fixing"). Null = none.
    const TargetProfile* target = nullptr;
    // --max-error: refuse when a fix moves a vertex by more than this fraction of the model's
    // size (at rest or at any frame); < 0 = no limit.
    double max_error = -1;
    CacheOptions cache;                  // --cache, --cache-max (docs/scale.md)
};

// One model to convert: its inputs (as convert's positional words give them) and where it goes.
struct ConvertJob {
    std::vector<CompileInput> inputs;
    std::string output;
    // convert checks the output against the named inputs before reading anything; batch creates
    // the output's folder only when there is something to write, so it checks just before writing.
    bool check_output_first = true;
    // Set: the output is staged into this group instead of written (not for standard output); the
    // caller commits it, with other models' groups, in one durability step (batch).
    WriteGroup* stage_into = nullptr;
    // Set: nothing is written; the output stays in ConvertResult::output (`rigport view` embeds it).
    bool in_memory = false;
};

struct ConvertCounts {
    uint64_t meshes = 0, vertices = 0, triangles = 0, joints = 0, animations = 0;
};

struct ConvertResult {
    std::optional<Error> error;     // set when the model failed
    // The error came from the output side (checking, saving or writing it): the CLI's exit code
    // for it is the write one (exit 4 for WriteFailed), else the read one.
    bool write_error = false;
    bool failed_writing = false;    // the error came from checking or writing the output
    Warnings read_warnings;         // compile()'s
    std::vector<std::string> normal_swaps;  // --fix-normals: one message per mesh swapped
    std::vector<std::string> target_fixes;  // --target: one message per fix, with what it moved
    Warnings write_warnings;        // images and the writer's; shown only when the write succeeded
    std::vector<std::string> inputs;   // every file read: the inputs and every file they named
    std::vector<std::string> companions;  // the files beside a one-file model read with it (add_companions)
    std::vector<std::string> outputs;  // every file written (main output first)
    std::string written_format;     // Output::format: the registry name or the variant written
    std::vector<std::string> write_notes;  // Output::notes: what the writer chose (compressed glTF's bounds)
    uint64_t bytes = 0;             // of the main output
    ConvertCounts counts;
    double seconds = 0;
    std::optional<Output> output;   // ConvertJob::in_memory: what would have been written
    // With a cache: true when the outputs came from a cache entry (nothing was converted), false
    // when converted (and stored); unset without a cache or when it could not be used.
    std::optional<bool> cached;
    // The cache could not store the entry (a full disk, a folder not writable): the outputs are
    // written all the same; the CLI prints it as a warning.
    std::optional<Error> cache_error;

    bool ok() const { return !error.has_value(); }
    // The warnings `convert` prints for this result, in its order.
    size_t warning_count() const;
};

ConvertResult run_conversion(const ConvertJob& job, const ConvertOptions& options);

// A model as a JSON record (`convert --json`, `batch --report`; indented by 2): input, inputs,
// companions, status, cached (only with a cache), outputs, counts (null when failed), warnings
// [{code, message, path, count}], error (null when converted), seconds.
std::string conversion_json(const std::string& input, const ConvertResult& result);

}  // namespace rigport

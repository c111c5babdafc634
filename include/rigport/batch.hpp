// Many models, one output folder: plan (which files are models, where each goes), run (each
// converted as run_conversion does it, in parallel), and the Ninja build file and depfiles that do
// the same work incrementally (docs/library.md "Batch", docs/cli.md "batch").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rigport/convert.hpp"
#include "rigport/error.hpp"
#include "rigport/formats.hpp"

namespace rigport {

// How errors name the options: by default these fields' own names; a caller with words of its own
// for them (the CLI's flags) sets them, and every message then speaks its words.
struct BatchOptionNames {
    std::string out_dir = "out_dir";
    std::string format = "format";
    std::string unit = "unit";
    std::string texture_paths = "texture_paths";
    std::string report_file = "report_file";
    std::string build_file = "build_file";
    std::string follow_links = "follow_links";
    std::string listing = "formats()";  // where the format names are listed
};

struct BatchOptions {
    std::vector<std::string> inputs;  // model files (PACK.jpk:MEMBER too) and folders, in order
    std::string out_dir;              // created if missing (its parent must exist); folders mirrored below it
    std::string format;               // the output format's registry name, any letter case
    bool follow_links = false;        // follow symbolic links that lead out of an input folder
    bool companions = true;           // a mesh file and its companions are one model (else each file is one)
    // Models converted at once, on the library's thread pool: at most its threads (one per core,
    // the caller's included); 0 = all of them.
    uint32_t jobs = 0;
    // Every model converted with these (format and threads are the batch's own). The unit and the
    // texture paths are checked by plan_batch; the other values are taken as checked.
    ConvertOptions convert;
    // Files the caller writes itself beside the batch: the report and the build file. No output
    // may be either, nor may they be the same file or any input.
    std::string report_file;
    std::string build_file;  // ninja_text()'s destination; also claims each output's ".d"
    BatchOptionNames names;
    // Indices of the plan's jobs to convert; empty = all. A share of one plan run on a cluster's
    // workers (the Python module's batch with a Dask client, docs/scale.md): the models left out
    // stay empty in the report and are not counted. Claims on side files are then checked among
    // the models of one share only.
    std::vector<size_t> only;
};

// One model: a file (a .cfg with its members, a mesh file with its companions).
struct BatchJob {
    std::string input;                    // as found: the folder given joined with the path below it
    std::vector<std::string> companions;  // files read with it (find_companions), not models of their own
    std::string output;                   // out_dir / mirrored folders / stem + the format's first extension
    std::optional<Error> refused;         // another model writes its output: it is not converted
};

// A file found that is not converted: why, as "skipped PATH: REASON" says it.
struct BatchSkip {
    std::string path;
    std::string reason;
};

struct BatchPlan {
    const FormatInfo* format = nullptr;
    std::vector<BatchJob> jobs;          // in a deterministic order (inputs as given, folders sorted)
    std::vector<BatchSkip> skipped;      // archives, links not followed, unreadable folders
    std::vector<std::string> claimed;    // files found that another model reads (.cfg members, companions)
    std::vector<std::string> protect;    // every file found in the inputs: no output replaces one
};

// Walks the inputs (folders recursively, sorted by name; out_dir itself skipped) for files whose
// extension a registered format reads; a file given twice is one model; two models for one
// output: the first writes it, the other is refused. Checks the options first (format, unit,
// texture paths, out_dir): InvalidArgument naming the option, Unsupported for a format without
// a writer. Reads only what grouping needs (.cfg files, companion lists); writes nothing.
Expected<BatchPlan> plan_batch(const BatchOptions& options);

// Refuses a plan with no models; creates out_dir; checks report_file and build_file against
// every input and output. run_batch and ninja_text call it first (calling it again is harmless).
Status prepare_batch(const BatchPlan& plan, const BatchOptions& options);

// The worst failure of a model or of a batch: write over unsupported over read.
enum class FailureClass : uint8_t { None, Read, Unsupported, Write };

struct BatchModel {
    ConvertResult result;                        // as run_conversion reports it (companions: the plan's)
    FailureClass failure = FailureClass::None;   // None when converted
};

// What the progress callback hears, one call at a time (calls are serialized, from any thread).
struct BatchEvent {
    enum class Kind : uint8_t { Skipped, Finished } kind = Kind::Finished;
    const BatchSkip* skip = nullptr;      // Skipped: a plan's skipped file, before any model
    size_t job = 0;                       // Finished: the job's index in the plan
    const BatchJob* model = nullptr;      // Finished
    const BatchModel* result = nullptr;   // Finished: its files in place and durable when converted
    size_t done = 0, total = 0;           // Finished: models finished so far (this one included), of total
};
using BatchProgress = std::function<void(const BatchEvent&)>;

struct BatchReport {
    std::vector<BatchModel> models;  // one per plan job, in plan order
    size_t converted = 0, failed = 0, warnings = 0;
    FailureClass failure = FailureClass::None;  // the worst of the models'
};

// Converts every job (keep-going: a failed model never stops the others), each exactly as
// run_conversion converts it alone; outputs are staged and made durable together every 256
// files. Fails only when prepare_batch does; model failures are in the report.
Expected<BatchReport> run_batch(const BatchPlan& plan, const BatchOptions& options, const BatchProgress& progress = nullptr);

// Evicts the cache's least recently used entries down to cache.max_bytes now (0: nothing goes).
// A conversion storing an entry sweeps only now and then (docs/scale.md "Eviction"); run_batch
// calls this at its end (unless BatchOptions::only names a share), and a caller spreading one
// batch over several processes calls it once they are all done.
void trim_cache(const CacheOptions& cache);

// The class of a converted model's failure (None when it converted).
FailureClass failure_class(const ConvertResult& result);

// ---- build files (src/pipeline/batch_ninja.cpp, build_files.cpp; docs/cli.md "Build systems") -
struct NinjaFile {
    std::string text;
    size_t edges = 0;  // models in it (refused jobs are left out)
};
// A Ninja file with one edge per model, running `rigport_binary convert INPUT -o OUTPUT --format F`
// with the unit and texture paths of options: any other convert option set is refused
// (InvalidArgument), as the commands would not pass it on. Calls prepare_batch; a path with a line
// break is refused (InvalidArgument).
Expected<NinjaFile> ninja_text(const BatchPlan& plan, const BatchOptions& options, const std::string& rigport_binary);

// A Make-style dependency file "TARGET: \\\n  DEP \\\n  DEP\n", escaped so GNU Make and Ninja's
// depfile reader both read back exactly these names; a name they cannot both read is a
// WriteFailed error naming it, with depfile as the error's path.
Expected<std::string> make_depfile(const std::string& depfile, const std::string& target, const std::vector<std::string>& dependencies);
// Each file as a line "rigport-dep: PATH" for Ninja's deps = msvc (msvc_deps_prefix below); a
// name Ninja would drop or misread is a WriteFailed error naming it.
inline constexpr const char* ninja_deps_prefix = "rigport-dep:";
Expected<std::string> ninja_deps_lines(const std::vector<std::string>& files);
// Ninja's deps = msvc takes a path containing "program files" or "microsoft visual studio" (any
// case) for a compiler's system header and does not record it.
bool ninja_msvc_drops(const std::string& path);

}  // namespace rigport

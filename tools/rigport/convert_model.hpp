// One model converted as `rigport convert` does it (rigport/convert.hpp, the library's one code
// path behind `convert`, `batch` and `view`), with the CLI's exit codes, depfile and records.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "rigport/batch.hpp"
#include "rigport/convert.hpp"

namespace rigport::cli {

// The library's conversion (rigport/convert.hpp) under the CLI's names, plus convert's exit code.
using ModelOptions = ConvertOptions;
using ModelJob = ConvertJob;
using ModelCounts = ConvertCounts;

struct ModelResult : ConvertResult {
    int exit_code = exit_ok;  // convert's exit code for it
};

ModelResult convert_model(const ModelJob& job, const ModelOptions& options);

// A path's identity for comparing two paths the user gave: absolute, lexically normal, symlinks
// resolved where it exists.
std::string path_identity(const std::string& path);

// make_depfile, ninja_deps_lines, ninja_msvc_drops: rigport/batch.hpp (the build files).

// How many warning lines a model's conversion prints (docs/cli.md "Warnings").
struct WarningLimit {
    bool every_warning = false;  // -v: one line per warning, none folded, no limit
    size_t max_lines = 5;        // else warning_lines() folded, and at most this many lines in all
    std::string_view hint = "-v to list them";  // how to see the rest: "Warning: N more warnings (HINT)"
};

// Warnings as convert prints them: "Warning: PATH: CODE: MESSAGE" lines (read, swaps, then, on
// success, write), each through terminal_text(), appended to text; folded and limited as `limit`
// says, the last line then counting the warnings not shown.
void append_warnings(const ConvertResult& result, std::string& text, const WarningLimit& limit = {});

// A model as a JSON record (`convert --json`, `batch --report`): input, inputs, status, outputs,
// counts (null when failed), warnings [{code, message, path, count}], error (null when converted),
// seconds.
Json model_record(const std::string& input, const ModelResult& result);

}  // namespace rigport::cli

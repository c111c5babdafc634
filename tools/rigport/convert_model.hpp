// One model converted as `rigport convert` does it (rigport/convert.hpp, the library's one code
// path behind `convert`, `batch` and `view`), with the CLI's exit codes, depfile and records.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
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

// A Make-style dependency file (what gcc -MD writes, which Make and Ninja's `deps = gcc` read):
// "TARGET: DEP DEP ...\n", with spaces, '#', '\\' before them and '$' escaped as they expect.
std::string make_depfile(const std::string& target, const std::vector<std::string>& dependencies);

// Warnings as convert prints them: "Warning: PATH: CODE: MESSAGE" lines (read, swaps, then, on
// success, write), each through terminal_text(), appended to text.
void append_warnings(const ModelResult& result, std::string& text);

// A model as a JSON record (`convert --json`, `batch --report`): input, inputs, status, outputs,
// counts (null when failed), warnings [{code, message, path, count}], error (null when converted),
// seconds.
Json model_record(const std::string& input, const ModelResult& result);

}  // namespace rigport::cli

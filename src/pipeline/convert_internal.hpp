// The pipeline's own entry to a conversion: run_conversion with a hook the batch engine needs and
// the public ConvertJob does not carry (docs/architecture.md "Batch").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "rigport/convert.hpp"

namespace rigport::detail {

// Told every file about to be written (the main output first, then its side files) after the
// model was read and saved in memory, before anything is written; an error stops the model as a
// write failure. contents[k] is what will be written to paths[k]. Batch claims the paths (no two
// models write one file) and creates the output's folder here.
using BeforeWrite = std::function<Status(const std::vector<std::string>& paths, const std::vector<std::span<const uint8_t>>& contents)>;

// Told the compiled model before anything is fixed, counted or saved, with the options it was
// compiled with (their load.on_read protects every file read from being replaced); an error stops
// the model as a read failure. Retargeting puts its clips in the model here (docs/retarget.md).
using AfterCompile = std::function<Status(Scene& scene, const CompileOptions& options, ConvertResult& result)>;

// also_read: files the hook reads besides the job's inputs (retarget's clips and map file), kept
// from being replaced and checked against the output before anything is read, as the inputs are.
ConvertResult run_conversion(const ConvertJob& job, const ConvertOptions& options, const BeforeWrite& before_write,
                             const AfterCompile& after_compile = nullptr, const std::vector<std::string>& also_read = {});

}  // namespace rigport::detail

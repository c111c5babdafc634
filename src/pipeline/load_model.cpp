// The pipeline's entry points for models given as one or more paths: a model with its companions
// loaded (one file through load, several through the compiler), its report for `info`, and its
// validation (docs/architecture.md "The path of one conversion").
#include "rigport/compile.hpp"
#include "rigport/report.hpp"
#include "rigport/validate.hpp"

namespace rigport {

Expected<Scene> load_model(const std::vector<std::string>& paths, const LoadOptions& options, std::vector<std::string>* companions) {
    if (paths.empty()) return make_error(ErrorCode::InvalidArgument, "no input given");
    std::vector<CompileInput> inputs;
    for (auto& p : paths) inputs.push_back(CompileInput{{p}, {}});
    std::vector<std::string> taken = add_companions(inputs, options);
    if (companions) *companions = taken;
    if (inputs.size() == 1) return load(paths[0], options);
    CompileOptions compile_options;
    compile_options.load = options;
    return compile(inputs, compile_options);
}

Expected<ModelInfo> read_model_info(const std::vector<std::string>& paths, const LoadOptions& options) {
    std::vector<std::string> companions;
    auto scene = load_model(paths, options, &companions);
    if (!scene) return scene.error();
    ModelInfo info;
    info.paths = paths;
    info.companions = std::move(companions);
    info.scene = std::move(*scene);
    info.format = find_format(info.scene.meta.source_format);
    // Counts the file stores per part that the scene does not show (JOE: per frame, before
    // VDrift welds corners; docs/joe.md), when its format has them.
    if (paths.size() == 1 && info.companions.empty() && info.format && info.format->stored_parts)
        if (auto bytes = read_input(paths[0], options); bytes)
            if (auto stored = info.format->stored_parts(*bytes); stored) info.parts = std::move(*stored);
    return info;
}

Expected<ValidationReport> validate_model(const std::vector<std::string>& paths, const LoadOptions& options) {
    if (paths.empty()) return make_error(ErrorCode::InvalidArgument, "no input given");
    std::vector<CompileInput> inputs;
    for (auto& p : paths) inputs.push_back(CompileInput{{p}, {}});
    std::vector<std::string> companions = add_companions(inputs, options);
    if (inputs.size() == 1) return validate_file(paths[0], options);
    CompileOptions compile_options;
    compile_options.load = options;
    auto report = validate_compiled(inputs, compile_options);
    if (report) report->companions = std::move(companions);
    return report;
}

}  // namespace rigport

// One model converted as `rigport convert` does it (the library's run_conversion) with the CLI's
// exit codes, its warning lines and its JSON record.
#include "convert_model.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <filesystem>
#include <optional>

namespace rigport::cli {

ModelResult convert_model(const ModelJob& job, const ModelOptions& options) {
    ModelResult r{run_conversion(job, options)};
    if (r.error) r.exit_code = r.write_error ? write_exit_code(*r.error) : read_exit_code(*r.error);
    return r;
}

std::string path_identity(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    if (ec) p = std::filesystem::absolute(path, ec).lexically_normal();
    return p.string();
}

void append_warnings(const ConvertResult& result, std::string& text, const WarningLimit& limit) {
    std::vector<WarningLine> lines;
    auto add = [&](const Warnings& warnings) {
        if (limit.every_warning)
            for (auto& w : warnings.items) lines.push_back({warning_text(w), 1});
        else
            for (auto& line : warning_lines(warnings.items)) lines.push_back(std::move(line));
    };
    add(result.read_warnings);
    // --target's fixes are what was asked: always shown, before any warning.
    for (auto& s : result.target_fixes) text += fmt::format("Fixed: {}\n", terminal_text(s));
    for (auto& s : result.normal_swaps) lines.push_back({s, 1});
    if (result.ok()) add(result.write_warnings);
    size_t shown = lines.size();
    if (!limit.every_warning && lines.size() > limit.max_lines) shown = limit.max_lines > 0 ? limit.max_lines - 1 : 0;
    for (size_t i = 0; i < shown; ++i) text += fmt::format("Warning: {}\n", terminal_text(lines[i].text));
    size_t more = 0;
    for (size_t i = shown; i < lines.size(); ++i) more += lines[i].warnings;
    if (more > 0) text += fmt::format("Warning: {} more warning{} ({})\n", more, more == 1 ? "" : "s", limit.hint);
}

Json model_record(const std::string& input, const ModelResult& r) { return Json::parse(conversion_json(input, r)); }

}  // namespace rigport::cli

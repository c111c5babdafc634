// One model converted as `rigport convert` does it (the library's run_conversion) with the CLI's
// exit codes; the depfile and the JSON record of a model.
#include "convert_model.hpp"

namespace rigport::cli {

ModelResult convert_model(const ModelJob& job, const ModelOptions& options) {
    ModelResult r{run_conversion(job, options)};
    if (r.error) r.exit_code = r.write_error ? write_exit_code(*r.error) : read_exit_code(*r.error);
    return r;
}

namespace {

// Make's escaping: a space or '#' gets a backslash, as do the backslashes right before a space
// or '#' (doubled); '$' is "$$". Ninja's depfile parser reads the same.
std::string make_escape(const std::string& path) {
    std::string out;
    size_t backslashes = 0;
    for (char c : path) {
        if (c == ' ' || c == '#' || c == '\t') {
            out.append(backslashes, '\\');  // each run of backslashes before it doubled
            out += '\\';
        }
        backslashes = c == '\\' ? backslashes + 1 : 0;
        if (c == '$') out += '$';
        out += c;
    }
    return out;
}

}  // namespace

std::string make_depfile(const std::string& target, const std::vector<std::string>& dependencies) {
    std::string text = make_escape(target) + ":";
    for (auto& d : dependencies) text += " \\\n  " + make_escape(d);
    return text + "\n";
}

void append_warnings(const ModelResult& result, std::string& text) {
    for (auto& w : result.read_warnings.items) text += fmt::format("Warning: {}\n", terminal_text(warning_text(w)));
    for (auto& s : result.normal_swaps) text += fmt::format("Warning: {}\n", terminal_text(s));
    if (result.ok())
        for (auto& w : result.write_warnings.items) text += fmt::format("Warning: {}\n", terminal_text(warning_text(w)));
}

Json model_record(const std::string& input, const ModelResult& r) { return Json::parse(conversion_json(input, r)); }

}  // namespace rigport::cli

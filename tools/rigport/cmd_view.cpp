// `rigport view MODEL... -o model.html`: one self-contained web page showing the model in three.js
// (docs/view.md). The model goes in as the GLB `convert` would write; three.js as embedded at build time.
#include <filesystem>
#include <memory>
#include <string>

#include "convert_model.hpp"
#include "rigport/version.hpp"
#include "viewer/viewer_assets.hpp"

namespace rigport::cli {

namespace {

struct ViewArgs {
    std::vector<std::string> inputs;
    std::string output;
    bool force = false;
    LoadFlags load;
    TextureFlags textures;  // --texture-path DIR...
};

std::string base64(std::span<const uint8_t> bytes) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
        for (int k = 18; k >= 0; k -= 6) out += table[(v >> k) & 63];
    }
    if (i < bytes.size()) {
        const uint32_t v = uint32_t(bytes[i]) << 16 | (i + 1 < bytes.size() ? uint32_t(bytes[i + 1]) << 8 : 0);
        out += table[(v >> 18) & 63];
        out += table[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '@': out += "&#64;"; break;  // never a placeholder of the page
            default: out += c;
        }
    }
    return out;
}

// Text inside <script type="application/json">: a '<' (in a name from a file: "</script>") is
// written as \u003c, which JSON reads back as the same character.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (char c : json) {
        if (c == '<') out += "\\u003c";
        else out += c;
    }
    return out;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
}

int run_view(const ViewArgs& a) {
    if (auto st = a.textures.check(); !st) return fail(st.error(), exit_usage, false);
    if (viewer::modules_json.empty())
        return fail(make_error(ErrorCode::Unsupported, "this rigport was built without three.js for the viewer: run scripts/setup.sh "
                                                       "(it installs tests/js/node_modules/three), then build again"),
                    exit_unsupported, false);
    // The page may replace none of the inputs, nor any file they read.
    WriteOptions write_options;
    write_options.force = a.force;
    for (auto& p : a.inputs) write_options.protect.push_back(input_file(p));
    if (auto st = check_output(a.output, write_options); !st) return fail(st.error(), write_exit_code(st.error()), false);

    // What the info panel shows: `rigport info --json` of the model.
    LoadOptions info_options = a.load.load_options();
    info_options.on_read = [&write_options](const std::string& path) { write_options.protect.push_back(path); };
    std::vector<std::string> companions;
    auto plain = load_model(a.inputs, info_options, &companions);
    if (!plain) return fail(plain.error(), read_exit_code(plain.error()), false);
    print_companions(a.inputs.front(), companions);
    Json info = Json::parse(info_json(a.inputs.front(), *plain));
    info["companions"] = companions;
    if (a.inputs.size() > 1) info["inputs"] = a.inputs;

    // The model as `convert MODEL -o MODEL.glb` writes it, textures inside, kept in memory.
    // The registry's first writer of one file that holds its images (FormatInfo::single_file_extension:
    // glTF's .glb), found by what it does, not by name.
    const FormatInfo* one_file = nullptr;
    for (auto& f : formats())
        if (!one_file && f.write && f.holds_images && !f.single_file_extension.empty()) one_file = &f;
    const std::string model_name = one_file ? "model" + std::string(one_file->single_file_extension) : std::string();
    auto format = find_output_format(model_name, "", output_format_names());
    if (!format) return fail(format.error(), write_exit_code(format.error()), false);
    ModelJob job;
    for (auto& p : a.inputs) job.inputs.push_back(CompileInput{{p}, {}});
    job.output = std::filesystem::path(a.output).replace_extension(std::string((*format)->single_file_extension)).string();
    job.check_output_first = false;
    job.in_memory = true;
    ModelOptions options;
    options.format = *format;
    options.load = a.load.load_options();
    options.images.mode = ImageOptions::Mode::Embed;
    options.images.convert = true;  // TGA and friends as PNG: browsers show PNG and JPEG only
    options.images.texture_paths = a.textures.paths;
    ModelResult result = convert_model(job, options);
    if (!result.ok()) return fail(*result.error, result.exit_code, false);
    Warnings warnings = std::move(result.read_warnings);
    for (auto& w : result.write_warnings.items) warnings.add_warning(w);
    for (auto& p : result.inputs) write_options.protect.push_back(p);

    Json data = Json::object();
    data["model"] = base64(result.output->bytes);
    data["info"] = std::move(info);
    std::string page(viewer::page_template);
    std::string licence(viewer::three_licence);
    replace_all(licence, "--", "- -");  // inside an HTML comment
    const std::string name = std::filesystem::path(a.inputs.front()).filename().string();
    // The modules' JSON is spliced in as it is: base64 under bare names, nothing to escape.
    std::string data_text = script_safe(data.dump(-1, ' ', false, Json::error_handler_t::replace));
    data_text.insert(data_text.size() - 1, ",\"modules\":" + std::string(viewer::modules_json));
    for (auto [key, value] : {std::pair<std::string_view, std::string>{"@TITLE@", html_escape(name)},
                              {"@VERSION@", RIGPORT_VERSION_STRING},
                              {"@THREE_VERSION@", std::string(viewer::three_version)},
                              {"@THREE_LICENCE@", html_escape(licence)}})
        replace_all(page, key, value);
    // Last, so nothing inside the data is mistaken for a placeholder.
    const size_t at = page.find("@DATA@");
    page.replace(at, 6, data_text);

    print_warnings(warnings);
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(page.data()), page.size());
    if (auto st = write_file_atomic(a.output, bytes, write_options); !st) return fail(st.error(), write_exit_code(st.error()), false);
    return exit_ok;
}

}  // namespace

Verb add_view(CLI::App& app) {
    auto a = std::make_shared<ViewArgs>();
    CLI::App* sub = app.add_subcommand("view", "Write one self-contained HTML page that shows the model in three.js (opens offline)");
    sub->add_option("MODEL", a->inputs, "Model file; several files (a mesh and its animations, a Cal3D set) are one model, as in 'convert'")
        ->required();
    sub->add_option("-o,--output", a->output, "The HTML page to write")->required();
    sub->add_flag("--force", a->force, "Replace a read-only output");
    a->load.add_to(sub);
    a->textures.add_to(sub);
    return {sub, [a]() { return run_view(*a); }};
}

}  // namespace rigport::cli

// `rigport batch INPUT... -o OUT_DIR --format FMT [-j N] [--report FILE.json] [-q]`: the words as
// BatchOptions, then the library's batch (rigport/batch.hpp: plan_batch, run_batch or ninja_text),
// its progress and summary printed on stderr, and an exit code per failure class (docs/cli.md "batch").
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>

#include "cli.hpp"
#include "convert_model.hpp"
#include "rigport/batch.hpp"

namespace rigport::cli {

namespace {

struct BatchArgs {
    std::vector<std::string> inputs;
    std::string out_dir;
    std::string format;
    unsigned threads = 0;  // 0 = every core
    std::string report;
    bool quiet = false;
    std::string ninja;           // --ninja FILE: write a build file instead of converting
    bool follow_links = false;   // --follow-links: symbolic links out of an INPUT folder are followed
    std::string unit;            // --unit: as convert's (docs/units.md); empty = the format's own
    TextureFlags textures;       // --texture-path DIR...: as convert's, passed on to its Ninja rules
    bool no_companions = false;  // --no-companions: every file a model of its own
    CacheFlags cache;            // --cache DIR, --cache-max SIZE (docs/scale.md)
};

BatchOptions batch_options(const BatchArgs& a) {
    BatchOptions o;
    o.inputs = a.inputs;
    o.out_dir = a.out_dir;
    o.format = a.format;
    o.follow_links = a.follow_links;
    o.companions = !a.no_companions;
    o.jobs = a.threads;
    // Each model as `rigport convert MODEL -o OUT --format FMT` converts it.
    o.convert.unit = a.unit;
    o.convert.images.texture_paths = a.textures.paths;
    o.report_file = a.report;
    o.build_file = a.ninja;
    o.names = BatchOptionNames{.out_dir = "-o", .format = "--format", .unit = "--unit", .texture_paths = "--texture-path",
                               .report_file = "--report", .build_file = "--ninja", .follow_links = "--follow-links", .listing = "rigport formats"};
    return o;
}

std::string skipped_line(const std::string& path, const std::string& reason) { return terminal_text(fmt::format("skipped {}: {}", path, reason)); }

// Per-model lines on stderr (the library calls one at a time): on a terminal one updating line
// "[done/total] path" with failures and warnings above it; otherwise one line per finished model.
class Progress {
public:
    explicit Progress(bool quiet) : quiet_(quiet), tty_(::isatty(::fileno(stderr)) != 0) {}

    void operator()(const BatchEvent& e) {
        if (e.kind == BatchEvent::Kind::Skipped) {
            put(skipped_line(e.skip->path, e.skip->reason) + "\n");
            std::fflush(stderr);
            return;
        }
        const BatchJob& model = *e.model;
        const ConvertResult& result = e.result->result;
        std::string text;
        if (!quiet_) {
            if (!model.companions.empty()) text += companions_line(model.input, model.companions) + "\n";
            append_warnings(result, text, WarningLimit{.hint = "--report FILE lists them all"});
        }
        if (result.cache_error) text += terminal_text(fmt::format("Warning: {}", result.cache_error->to_string())) + "\n";
        if (result.ok()) {
            if (!tty_) text += fmt::format("ok {} -> {}\n", terminal_text(model.input), terminal_text(model.output));
        } else {
            const Error& err = *result.error;
            // The error names its file first; the model's own path is not repeated.
            text += terminal_text(err.path == model.input ? fmt::format("FAILED {}", err.to_string()) : fmt::format("FAILED {}: {}", model.input, err.to_string())) + "\n";
        }
        put(text);
        if (tty_) {
            fmt::print(stderr, "[{}/{}] {}", e.done, e.total, terminal_text(model.input));
            bar_ = true;
        }
        std::fflush(stderr);
    }

    void end() {
        if (bar_) fmt::print(stderr, "\r\033[K");
        bar_ = false;
    }

private:
    void put(const std::string& text) {
        end();
        std::fwrite(text.data(), 1, text.size(), stderr);
    }

    bool quiet_, tty_, bar_ = false;
};

// The exit code of the worst failure class (docs/cli.md "Exit codes").
int exit_code_of(FailureClass failure) {
    switch (failure) {
        case FailureClass::None: return exit_ok;
        case FailureClass::Read: return exit_read;
        case FailureClass::Unsupported: return exit_unsupported;
        case FailureClass::Write: return exit_write;
    }
    return exit_read;
}

Status write_text(const std::string& path, const std::string& text, const BatchPlan& plan) {
    WriteOptions options;
    options.protect = plan.protect;
    return write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), options);
}

// --ninja: the build file instead of converting.
int write_ninja(const BatchArgs& a, const BatchOptions& options, const BatchPlan& plan) {
    if (auto st = prepare_batch(plan, options); !st) return fail(st.error(), write_exit_code(st.error()), false);
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return fail(make_error(ErrorCode::Unsupported, "cannot tell where the rigport binary is (/proc/self/exe)"), exit_unsupported, false);
    auto file = ninja_text(plan, options, self.string());
    if (!file) return fail(file.error(), write_exit_code(file.error()), false);
    for (auto& m : plan.jobs)
        if (m.refused) fmt::print(stderr, "{}\n", skipped_line(m.input, m.refused->message));
    if (auto st = write_text(a.ninja, file->text, plan); !st) return fail(st.error(), write_exit_code(st.error()), false);
    fmt::print(stderr, "{}\n", terminal_text(fmt::format("wrote {}: {} models; `ninja -f {}` converts them, and later only those whose files changed",
                                                         a.ninja, file->edges, a.ninja)));
    return exit_ok;
}

int run(const BatchArgs& a) {
    const auto start = std::chrono::steady_clock::now();
    BatchOptions options = batch_options(a);
    auto cache = a.cache.options();
    if (!cache) return fail(cache.error(), exit_usage, false);
    options.convert.cache = std::move(*cache);
    auto plan = plan_batch(options);
    if (!plan) return fail(plan.error(), write_exit_code(plan.error()), false);
    if (plan->jobs.empty())  // the library refuses it: what was skipped first, then why
        for (auto& s : plan->skipped) fmt::print(stderr, "{}\n", skipped_line(s.path, s.reason));
    if (!a.ninja.empty()) return write_ninja(a, options, *plan);

    Progress progress(a.quiet);
    auto report = run_batch(*plan, options, [&progress](const BatchEvent& e) { progress(e); });
    if (!report) return fail(report.error(), write_exit_code(report.error()), false);
    progress.end();
    int code = exit_code_of(report->failure);
    if (!a.report.empty()) {
        Json records = Json::array();
        for (size_t i = 0; i < report->models.size(); ++i) records.push_back(Json::parse(conversion_json(plan->jobs[i].input, report->models[i].result)));
        if (auto st = write_text(a.report, records.dump(2, ' ', false, Json::error_handler_t::replace) + "\n", *plan); !st) {
            print_error(st.error().to_string());
            code = exit_write;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    size_t cached = 0;
    for (auto& m : report->models) cached += m.result.cached.value_or(false) ? 1 : 0;
    fmt::print(stderr, "{} converted{}, {} failed, {} warnings in {:.2f} s\n", report->converted,
               options.convert.cache.dir.empty() ? std::string() : fmt::format(" ({} from the cache)", cached), report->failed, report->warnings, seconds);
    return code;
}

}  // namespace

Verb add_batch(CLI::App& app) {
    auto args = std::make_shared<BatchArgs>();
    CLI::App* sub = app.add_subcommand("batch", "Convert every model in files and folders into one output folder, in parallel");
    sub->footer(
        "Folders are walked recursively (sorted) for files whose extension a format reads; a symbolic link leading out of an\n"
        "INPUT folder is skipped with a note (--follow-links follows it), a link to a folder inside is not followed.\n"
        "a .cfg with the files it names is one model, as is a mesh file with its companions (--no-companions), a .jpk is skipped. The folder tree under each INPUT folder is\n"
        "mirrored under OUT_DIR; each output is named <stem> + the format's first extension (.glb, .gltf, .iqm, .cfg ...).\n"
        "Each model is converted as 'rigport convert MODEL -o OUT --format FMT' would. Ends with\n"
        "'N converted, M failed, W warnings in T s' on stderr. Exit 0 when every model converted, else the most severe\n"
        "failure: 4 a write failed or an output was refused, 3 unsupported, 2 read error; 1 usage (nothing read).");
    sub->add_option("INPUT", args->inputs, "Model files and folders")->required();
    sub->add_option("-o,--output", args->out_dir, "Output folder (created if missing; its parent must exist)")->required();
    sub->add_option("--format", args->format, "Output format name, in any letter case: " + format_names(true) + " (see 'rigport formats')")->required();
    sub->add_option("-j,--jobs", args->threads, "Models converted in parallel (default: the number of hardware threads)")
        ->check(CLI::Range(1u, 4096u));
    sub->add_option("--report", args->report, "Write a JSON array with one record per model (written atomically)");
    sub->add_flag("-q,--quiet", args->quiet, "Print no warnings (errors still print)");
    sub->add_option("--ninja", args->ninja,
                    "Write a Ninja build file with one edge per model (rigport convert --ninja-deps, which Ninja records for any file name but one with a line break) instead of converting: "
                    "`ninja -f FILE` then rebuilds only the models whose files changed");
    sub->add_option("--unit", args->unit, "Output unit, as convert's --unit: keep, or m, cm, inch ...; default: the format's own (metres for glTF and IQM)");
    add_no_companions(sub, args->no_companions);
    sub->add_flag("--follow-links", args->follow_links,
                  "Follow symbolic links (to files and folders) that lead out of an INPUT folder; by default they are skipped with a note");
    args->textures.add_to(sub);
    args->cache.add_to(sub);
    return {sub, [args]() { return run(*args); }};
}

}  // namespace rigport::cli

// Shared pieces of the rigport CLI: exit codes, diagnostics on stderr, the verbs' entry points.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/convert.hpp"
#include "rigport/report.hpp"
#include "rigport/rigport.hpp"

namespace rigport::cli {

// Distinct exit codes per failure class (docs/cli.md "Exit codes").
enum Exit : int {
    exit_ok = 0,
    exit_usage = 1,        // bad arguments or options; nothing was read
    exit_read = 2,         // an input could not be read or is malformed
    exit_unsupported = 3,  // recognised but not handled (yet): format, feature, several inputs
    exit_write = 4,        // the output could not be written (the old file is untouched)
    exit_validation = 5,   // validate found errors (or warnings with --strict)
};

// `Error: ...` / `Warning: ...` on stderr; stdout is left to the verbs' reports.
void print_error(std::string_view message);
void print_warning(std::string_view message);
// Each as "Warning: " + warning_text() (rigport/report.hpp).
void print_warnings(const Warnings& warnings);

// The exit code for a failed load, or for a failed save.
// The CLI's words for the options find_output_format's messages name.
inline OutputFormatNames output_format_names() { return {.output = "-o", .format = "--format", .listing = "rigport formats"}; }

int read_exit_code(const Error& error);
int write_exit_code(const Error& error);

using Json = nlohmann::ordered_json;
// The failure that ends a verb: `Error: ...` on stderr and, with --json, {"error": {...}} on
// stdout. Returns exit_code.
int fail(const Error& error, int exit_code, bool json);
// A usage error (exit 1) as an Error: InvalidArgument with no place.
Error usage_error(std::string message);

// The output format (find_output_format, rigport/convert.hpp: --format NAME, else the extension of
// path), printing the error and setting exit_code on failure: used before any input is read.
const FormatInfo* choose_output_format(const std::string& path, const std::string& format_name, int& exit_code);

// Text from files and paths as it may reach a terminal, cut to at most max_chars (then "..."):
// valid UTF-8 kept ("é"); control characters (C0 such as ESC, BEL and CR, DEL, C1 raw or
// encoded) and bytes that are not valid UTF-8 shown as \xNN (\n, \r, \t by name), so a name in a
// file can neither retitle the terminal nor rewrite a line already printed (docs/cli.md
// "Messages"). JSON output is not passed through it: JSON escapes control characters itself.
std::string printable(std::string_view text, size_t max_chars = 200);
// printable() without a cut: every message the CLI prints on stderr goes through it
// (print_error, print_warning, batch's progress lines, convert's warnings).
std::string terminal_text(std::string_view text);

// --no-companions (docs/cli.md "Companions"), for every verb that loads models and for batch.
inline void add_no_companions(CLI::App* command, bool& no_companions) {
    command->add_flag("--no-companions", no_companions,
                      "Read a mesh file alone: without the animation files beside it that go with it (MD5: <stem>*.md5anim; "
                      "SMD: what a .qc beside it names)");
}
// What a one-file model took beside it (add_companions), as the line the verbs print on stderr:
// "MODEL: with N companion file(s): A, B (--no-companions reads it alone)"; empty when none.
std::string companions_line(const std::string& model, const std::vector<std::string>& companions);
void print_companions(const std::string& model, const std::vector<std::string>& companions);

// --allow-outside and --allow-missing, shared by every verb that loads models (docs/cli.md).
struct LoadFlags {
    bool allow_outside = false;  // read files a model names outside its folder
    bool allow_missing = false;  // a missing part a model names is a warning, left out
    bool resample = false;       // FBX curves sampled at 30 keys per second besides their keys
    bool no_companions = false;  // a mesh file is read alone, without the animation files beside it
    float frame_rate = 0.0f;     // MD2, MD3, Quake MDL: frames per second; 0 = the format's own
    void add_to(CLI::App* command) {
        add_no_companions(command, no_companions);
        command->add_flag("--allow-outside", allow_outside,
                          "Read files a model names (buffers, textures, .cfg members) outside its own folder; refused by default (exit 2)");
        command->add_flag("--allow-missing", allow_missing,
                          "A missing part a model names (a .cfg member) is a warning and left out instead of an error (exit 2)");
        command->add_flag("--resample", resample,
                          "FBX: sample animation curves at 30 keys per second as well as at their keys (FBX interpolates Euler "
                          "angles and cubic keys between keys; rigport's keys are exact at the file's keys either way)");
        command->add_option("--frame-rate", frame_rate,
                            "MD2, MD3, Quake MDL: the rate their frames play at, in frames per second (default: the format's own, "
                            "MD2 and MDL 10, MD3 15; docs/formats.md \"Vertex animation\")")
            ->type_name("FPS")
            ->check(CLI::Range(0.001f, 10000.0f));
    }
    LoadOptions load_options() const {
        LoadOptions o;
        o.allow_outside = allow_outside;
        o.allow_missing = allow_missing;
        o.resample_curves = resample;
        o.vertex_frame_rate = frame_rate;
        o.companions = !no_companions;
        return o;
    }
};

// --texture-path DIR, repeatable (the order is kept), on every verb that reads textures (convert,
// batch, render, view): a game's root folder where a texture not beside the model is looked for, by
// the name as written and by its base name; it joins the folders textures may be read from
// (ImageOptions::texture_paths, docs/cli.md "Textures").
struct TextureFlags {
    std::vector<std::string> paths;
    void add_to(CLI::App* command) {
        command
            ->add_option("--texture-path", paths,
                         "A game's root folder where textures are also looked for (repeatable, in order): a material's "
                         "'models/x/skin' is found as DIR/models/x/skin.tga, an author's 'D:/art/skin.png' as DIR/skin.png; "
                         "textures may be read from it as from the model's own folder")
            ->type_name("DIR")
            ->allow_extra_args(false);
    }
    // Each must be a folder: a usage error (exit 1) before anything is read.
    Status check() const;
};
// --cache DIR and --cache-max SIZE (convert, batch): the content-addressed cache of conversions
// (docs/scale.md); without --cache, the folder RIGPORT_CACHE names, if set and not empty.
struct CacheFlags {
    std::string dir;
    std::string max;  // "500M", "2G", "65536": bytes, K/M/G/T in 1024s
    void add_to(CLI::App* command) {
        command->add_option("--cache", dir,
                            "Content-addressed cache folder (created if missing; default: $RIGPORT_CACHE): a model whose files, options and "
                            "rigport version were converted before is written from it, the same bytes, not converted again (docs/scale.md)")
            ->type_name("DIR");
        command->add_option("--cache-max", max, "With a cache: evict the least recently used entries beyond SIZE (bytes, or 500M, 2G ...)")
            ->type_name("SIZE");
    }
    // The cache the flags and RIGPORT_CACHE ask for; a usage error (exit 1) for a bad SIZE or
    // --cache-max without a cache.
    Expected<CacheOptions> options() const;
};
// Words the CLI cannot place (usage_hints.cpp, docs/cli.md "Unknown words"):
// the edit distance of two words (a swap of neighbours counts 1), and the name nearest to word
// among names (within a third of its length), else the one name word begins; empty when none.
size_t edit_distance(std::string_view a, std::string_view b);
std::string closest_name(std::string_view word, const std::vector<std::string>& names);
// After a parse (failed or not): the first word nothing took, as "unknown command 'infos'; did
// you mean 'info'?" or "unknown option '--fromat' for 'convert'; did you mean '--format'?";
// nothing when every word was placed. elsewhere(name) may say which other verb has a short option
// ("'-j' is '--jobs' of 'batch'"), or return "".
std::optional<std::string> unknown_word_message(const CLI::App& app, const std::function<std::string(const std::string&)>& elsewhere);
// The registered formats' names, "iqm, iqe, ..." (those with a writer, or with a reader).
std::string format_names(bool writable);
// `rigport --help`'s list of every registered format, grouped by read and write.
std::string formats_help();

// Each verb adds its subcommand to the app and returns it with what to run once parsing succeeded.
struct Verb {
    CLI::App* command = nullptr;
    std::function<int()> run;
};
Verb add_info(CLI::App& app);
Verb add_validate(CLI::App& app);
Verb add_convert(CLI::App& app);
Verb add_sample(CLI::App& app);
Verb add_formats(CLI::App& app);
Verb add_pack(CLI::App& app);  // VDrift JPK packs
Verb add_batch(CLI::App& app);  // many models, one output folder
Verb add_render(CLI::App& app);  // a PNG picture of a model
Verb add_view(CLI::App& app);    // a self-contained web viewer page
Verb add_targets(CLI::App& app);  // the engine profiles
Verb add_check(CLI::App& app);    // a model against an engine profile
Verb add_retarget(CLI::App& app); // clips onto another skeleton

}  // namespace rigport::cli

// `rigport batch INPUT... -o OUT_DIR --format FMT [-j N] [--report FILE.json] [-q]`: every model
// found in files and folders converted as `rigport convert MODEL -o OUT --format FMT` does it
// (convert_model), on N threads, into a mirror of the folders under OUT_DIR (docs/cli.md "batch").
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "cli.hpp"
#include "convert_model.hpp"
#include "rigport/jpk.hpp"

namespace rigport::cli {

namespace {

namespace fs = std::filesystem;

struct BatchArgs {
    std::vector<std::string> inputs;
    std::string out_dir;
    std::string format;
    unsigned threads = 0;  // 0 = std::thread::hardware_concurrency()
    std::string report;
    bool quiet = false;
    std::string ninja;  // --ninja FILE: write a build file instead of converting
    bool follow_links = false;  // --follow-links: symbolic links out of an INPUT folder are followed
    std::string unit;           // --unit: as convert's (docs/units.md); empty = the format's own
    TextureFlags textures;      // --texture-path DIR...: as convert's, passed on to its Ninja rules
    bool no_companions = false;  // --no-companions: every file a model of its own
};

// One model: a file, or a .cfg with its members.
struct Model {
    std::string input;   // the file (the .cfg), as found: the folder given joined with its path below it
    std::vector<std::string> animations;  // its companions (find_companions), read with it
    std::string output;  // OUT_DIR / mirrored folders / stem + the format's extension
    std::optional<Error> refused;  // decided before any work: its output is another model's
};

std::string lower_extension(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

// A path's identity for comparisons: absolute, lexically normal; symlinks resolved where it exists.
std::string identity(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    if (ec) c = fs::absolute(p, ec).lexically_normal();
    return c.string();
}

// The files a model file is made of (FormatInfo::named_files: a .cfg's members), as identities,
// and whether its format has such files. Unreadable or malformed files name nothing: converting
// them reports why.
bool names_files(const fs::path& path) {
    const FormatInfo* f = find_format_by_extension(path.string());
    return f && f->named_files;
}
std::set<std::string> named_files(const fs::path& path) {
    std::set<std::string> named;
    const FormatInfo* f = find_format_by_extension(path.string());
    if (!f || !f->named_files) return named;
    auto bytes = read_file(path.string(), 1u << 20);
    if (!bytes) return named;
    auto names = f->named_files(*bytes);
    if (!names) return named;
    for (auto& n : *names) named.insert(identity(path.parent_path() / n));
    return named;
}

// The models the inputs hold, in a deterministic order: each INPUT in the order given; a folder's
// files sorted by name, recursively (OUT_DIR itself skipped), only those whose extension a
// registered format reads; a file given directly as it is, a symbolic link too. A .jpk is skipped
// with a note; a file given twice is one model. Symbolic links met in a folder (docs/cli.md
// "batch"): one leading out of the INPUT folder is skipped with a note naming the link, unless
// --follow-links; a link to a file inside is followed (the file is one model, named by its own
// path when the walk also meets it there); a link to a folder inside is not followed (the walk
// reaches that folder itself).
struct Plan {
    std::vector<Model> models;
    std::vector<std::string> notes;     // skipped files, unreadable folders
    std::vector<std::string> protect;   // every file found in the inputs: no output replaces one
};

class Planner {
public:
    Planner(const fs::path& out_dir, const FormatInfo& format, bool follow_links, bool companions)
        : out_dir_(out_dir), extension_(format.extensions.front()), out_dir_identity_(identity(out_dir)), follow_links_(follow_links),
          companions_(companions) {}

    void add_input(const std::string& input) {
        std::error_code ec;
        if (fs::is_directory(input, ec)) {
            // The tree a link may point into: the folder itself, links on its own path resolved.
            tree_ = fs::canonical(input, ec);
            if (ec) tree_ = fs::absolute(input, ec).lexically_normal();
            tree_name_ = input;
            walk(fs::path(input), fs::path());
            return;
        }
        // A file given directly goes to OUT_DIR/<stem>.<ext>; a pack member (PACK.jpk:MEMBER) is named by the member.
        fs::path stem_of = input;
        if (auto split = split_jpk_member_path(input); split && !fs::exists(input, ec)) stem_of = split->second;
        add_file(fs::path(input), out_dir_ / fs::path(stem_of.stem().string() + std::string(extension_)), false);
    }

    Plan finish() {
        // A .cfg and its members are one model: a member found as a file of its own is not
        // converted again. Cal3D files no .cfg names stay models of their own.
        std::set<std::string> claimed;
        for (auto& f : files_) claimed.merge(named_files(f.path));
        // A mesh file's companions (find_companions, docs/cli.md "Companions": MD5 by stem, SMD by
        // a .qc) go with it and are not models of their own, unless they take companions themselves.
        // Each folder is read once.
        std::map<size_t, std::vector<std::string>> with_mesh;
        if (companions_) {
            std::map<std::string, CompanionFolder> folders;
            const LoadOptions options;
            for (size_t i = 0; i < files_.size(); ++i) {
                const FormatInfo* f = find_format_by_extension(files_[i].path.string());
                if (!f || (f->animation_extension.empty() && !f->model_list)) continue;
                const std::string folder = files_[i].path.parent_path().string();
                auto it = folders.find(folder);
                if (it == folders.end()) it = folders.emplace(folder, read_companion_folder(folder, options)).first;
                auto found = find_companions(files_[i].path.string(), it->second, options);
                if (!found.empty()) with_mesh[i] = std::move(found);
            }
            for (auto& [i, found] : with_mesh)
                for (auto& c : found) {
                    const std::string id = identity(c);
                    if (auto k = seen_.find(id); k == seen_.end() || !with_mesh.count(k->second)) claimed.insert(id);
                }
        }
        // Outputs are named after the models: two models for one output are a clash, decided here
        // (the first in the order above writes it) and reported naming both.
        std::map<std::string, size_t> owner;  // output identity -> the model writing it
        for (size_t i = 0; i < files_.size(); ++i) {
            const Found& f = files_[i];
            if (!names_files(f.path) && claimed.count(f.identity)) continue;
            Model m{f.path.string(), with_mesh[i], f.output.string(), std::nullopt};
            auto [it, first] = owner.emplace(identity(f.output), plan_.models.size());
            if (!first) {
                const std::string& other = plan_.models[it->second].input;
                m.refused = make_error(ErrorCode::InvalidArgument,
                                       fmt::format("'{}' and '{}' both have the output '{}': '{}' writes it, this one is not converted "
                                                   "(rename one, or convert it on its own with another -o)",
                                                   other, m.input, m.output, other));
                m.refused->path = m.input;
            }
            plan_.models.push_back(std::move(m));
        }
        return std::move(plan_);
    }

private:
    struct Found {
        fs::path path, output;
        std::string identity;
        bool via_link = false;  // found as a symbolic link in a folder
    };

    void add_file(const fs::path& path, const fs::path& output, bool via_link) {
        plan_.protect.push_back(path.string());
        if (lower_extension(path) == ".jpk") {
            plan_.notes.push_back(fmt::format("skipped {}: a JPK pack is not expanded (convert a member as PACK.jpk:MEMBER)", path.string()));
            return;
        }
        std::string id = identity(path);
        auto [it, first] = seen_.emplace(id, files_.size());
        if (!first) {
            // One file reached by a link and by its own path: one model, under its own path.
            Found& earlier = files_[it->second];
            if (earlier.via_link && !via_link) earlier = Found{path, output, std::move(id), false};
            return;
        }
        files_.push_back(Found{path, output, std::move(id), via_link});
    }

    // True when path (resolved) is the folder tree or lies below it.
    static bool within(const fs::path& path, const fs::path& tree) {
        auto p = path.begin();
        for (auto t = tree.begin(); t != tree.end(); ++t, ++p)
            if (p == path.end() || *p != *t) return false;
        return true;
    }

    // Whether the walk goes through the symbolic link e: a link out of the INPUT folder only with
    // --follow-links (else a note naming the link, never what it points to, when it could be a
    // model or is a folder); a link to a folder inside never (that folder is walked as itself).
    bool follow(const fs::directory_entry& e, bool& is_folder) {
        std::error_code ec;
        const fs::path target = fs::canonical(e.path(), ec);
        if (ec) return false;  // a broken link (or a loop of links): nothing to read
        is_folder = fs::is_directory(target, ec);
        const bool inside = within(target, tree_);
        if (inside) return !is_folder;
        if (follow_links_) return true;
        const FormatInfo* f = find_format_by_extension(e.path().filename().string());
        if (is_folder || (f && f->read) || lower_extension(e.path()) == ".jpk")
            plan_.notes.push_back(fmt::format("skipped {}: a symbolic link to a {} outside {} (not followed; --follow-links follows it)",
                                              e.path().string(), is_folder ? "folder" : "file", tree_name_));
        plan_.protect.push_back(e.path().string());
        return false;
    }

    // rel: the folder below the INPUT folder, mirrored under OUT_DIR.
    void walk(const fs::path& dir, const fs::path& rel) {
        std::error_code ec;
        // A folder already being walked further up (links followed in a loop) is not walked again.
        const std::string here = identity(dir);
        if (std::find(walking_.begin(), walking_.end(), here) != walking_.end()) return;
        walking_.push_back(here);
        walk_entries(dir, rel);
        walking_.pop_back();
    }

    void walk_entries(const fs::path& dir, const fs::path& rel) {
        std::error_code ec;
        std::vector<fs::directory_entry> entries;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(*it);
        if (ec) {
            plan_.notes.push_back(fmt::format("skipped {}: {}", dir.string(), ec.message()));
            return;
        }
        std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.path().filename() < b.path().filename(); });
        for (auto& e : entries) {
            const fs::path name = e.path().filename();
            const bool link = e.is_symlink(ec);
            bool link_to_folder = false;
            if (link && !follow(e, link_to_folder)) continue;
            if (link ? link_to_folder : e.is_directory(ec)) {
                if (identity(e.path()) != out_dir_identity_) walk(e.path(), rel / name);
                continue;
            }
            if (!e.is_regular_file(ec)) continue;
            // Protected whatever it is: an output never replaces a file of the inputs' folders.
            if (lower_extension(name) != ".jpk") {
                const FormatInfo* f = find_format_by_extension(name.string());
                if (!f || !f->read) {
                    plan_.protect.push_back(e.path().string());
                    continue;
                }
            }
            add_file(e.path(), out_dir_ / rel / fs::path(name.stem().string() + std::string(extension_)), link);
        }
    }

    fs::path out_dir_;
    std::string_view extension_;
    std::string out_dir_identity_;
    bool follow_links_ = false;
    bool companions_ = true;
    fs::path tree_;                      // the INPUT folder being walked, resolved
    std::string tree_name_;              // ... as given
    std::vector<std::string> walking_;   // the folders being walked, outermost first (identities)
    std::map<std::string, size_t> seen_;  // identity -> its index in files_
    std::vector<Found> files_;
    Plan plan_;
};

// Which model writes which file: the main outputs are decided up front; side files (a .gltf's
// .bin, images, a .cfg's parts) are claimed when written, so no model replaces another's file,
// the report or any file of the inputs.
// Two independent 64-bit hashes and the size of a side file's bytes: equal digests mean equal
// contents (a chance collision of both would need ~2^64 files).
struct Digest {
    uint64_t a = 0, b = 0, size = 0;
    bool operator==(const Digest&) const = default;
};
Digest digest_of(std::string_view bytes) {
    uint64_t fnv = 0xcbf29ce484222325ull;  // FNV-1a
    for (unsigned char c : bytes) fnv = (fnv ^ c) * 0x100000001b3ull;
    return {std::hash<std::string_view>{}(bytes), fnv, bytes.size()};
}

class Claims {
public:
    Claims(const Plan& plan, const std::string& report) {
        for (size_t i = 0; i < plan.models.size(); ++i)
            if (!plan.models[i].refused) owner_.emplace(identity(plan.models[i].output), i);
        if (!report.empty()) owner_.emplace(identity(report), report_owner);
        for (auto& p : plan.protect) {
            struct stat st {};
            if (::stat(p.c_str(), &st) == 0) inputs_.emplace(std::make_pair(st.st_dev, st.st_ino), p);
        }
    }

    // A side file another model also writes with the same bytes (a texture two .glb files embed
    // under one name) is shared: both write it, identically. Different bytes are a collision.
    Status claim(size_t model, const std::vector<Model>& models, const std::vector<std::string>& paths,
                 const std::vector<std::span<const uint8_t>>& contents) {
        // Identities (path resolution) and digests are worked out before taking the lock, which
        // every thread's model passes through.
        std::vector<std::string> ids;
        std::vector<Digest> digests;
        for (size_t k = 0; k < paths.size(); ++k) {
            ids.push_back(identity(paths[k]));
            digests.push_back(k > 0 ? digest_of(std::string_view(reinterpret_cast<const char*>(contents[k].data()), contents[k].size()))
                                    : Digest{});
        }
        std::lock_guard lock(mutex_);
        for (size_t k = 0; k < paths.size(); ++k) {
            const std::string& p = paths[k];
            const std::string& id = ids[k];
            const Digest& digest = digests[k];
            auto [it, first] = owner_.emplace(id, model);
            if (first || it->second == model) {
                if (k > 0) side_digest_.emplace(id, digest);
                continue;
            }
            const auto shared = side_digest_.find(id);
            if (k > 0 && shared != side_digest_.end() && shared->second == digest) continue;
            return make_error(ErrorCode::InvalidArgument,
                              fmt::format("'{}' is also written for {}{}", p,
                                          it->second == report_owner ? std::string("--report") : fmt::format("'{}'", models[it->second].input),
                                          k > 0 ? " with other contents" : ""));
        }
        for (auto& p : paths) {
            struct stat st {};
            if (::stat(p.c_str(), &st) != 0) continue;
            if (auto it = inputs_.find({st.st_dev, st.st_ino}); it != inputs_.end())
                return make_error(ErrorCode::InvalidArgument, fmt::format("'{}' would replace the input '{}'", p, it->second));
        }
        return Ok{};
    }

private:
    static constexpr size_t report_owner = SIZE_MAX;
    std::mutex mutex_;
    std::map<std::string, size_t> owner_;
    std::map<std::string, Digest> side_digest_;  // a side file's contents, by identity
    std::map<std::pair<dev_t, ino_t>, std::string> inputs_;
};

// The mirrored folder of an output, created when the model has something to write (OUT_DIR exists).
Status make_folder(const std::string& output) {
    const fs::path dir = fs::path(output).parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir))
        return make_error(ErrorCode::WriteFailed, fmt::format("{}: cannot create the folder: {}", dir.string(), ec ? ec.message() : "not a folder"));
    return Ok{};
}

// Per-model lines on stderr, never interleaved: each model's block is printed whole under a lock.
// On a terminal one updating line "[done/total] path" with failures and warnings above it;
// otherwise one line per finished model.
class Progress {
public:
    Progress(size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(::isatty(::fileno(stderr)) != 0) {}

    void note(const std::string& line) { put(terminal_text(line) + "\n"); }

    void finished(const Model& model, const ModelResult& result) {
        std::string text;
        if (!quiet_) {
            if (!model.animations.empty()) text += companions_line(model.input, model.animations) + "\n";
            append_warnings(result, text, WarningLimit{.hint = "--report FILE lists them all"});
        }
        if (result.ok()) {
            if (!tty_) text += fmt::format("ok {} -> {}\n", terminal_text(model.input), terminal_text(model.output));
        } else {
            const Error& e = *result.error;
            // The error names its file first; the model's own path is not repeated.
            text += terminal_text(e.path == model.input ? fmt::format("FAILED {}", e.to_string()) : fmt::format("FAILED {}: {}", model.input, e.to_string())) + "\n";
        }
        std::lock_guard lock(mutex_);
        ++done_;
        put_locked(text);
        if (tty_) {
            fmt::print(stderr, "[{}/{}] {}", done_, total_, terminal_text(model.input));
            bar_ = true;
        }
        std::fflush(stderr);
    }

    void end() {
        std::lock_guard lock(mutex_);
        if (bar_) fmt::print(stderr, "\r\033[K");
        bar_ = false;
    }

private:
    void put(const std::string& text) {
        std::lock_guard lock(mutex_);
        put_locked(text);
        std::fflush(stderr);
    }
    void put_locked(const std::string& text) {
        if (bar_) fmt::print(stderr, "\r\033[K");
        bar_ = false;
        std::fwrite(text.data(), 1, text.size(), stderr);
    }

    std::mutex mutex_;
    size_t total_, done_ = 0;
    bool quiet_, tty_, bar_ = false;
};

// ---- --ninja: one build edge per model --------------------------------------------------------
// Paths are absolute, so the file works from any folder; each edge's command gets its paths
// shell-quoted in edge variables (Ninja does not quote $in and $out). `rigport convert
// --ninja-deps` prints every file the conversion read, which Ninja records (deps = msvc, the one
// form of its dependency input that takes any name but a line break), so Ninja rebuilds a model
// when its input, a .cfg member, a .gltf buffer or a texture changes, and only then. A model
// under a folder whose path Ninja's msvc reader drops ("Program Files") uses --depfile instead
// (deps = gcc), which takes fewer names (docs/cli.md "Build systems").

std::string absolute_path(const std::string& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    return (ec ? fs::path(p) : a).lexically_normal().string();
}
// A path in a `build` line: '$', ' ' and ':' escaped with '$'; '|' (which Ninja 1.11 cannot
// escape) as the file-scope variable rigport_pipe. Line breaks were refused before.
std::string ninja_path(const std::string& p) {
    std::string out;
    for (char c : p) {
        if (c == '|') {
            out += "${rigport_pipe}";
            continue;
        }
        if (c == '$' || c == ' ' || c == ':') out += '$';
        out += c;
    }
    return out;
}
// A value in single quotes for the shell, '$' doubled for Ninja's variable expansion.
std::string ninja_shell_quoted(const std::string& p) {
    std::string out = "'";
    for (char c : p) {
        if (c == '\'') out += "'\\''";
        else if (c == '$') out += "$$";
        else out += c;
    }
    return out + "'";
}

// A line break ends a line of a build file whatever the escaping: a path with one is refused.
Status ninja_line_safe(const std::string& path, const std::string& what) {
    if (path.find_first_of("\r\n") == std::string::npos) return Ok{};
    return usage_error(fmt::format("{} {:?}: a path with a line break cannot go into a build file", what, path));
}

// --report and --ninja name none of the files the batch reads or writes, nor each other; checked
// by name here (the outputs are not written yet), and by device and inode against every file
// found in the inputs (check_output with plan.protect). Before any model is read.
Status check_build_files(const BatchArgs& a, const Plan& plan) {
    if (a.report.empty() && a.ninja.empty()) return Ok{};
    if (!a.report.empty() && !a.ninja.empty() && path_identity(a.report) == path_identity(a.ninja))
        return usage_error(fmt::format("--report '{}' and --ninja '{}' are the same file", a.report, a.ninja));
    std::map<std::string, std::string> files;  // identity -> what it is, as the message names it
    for (auto& m : plan.models) {
        if (m.refused) continue;
        files.emplace(path_identity(m.input), fmt::format("the input '{}'", m.input));
        for (auto& anim : m.animations) files.emplace(path_identity(anim), fmt::format("the input '{}'", anim));
        files.emplace(path_identity(m.output), fmt::format("the output '{}' (of '{}')", m.output, m.input));
        if (!a.ninja.empty()) files.emplace(path_identity(m.output + ".d"), fmt::format("the depfile '{}.d' (of '{}')", m.output, m.input));
    }
    for (auto& [option, path] : {std::pair<std::string, std::string>{"--report", a.report}, {"--ninja", a.ninja}}) {
        if (path.empty()) continue;
        if (auto it = files.find(path_identity(path)); it != files.end())
            return usage_error(fmt::format("{} '{}' is the same file as {}", option, path, it->second));
        WriteOptions options;
        options.protect = plan.protect;
        if (auto st = check_output(path, options); !st) return st;
    }
    return Ok{};
}

int write_ninja(const BatchArgs& a, const FormatInfo& format, const Plan& plan) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return fail(make_error(ErrorCode::Unsupported, "cannot tell where the rigport binary is (/proc/self/exe)"), exit_unsupported, false);
    for (auto& [what, path] : {std::pair<std::string, std::string>{"--ninja", a.ninja}, {"the rigport binary", self.string()}})
        if (auto st = ninja_line_safe(path, what); !st) return fail(st.error(), exit_usage, false);
    for (auto& m : plan.models) {
        auto st = ninja_line_safe(m.input, "the model");
        for (auto& anim : m.animations)
            if (st) st = ninja_line_safe(anim, "the animation file");
        if (st) st = ninja_line_safe(m.output, "the output");
        if (!st) return fail(st.error(), exit_usage, false);
    }
    // The command line passes the format by its registry name: letters and digits only; the unit
    // likewise (checked against the known names before anything is planned). Texture paths go in
    // absolute (Ninja may run elsewhere), quoted as the inputs are.
    std::string common_args = a.unit.empty() ? "" : " --unit " + a.unit;
    for (auto& dir : a.textures.paths) {
        if (auto st = ninja_line_safe(dir, "the --texture-path folder"); !st) return fail(st.error(), exit_usage, false);
        common_args += " --texture-path " + ninja_shell_quoted(absolute_path(dir));
    }
    std::string text = fmt::format(
        "# Written by `rigport batch --ninja`: `ninja -f FILE` converts the models whose files changed.\n"
        "ninja_required_version = 1.5\n"
        "rigport = {}\n"
        "rigport_pipe = |\n\n"
        "rule convert\n"
        "  command = $rigport convert $input -o $output --format {}{} --ninja-deps -q\n"
        "  deps = msvc\n"
        "  msvc_deps_prefix = {}\n"
        "  description = rigport $in -> $out\n\n"
        "rule convert_depfile\n"
        "  command = $rigport convert $input -o $output --format {}{} --depfile $output.d -q\n"
        "  depfile = $out.d\n"
        "  deps = gcc\n"
        "  description = rigport $in -> $out\n\n",
        ninja_shell_quoted(self.string()), format.name, common_args, ninja_deps_prefix, format.name, common_args);
    size_t edges = 0;
    for (auto& m : plan.models) {
        if (m.refused) {
            fmt::print(stderr, "{}\n", terminal_text(fmt::format("skipped {}: {}", m.input, m.refused->message)));
            continue;
        }
        // The mesh first, then its animation files (convert binds them by joint name).
        std::string ins, quoted;
        std::vector<std::string> files{m.input};
        files.insert(files.end(), m.animations.begin(), m.animations.end());
        bool msvc_drops = false;
        for (auto& file : files) {
            const std::string abs = absolute_path(file);
            ins += (ins.empty() ? "" : " ") + ninja_path(abs);
            quoted += (quoted.empty() ? "" : " ") + ninja_shell_quoted(abs);
            msvc_drops = msvc_drops || ninja_msvc_drops(abs);
        }
        const std::string out = absolute_path(m.output);
        text += fmt::format("build {}: {} {}\n  input = {}\n  output = {}\n", ninja_path(out), msvc_drops ? "convert_depfile" : "convert", ins,
                            quoted, ninja_shell_quoted(out));
        ++edges;
    }
    WriteOptions options;
    options.protect = plan.protect;
    if (auto st = write_file_atomic(a.ninja, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), options); !st)
        return fail(st.error(), write_exit_code(st.error()), false);
    fmt::print(stderr, "{}\n", terminal_text(fmt::format("wrote {}: {} models; `ninja -f {}` converts them, and later only those whose files changed", a.ninja, edges, a.ninja)));
    return exit_ok;
}

// Staged files a batch commits together: one durability step per this many files (and one at
// the end), so a crash loses at most this much finished work, and temporaries stay few.
constexpr size_t commit_files = 256;

// The batch's exit code: 0 when every model converted; otherwise the most severe failure class,
// write (4) over unsupported (3) over read (2). A refused output (another model's, or an input)
// counts as a write failure.
int batch_exit_code(const std::vector<ModelResult>& results) {
    auto rank = [](int code) { return code == exit_write ? 3 : code == exit_unsupported ? 2 : code == exit_read ? 1 : 0; };
    int worst = exit_ok;
    for (auto& r : results) {
        if (r.ok()) continue;
        int code = r.exit_code;
        if (code != exit_write && code != exit_unsupported && code != exit_read) code = r.failed_writing ? exit_write : exit_read;
        if (rank(code) > rank(worst)) worst = code;
    }
    return worst;
}

int run_batch(const BatchArgs& a) {
    const auto start = std::chrono::steady_clock::now();
    // Everything is checked before any model is read.
    const FormatInfo* format = find_format(a.format);
    if (!format) return fail(usage_error(fmt::format("unknown format '{}' (see 'rigport formats')", a.format)), exit_usage, false);
    if (!format->write) return fail(make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", format->name)), exit_unsupported, false);
    if (format->extensions.empty())
        return fail(usage_error(fmt::format("--format {} has no file extension to name the outputs with", format->name)), exit_usage, false);
    if (!a.unit.empty() && a.unit != "keep" && !unit_metres(a.unit))
        return fail(usage_error(fmt::format("--unit '{}': expected keep or a unit ({})", printable(a.unit), unit_names())), exit_usage, false);
    if (auto st = a.textures.check(); !st) return fail(st.error(), exit_usage, false);
    std::error_code ec;
    const fs::path out_dir = a.out_dir;
    if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
        return fail(usage_error(fmt::format("-o '{}' is not a folder", a.out_dir)), exit_usage, false);

    Planner planner(out_dir, *format, a.follow_links, !a.no_companions);
    for (auto& input : a.inputs) planner.add_input(input);
    Plan plan = planner.finish();
    if (plan.models.empty()) {
        for (auto& n : plan.notes) fmt::print(stderr, "{}\n", terminal_text(n));
        return fail(usage_error("no models found in the inputs (files whose extension a format reads, or .cfg characters)"), exit_usage, false);
    }
    if (!fs::is_directory(out_dir, ec)) {
        fs::create_directory(out_dir, ec);
        if (ec) return fail(make_error(ErrorCode::WriteFailed, fmt::format("{}: cannot create the folder: {}", a.out_dir, ec.message())), exit_write, false);
    }
    WriteOptions report_options;
    report_options.protect = plan.protect;
    if (auto st = check_build_files(a, plan); !st) return fail(st.error(), write_exit_code(st.error()), false);

    if (!a.ninja.empty()) return write_ninja(a, *format, plan);

    // Each model exactly as `rigport convert MODEL -o OUT --format FMT` converts it.
    ModelOptions options;
    options.format = format;
    options.unit = a.unit;
    options.images.texture_paths = a.textures.paths;
    Claims claims(plan, a.report);
    Progress progress(plan.models.size(), a.quiet);
    for (auto& n : plan.notes) progress.note(n);
    std::vector<ModelResult> results(plan.models.size());
    // Each converted model's files are staged (WriteGroup), then committed with the other models
    // staged so far in one durability step (one syncfs, not one fsync per file) once enough are
    // waiting, and at the end: a model is reported "ok" once its files are in place and durable.
    std::mutex staged_mutex;
    std::vector<std::pair<size_t, WriteGroup>> staged;
    size_t staged_files = 0;
    auto commit = [&](std::vector<std::pair<size_t, WriteGroup>> batch) {
        std::vector<WriteGroup*> groups;
        for (auto& [i, group] : batch) groups.push_back(&group);
        const std::vector<Status> done = commit_groups(groups);
        for (size_t k = 0; k < batch.size(); ++k) {
            ModelResult& r = results[batch[k].first];
            if (!done[k]) {
                r.error = done[k].error();
                r.exit_code = write_exit_code(done[k].error());
                r.failed_writing = true;
                r.outputs.clear();
            }
            progress.finished(plan.models[batch[k].first], r);
        }
    };
    std::atomic<size_t> next{0};
    auto work = [&] {
        while (true) {
            const size_t i = next++;
            if (i >= plan.models.size()) break;
            const Model& m = plan.models[i];
            ModelResult& r = results[i];
            if (m.refused) {
                r.error = *m.refused;
                r.exit_code = exit_write;
                r.failed_writing = true;
                r.inputs = {m.input};
            } else {
                // The companions the plan found, given as inputs: the model is read as convert reads
                // the mesh file alone (add_companions), without listing its folder again.
                ModelJob job;
                job.inputs = {CompileInput{{m.input}, {}}};
                for (auto& a : m.animations) job.inputs.push_back(CompileInput{{a}, {}});
                job.output = m.output;
                job.check_output_first = false;  // the mirrored folder is made only when there is something to write
                job.before_write = [&, i](const std::vector<std::string>& paths, const std::vector<std::span<const uint8_t>>& contents) -> Status {
                    if (auto st = claims.claim(i, plan.models, paths, contents); !st) return st;
                    return make_folder(m.output);
                };
                WriteGroup group;
                job.stage_into = &group;
                try {
                    r = convert_model(job, options);
                    r.companions = m.animations;
                } catch (const std::exception& e) {  // out of memory: this model fails, the others go on
                    r = ModelResult{};
                    r.error = make_error(ErrorCode::LimitExceeded, e.what());
                    r.error->path = m.input;
                    r.exit_code = exit_read;
                }
                if (r.ok()) {
                    std::vector<std::pair<size_t, WriteGroup>> ready;
                    {
                        std::lock_guard lock(staged_mutex);
                        staged_files += group.file_count();
                        staged.emplace_back(i, std::move(group));
                        if (staged_files >= commit_files) {
                            ready.swap(staged);
                            staged_files = 0;
                        }
                    }
                    if (!ready.empty()) commit(std::move(ready));
                    continue;
                }
            }
            progress.finished(m, r);
        }
    };
    const unsigned threads = std::min<size_t>(a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency()), plan.models.size());
    // Models in parallel already use the cores: each model's own steps then stay on its thread.
    if (threads > 1) options.threads = 1;
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {  // no more threads to be had: the ones running share the work
            break;
        }
    }
    work();
    for (auto& t : pool) t.join();
    commit(std::move(staged));
    progress.end();

    size_t converted = 0, failed = 0, warnings = 0;
    for (auto& r : results) {
        (r.ok() ? converted : failed) += 1;
        warnings += r.warning_count();  // counted with -q too
    }
    int code = batch_exit_code(results);
    if (!a.report.empty()) {
        Json report = Json::array();
        for (size_t i = 0; i < results.size(); ++i) report.push_back(model_record(plan.models[i].input, results[i]));
        const std::string text = report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        if (auto st = write_file_atomic(a.report, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), report_options); !st) {
            print_error(st.error().to_string());
            code = exit_write;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "{} converted, {} failed, {} warnings in {:.2f} s\n", converted, failed, warnings, seconds);
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
    return {sub, [args]() { return run_batch(*args); }};
}

}  // namespace rigport::cli

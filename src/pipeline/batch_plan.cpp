// The batch's plan: which files in the inputs are models, which are parts or companions of
// another, and where each model's output goes (docs/cli.md "batch", docs/library.md "Batch").
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "pipeline/batch_internal.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

namespace fs = std::filesystem;
using pipeline::path_identity;

std::string identity(const fs::path& p) { return path_identity(p.string()); }

// Why the file is not a model but another model's side file (FormatInfo::side_file: a Half-Life
// NAMEt.mdl), asked of every row that reads its extension, from the file's first 4 KB; null
// when it is none (or cannot be read: converting it reports why).
const char* side_file_reason(const fs::path& path) {
    auto asks = [&](const FormatInfo& f) { return f.side_file && has_extension(path.string(), f.extensions); };
    if (std::none_of(formats().begin(), formats().end(), asks)) return nullptr;
    std::vector<uint8_t> bytes(4096);
    std::ifstream in(path, std::ios::binary);  // a regular file (the walk checked)
    if (!in) return nullptr;
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    const std::span<const uint8_t> head(bytes.data(), size_t(in.gcount()));
    for (const FormatInfo& f : formats())
        if (asks(f))
            if (const char* why = f.side_file(head)) return why;
    return nullptr;
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

// The models the inputs hold, in a deterministic order: each input in the order given; a folder's
// files sorted by name, recursively (out_dir itself skipped), only those whose extension a
// registered format reads; a file given directly as it is, a symbolic link too. An archive is
// skipped with a reason; a file given twice is one model. Symbolic links met in a folder
// (docs/cli.md "batch"): one leading out of the input folder is skipped naming the link, unless
// follow_links; a link to a file inside is followed (the file is one model, named by its own path
// when the walk also meets it there); a link to a folder inside is not followed (the walk reaches
// that folder itself).
class Planner {
public:
    Planner(const BatchOptions& options, const FormatInfo& format)
        : out_dir_(options.out_dir), extension_(format.extensions.front()), out_dir_identity_(identity(out_dir_)),
          follow_links_(options.follow_links), companions_(options.companions), names_(options.names) {
        plan_.format = &format;
    }

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
        // A file given directly goes to out_dir/<stem>.<ext>; an archive member (PACK.jpk:MEMBER) is named by the member.
        fs::path stem_of = input;
        if (auto split = split_archive_member_path(input); split && !fs::exists(input, ec)) stem_of = split->second;
        add_file(fs::path(input), out_dir_ / fs::path(stem_of.stem().string() + std::string(extension_)), false);
    }

    BatchPlan finish() {
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
            if (!names_files(f.path) && claimed.count(f.identity)) {
                plan_.claimed.push_back(f.path.string());
                continue;
            }
            BatchJob m{f.path.string(), with_mesh[i], f.output.string(), std::nullopt};
            auto [it, first] = owner.emplace(identity(f.output), plan_.jobs.size());
            if (!first) {
                const std::string& other = plan_.jobs[it->second].input;
                m.refused = make_error(ErrorCode::InvalidArgument,
                                       fmt::format("'{}' and '{}' both have the output '{}': '{}' writes it, this one is not converted "
                                                   "(rename one, or convert it on its own with another {})",
                                                   other, m.input, m.output, other, names_.out_dir));
                m.refused->path = m.input;
            }
            plan_.jobs.push_back(std::move(m));
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
        if (const ArchiveInfo* archive = find_archive_by_extension(path.string())) {
            plan_.skipped.push_back({path.string(), std::string(archive->not_expanded)});
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

    // Whether the walk goes through the symbolic link e: a link out of the input folder only with
    // follow_links (else a skip naming the link, never what it points to, when it could be a
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
        if (is_folder || (f && f->read) || find_archive_by_extension(e.path().string()))
            plan_.skipped.push_back({e.path().string(), fmt::format("a symbolic link to a {} outside {} (not followed; {} follows it)",
                                                                     is_folder ? "folder" : "file", tree_name_, names_.follow_links)});
        plan_.protect.push_back(e.path().string());
        return false;
    }

    // rel: the folder below the input folder, mirrored under out_dir.
    void walk(const fs::path& dir, const fs::path& rel) {
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
            plan_.skipped.push_back({dir.string(), ec.message()});
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
            if (!find_archive_by_extension(name.string())) {
                const FormatInfo* f = find_format_by_extension(name.string());
                if (!f || !f->read) {
                    plan_.protect.push_back(e.path().string());
                    continue;
                }
            }
            if (const char* why = side_file_reason(e.path())) {  // read with its model, not converted alone
                plan_.protect.push_back(e.path().string());
                plan_.skipped.push_back({e.path().string(), why});
                continue;
            }
            add_file(e.path(), out_dir_ / rel / fs::path(name.stem().string() + std::string(extension_)), link);
        }
    }

    fs::path out_dir_;
    std::string_view extension_;
    std::string out_dir_identity_;
    bool follow_links_ = false;
    bool companions_ = true;
    const BatchOptionNames& names_;
    fs::path tree_;                      // the input folder being walked, resolved
    std::string tree_name_;              // ... as given
    std::vector<std::string> walking_;   // the folders being walked, outermost first (identities)
    std::map<std::string, size_t> seen_;  // identity -> its index in files_
    std::vector<Found> files_;
    BatchPlan plan_;
};

Error usage(std::string message) { return make_error(ErrorCode::InvalidArgument, std::move(message)); }

}  // namespace

Expected<BatchPlan> plan_batch(const BatchOptions& o) {
    // Everything is checked before any model is read.
    const BatchOptionNames& n = o.names;
    const FormatInfo* format = find_format(o.format);
    if (!format) return usage(fmt::format("unknown format '{}' (see '{}')", o.format, n.listing));
    if (!format->write) return make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", format->name));
    if (format->extensions.empty()) return usage(fmt::format("{} {} has no file extension to name the outputs with", n.format, format->name));
    const std::string& unit = o.convert.unit;
    if (!unit.empty() && unit != "keep" && !unit_metres(unit)) return usage(fmt::format("{} '{}': expected keep or a unit ({})", n.unit, unit, unit_names()));
    std::error_code ec;
    for (auto& dir : o.convert.images.texture_paths)
        if (dir.empty() || !fs::is_directory(dir, ec))
            return usage(fmt::format("{} '{}': {}", n.texture_paths, dir, fs::exists(dir, ec) ? "not a folder" : "no such folder"));
    if (fs::exists(o.out_dir, ec) && !fs::is_directory(o.out_dir, ec)) return usage(fmt::format("{} '{}' is not a folder", n.out_dir, o.out_dir));

    Planner planner(o, *format);
    for (auto& input : o.inputs) planner.add_input(input);
    return planner.finish();
}

}  // namespace rigport

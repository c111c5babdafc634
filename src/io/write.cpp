// Writing outputs safely: checks before any work, temporaries beside each target, one durability
// step per group of outputs, renames under a folder lock, stale temporaries of dead runs removed
// (io.hpp WriteGroup, write_output, check_output).
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "model/guarded.hpp"
#include "io/staged_file.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace fs = std::filesystem;

namespace {

// What every temporary is called: "NAME" + tmp_marker + "PID-XXXXXXXX", so a later run can tell a
// dead run's leftovers from a live run's files.
constexpr std::string_view tmp_marker = ".rigport-tmp-";

Error os_error(ErrorCode code, const std::string& path, const std::string& what, int err = errno) {
    Error e = make_error(code, fmt::format("{}: {}", what, std::strerror(err)));
    e.path = path;
    return e;
}

Error write_error(ErrorCode code, const std::string& path, std::string message) {
    Error e = make_error(code, std::move(message));
    e.path = path;
    return e;
}

// The file a write to path replaces: symlinks followed (at most 40, as the kernel does), so a
// symlinked output keeps its link and replaces the file it points to. A dangling link resolves to
// the file it names, which is then created.
Expected<std::string> resolve_target(const std::string& path) {
    fs::path p(path);
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
        std::error_code ec;
        const fs::path link = fs::read_symlink(p, ec);
        if (ec) return os_error(ErrorCode::WriteFailed, path, "cannot read the symlink", ec.value());
        p = link.is_absolute() ? link : p.parent_path() / link;
    }
    return write_error(ErrorCode::WriteFailed, path, "too many levels of symbolic links");
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

struct FileId {
    dev_t dev;
    ino_t ino;
    auto operator<=>(const FileId&) const = default;
};

// One target checked: `shown` is the name the user gave (or the side file's name), `target` the
// resolved path that will be replaced.
Status check_target(const std::string& shown, const std::string& target, const WriteOptions& options,
                    const std::vector<std::pair<FileId, std::string>>& protect) {
    const fs::path folder = fs::path(target).parent_path();
    const std::string folder_name = folder.empty() ? "." : folder.string();
    struct stat dir {};
    if (::stat(folder_name.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode))
        return write_error(ErrorCode::WriteFailed, shown, fmt::format("the output folder '{}' does not exist", folder_name));
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0) {
        if (errno == ENOENT) return Ok{};
        return os_error(ErrorCode::WriteFailed, shown, "cannot inspect the output");
    }
    if (!S_ISREG(st.st_mode))
        return write_error(ErrorCode::WriteFailed, shown,
                           fmt::format("the output is {}; rigport replaces only regular files (-o - streams to standard output)",
                                       kind_of(st.st_mode)));
    for (auto& [id, name] : protect)
        if (id == FileId{st.st_dev, st.st_ino})
            return write_error(ErrorCode::InvalidArgument, shown,
                               fmt::format("writing here would replace '{}', an input of this command (a model, a file it reads or a texture it names); choose another output", name));
    const bool read_only = (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(target.c_str(), W_OK) != 0;
    if (read_only && !options.force)
        return write_error(ErrorCode::WriteFailed, shown, "the output is read-only; --force replaces it");
    return Ok{};
}

std::vector<std::pair<FileId, std::string>> protected_ids(const WriteOptions& options) {
    std::vector<std::pair<FileId, std::string>> ids;
    for (auto& p : options.protect) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) ids.push_back({FileId{st.st_dev, st.st_ino}, p});
    }
    return ids;
}

// Removes temporaries in folder whose writing process no longer runs (killed runs).
void remove_stale_temporaries(const std::string& folder) {
    DIR* d = ::opendir(folder.empty() ? "." : folder.c_str());
    if (!d) return;
    std::vector<std::string> stale;
    while (const dirent* e = ::readdir(d)) {
        std::string_view name(e->d_name);
        const size_t at = name.rfind(tmp_marker);
        if (at == std::string_view::npos || at == 0) continue;
        std::string_view rest = name.substr(at + tmp_marker.size());  // "PID-XXXXXXXX"
        long pid = 0;
        auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
        const std::string_view tail(end, size_t(rest.data() + rest.size() - end));  // "-XXXXXXXX"
        if (ec != std::errc() || pid <= 0 || tail.size() != 9 || tail[0] != '-' ||
            tail.find_first_not_of("0123456789abcdef", 1) != std::string_view::npos)
            continue;
        if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) stale.emplace_back(name);
    }
    ::closedir(d);
    for (auto& name : stale) ::unlink((fs::path(folder.empty() ? "." : folder) / name).c_str());
}

// A temporary's suffix: a random start taken once per process, then a step per file (a
// random_device per file cost 3% of a batch); unique within the process, the PID tells processes apart.
uint32_t temporary_suffix() {
    static const uint32_t start = std::random_device{}();
    static std::atomic<uint32_t> count{0};
    return start + count.fetch_add(1, std::memory_order_relaxed) * 0x9e3779b9u;
}

Status write_all(int fd, std::span<const uint8_t> bytes, const std::string& path) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return os_error(ErrorCode::WriteFailed, path, "write failed");
        done += static_cast<size_t>(n);
    }
    return Ok{};
}

// Holds an exclusive flock on a folder while staged files are renamed into it, so two runs writing
// the same output never mix their files. Reused while consecutive outputs share a folder.
class FolderLock {
public:
    FolderLock() = default;
    ~FolderLock() { release(); }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

    void hold(const std::string& folder) {
        if (fd_ >= 0 && folder == folder_) return;
        release();
        folder_ = folder;
        fd_ = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ >= 0)
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    void release() {
        if (fd_ >= 0) ::close(fd_);  // releases the lock
        fd_ = -1;
    }

private:
    int fd_ = -1;
    std::string folder_;
};

// fsync of a file or folder by name (the write's fd is closed by then).
Status sync_path(const std::string& path, const std::string& shown, bool folder) {
    const int fd = ::open(path.empty() ? "." : path.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return os_error(ErrorCode::WriteFailed, shown, "cannot open for syncing");
    Status st = Ok{};
    if (::fsync(fd) != 0) st = os_error(ErrorCode::WriteFailed, shown, "write failed");
    ::close(fd);
    return st;
}

// syncfs of the filesystem holding folder: every dirty page of it, ours among them, in one step
// (one journal commit instead of one per file).
Status sync_filesystem(const std::string& folder, const std::string& shown) {
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return os_error(ErrorCode::WriteFailed, shown, "cannot open the output folder for syncing");
    Status st = Ok{};
    if (::syncfs(fd) != 0) st = os_error(ErrorCode::WriteFailed, shown, "write failed");
    ::close(fd);
    return st;
}

std::string folder_of(const std::string& path) { return fs::path(path).parent_path().string(); }

}  // namespace

bool is_stdout_path(const std::string& path) { return path == "-" || path == "/dev/stdout"; }

namespace detail {

Expected<StagedFile> stage_file(const std::string& path, std::span<const uint8_t> bytes) {
    // The temporary sits beside its target so the rename cannot cross filesystems. A file that
    // is replaced keeps its permission bits. No fsync here: the group's commit makes every
    // staged file durable in one step before any rename.
    mode_t mode = 0666;
    struct stat old {};
    const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {  // another file of that name: the next suffix
        tmp = fmt::format("{}{}{}-{:08x}", path, tmp_marker, ::getpid(), temporary_suffix());
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return os_error(ErrorCode::WriteFailed, path, "cannot create a temporary file beside the output");
    Status st = write_all(fd, bytes, path);
    if (st && replacing && ::fchmod(fd, old.st_mode & 07777) != 0) st = os_error(ErrorCode::WriteFailed, path, "cannot set permissions");
    if (::close(fd) != 0 && st) st = os_error(ErrorCode::WriteFailed, path, "write failed");
    if (!st) {
        ::unlink(tmp.c_str());
        return st.error();
    }
    return StagedFile{tmp, path};
}


}  // namespace detail

static Status check_output_unguarded(const std::string& path, const WriteOptions& options) {
    if (is_stdout_path(path)) return Ok{};
    auto target = resolve_target(path);
    if (!target) return target.error();
    return check_target(path, *target, options, protected_ids(options));
}

Status check_output(const std::string& path, const WriteOptions& options) {
    return detail::guarded(path, "checking the output", [&] { return check_output_unguarded(path, options); });
}

// ---- WriteGroup ---------------------------------------------------------------------------------

WriteGroup::WriteGroup() = default;
WriteGroup::WriteGroup(WriteGroup&& other) noexcept = default;
WriteGroup& WriteGroup::operator=(WriteGroup&& other) noexcept {
    if (this != &other) {
        discard();
        outputs_ = std::move(other.outputs_);
        cleaned_ = std::move(other.cleaned_);
        other.outputs_.clear();
    }
    return *this;
}
WriteGroup::~WriteGroup() { discard(); }

void WriteGroup::discard() noexcept {
    for (auto& out : outputs_)
        for (auto& f : out.files)
            if (!f.temporary.empty()) ::unlink(f.temporary.c_str());  // empty: renamed into place
    outputs_.clear();
}

size_t WriteGroup::file_count() const {
    size_t n = 0;
    for (auto& out : outputs_) n += out.files.size();
    return n;
}

Status WriteGroup::stage_files(const std::string& path, std::span<const uint8_t> main_bytes, std::span<const OutputFile> side_files,
                               const WriteOptions& options) {
    if (is_stdout_path(path))
        return write_error(ErrorCode::InvalidArgument, path, "standard output cannot be staged; write_output streams it");
    // Every target is checked, then written out under a temporary name: a failure leaves all the
    // old files as they were (never a new .bin beside an old .gltf).
    const auto protect = protected_ids(options);
    const fs::path folder = fs::path(path).parent_path();
    struct Target {
        std::string shown, path;
        std::span<const uint8_t> bytes;
    };
    std::vector<Target> targets;
    std::set<std::string> seen;
    for (size_t i = 0; i <= side_files.size(); ++i) {
        const bool main = i == side_files.size();
        const std::string shown = main ? path : (folder / side_files[i].name).string();
        auto resolved = resolve_target(shown);
        if (!resolved) return resolved.error();
        if (!seen.insert(*resolved).second)
            return write_error(ErrorCode::InvalidArgument, shown, "two files of this output have the same name");
        if (auto st = check_target(shown, *resolved, options, protect); !st) return st;
        targets.push_back({shown, *resolved, main ? main_bytes : std::span<const uint8_t>(side_files[i].bytes)});
    }
    for (auto& t : targets)
        if (std::string f = folder_of(t.path); std::find(cleaned_.begin(), cleaned_.end(), f) == cleaned_.end()) {
            remove_stale_temporaries(f);
            cleaned_.push_back(std::move(f));
        }

    // Whatever of this output is staged when a file fails (or an exception such as bad_alloc
    // passes on its way to the guard) is removed; outputs staged before stay staged.
    Staged out;
    struct Cleanup {
        Staged& out;
        bool keep = false;
        ~Cleanup() {
            if (!keep)
                for (auto& f : out.files) ::unlink(f.temporary.c_str());
        }
    } cleanup{out};
    out.files.reserve(targets.size());
    for (auto& t : targets) {
        auto file = detail::stage_file(t.path, t.bytes);
        if (!file) {
            Error e = file.error();
            e.path = t.shown;
            return e;
        }
        out.files.push_back({std::move(file->temporary), std::move(file->path), t.shown});
    }
    outputs_.push_back(std::move(out));
    cleanup.keep = true;  // the temporaries now belong to outputs_
    return Ok{};
}

Status WriteGroup::stage(const std::string& path, const Output& output, const WriteOptions& options) {
    return detail::guarded(path, "writing", [&] { return stage_files(path, output.bytes, output.side_files, options); });
}

Status WriteGroup::stage(const std::string& path, std::span<const uint8_t> bytes, const WriteOptions& options) {
    return detail::guarded(path, "writing", [&] { return stage_files(path, bytes, {}, options); });
}

Status WriteGroup::commit() {
    WriteGroup* self = this;
    return commit_groups(std::span<WriteGroup* const>(&self, 1)).front();
}

// Up to this many files (and folders) a commit syncs each one; beyond it, the filesystem at once.
constexpr size_t few_files = 8;

std::vector<Status> WriteGroup::commit_all(std::span<WriteGroup* const> groups) {
    std::vector<Status> results(groups.size(), Ok{});
    auto fail_all = [&](const Error& e) {
        for (size_t g = 0; g < groups.size(); ++g)
            if (!groups[g]->outputs_.empty()) results[g] = e;
        for (auto* g : groups) g->discard();
        return results;
    };
    // 1. Durability of the contents, before anything is renamed: a crash from here on leaves every
    // target old or new, never a renamed file whose data had not reached the disk. A few staged
    // files (a model, a .gltf with its .bin): an fsync each, which costs only our own data. More:
    // one syncfs per filesystem written to (their temporaries sit beside their targets, so a
    // folder's device is its files' device); a syncfs also writes out other programs' dirty pages,
    // which only many files of ours pay for.
    size_t files = 0;
    std::vector<const WriteGroup::File*> few;  // while there are at most few_files
    std::map<dev_t, std::pair<std::string, std::string>> filesystems;  // device -> a folder on it, a file shown in errors
    for (auto* g : groups)
        for (auto& out : g->outputs_)
            for (auto& f : out.files) {
                if (++files <= few_files) few.push_back(&f);
                const std::string folder = folder_of(f.path);
                struct stat st {};
                if (::stat(folder.empty() ? "." : folder.c_str(), &st) != 0)
                    return fail_all(os_error(ErrorCode::WriteFailed, f.shown, "cannot inspect the output folder"));
                filesystems.emplace(st.st_dev, std::make_pair(folder, f.shown));
            }
    if (files == 0) return results;
    if (files <= few_files) {
        for (auto* f : few)
            if (auto st = sync_path(f->temporary, f->shown, false); !st) return fail_all(st.error());
    } else {
        for (auto& [dev, where] : filesystems)
            if (auto st = sync_filesystem(where.first, where.second); !st) return fail_all(st.error());
    }
    // 2. Renames: each output's side files first, its main file last, under a lock on the main
    // file's folder. A failed rename stops its group: the rest of it is discarded, the old files
    // stay.
    std::map<std::string, std::vector<size_t>> renamed_into;  // folder -> groups that renamed into it
    {
        FolderLock lock;
        for (size_t g = 0; g < groups.size(); ++g) {
            auto& outputs = groups[g]->outputs_;
            for (size_t o = 0; o < outputs.size() && results[g]; ++o) {
                auto& out = outputs[o];
                lock.hold(folder_of(out.files.back().path));
                for (size_t k = 0; k < out.files.size(); ++k) {
                    auto& f = out.files[k];
                    if (::rename(f.temporary.c_str(), f.path.c_str()) != 0) {
                        results[g] = os_error(ErrorCode::WriteFailed, f.shown, "cannot replace the output");
                        break;
                    }
                    f.temporary.clear();  // in place: nothing left to remove
                    auto& in = renamed_into[folder_of(f.path)];
                    if (in.empty() || in.back() != g) in.push_back(g);
                }
            }
            groups[g]->discard();  // whatever a failure left staged
        }
    }
    // 3. The renames made durable: each folder's fsync when there are a few, else one syncfs per
    // filesystem again (one journal commit, where an fsync per folder would be one each).
    auto fail_touched = [&](const std::vector<size_t>& touched, const Error& e) {
        for (size_t g : touched)
            if (results[g]) results[g] = e;
    };
    if (renamed_into.size() <= few_files) {
        for (auto& [folder, touched] : renamed_into)
            if (auto st = sync_path(folder, folder.empty() ? "." : folder, true); !st) fail_touched(touched, st.error());
    } else {
        for (auto& [dev, where] : filesystems)
            if (auto st = sync_filesystem(where.first, where.second); !st) {
                std::vector<size_t> touched;
                for (auto& [folder, groups_in] : renamed_into) touched.insert(touched.end(), groups_in.begin(), groups_in.end());
                fail_touched(touched, st.error());
            }
    }
    return results;
}

std::vector<Status> commit_groups(std::span<WriteGroup* const> groups) {
    try {
        return WriteGroup::commit_all(groups);
    } catch (...) {
        Error e = detail::current_exception_error("", "writing");
        for (auto* g : groups) g->discard();
        return std::vector<Status>(groups.size(), Status(e));
    }
}

// ---- one output ---------------------------------------------------------------------------------

Status write_output(const std::string& path, const Output& output, const WriteOptions& options) {
    if (is_stdout_path(path)) {
        if (!output.side_files.empty())
            return write_error(ErrorCode::Unsupported, path,
                               fmt::format("this output needs a side file ('{}'), which standard output cannot carry",
                                           output.side_files.front().name));
        return detail::guarded(path, "writing", [&] { return write_all(STDOUT_FILENO, output.bytes, "standard output"); });
    }
    WriteGroup group;
    if (auto st = group.stage(path, output, options); !st) return st;
    return group.commit();
}

Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes, const WriteOptions& options) {
    if (is_stdout_path(path)) return detail::guarded(path, "writing", [&] { return write_all(STDOUT_FILENO, bytes, "standard output"); });
    WriteGroup group;
    if (auto st = group.stage(path, bytes, options); !st) return st;
    return group.commit();
}

}  // namespace rigport

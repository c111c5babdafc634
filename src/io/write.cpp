// Writing outputs safely: checks before any work, temporaries beside each target, renames under a
// folder lock, stale temporaries of dead runs removed (io.hpp write_output, check_output).
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>

#include "core/guarded.hpp"
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
                               fmt::format("writing here would replace '{}', which this command reads; choose another output", name));
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

// Holds an exclusive flock on a folder while the staged files are renamed into it.
class FolderLock {
public:
    explicit FolderLock(const std::string& folder) : fd_(::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
        if (fd_ >= 0)
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~FolderLock() {
        if (fd_ >= 0) {
            ::fsync(fd_);  // the renames reach the disk with the data
            ::close(fd_);  // releases the lock
        }
    }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_;
};

}  // namespace

bool is_stdout_path(const std::string& path) { return path == "-" || path == "/dev/stdout"; }

namespace detail {

Expected<StagedFile> stage_file(const std::string& path, std::span<const uint8_t> bytes) {
    // The temporary sits beside its target so the rename cannot cross filesystems. A file that
    // is replaced keeps its permission bits.
    std::random_device rd;
    const std::string tmp = fmt::format("{}{}{}-{:08x}", path, tmp_marker, ::getpid(), rd());
    mode_t mode = 0666;
    struct stat old {};
    const bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) return os_error(ErrorCode::WriteFailed, path, "cannot create a temporary file beside the output");
    Status st = write_all(fd, bytes, path);
    if (st && replacing && ::fchmod(fd, old.st_mode & 07777) != 0) st = os_error(ErrorCode::WriteFailed, path, "cannot set permissions");
    if (st && ::fsync(fd) != 0) st = os_error(ErrorCode::WriteFailed, path, "write failed");
    if (::close(fd) != 0 && st) st = os_error(ErrorCode::WriteFailed, path, "write failed");
    if (!st) {
        ::unlink(tmp.c_str());
        return st.error();
    }
    return StagedFile{tmp, path};
}

Status commit_file(const StagedFile& file) {
    if (::rename(file.temporary.c_str(), file.path.c_str()) != 0) {
        auto e = os_error(ErrorCode::WriteFailed, file.path, "cannot replace the output");
        ::unlink(file.temporary.c_str());
        return e;
    }
    return Ok{};
}

void discard_file(const StagedFile& file) { ::unlink(file.temporary.c_str()); }

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

namespace {

Status write_files(const std::string& path, std::span<const uint8_t> main_bytes, std::span<const OutputFile> side_files,
                   const WriteOptions& options) {
    if (is_stdout_path(path)) {
        if (!side_files.empty())
            return write_error(ErrorCode::Unsupported, path,
                               fmt::format("this output needs a side file ('{}'), which standard output cannot carry",
                                           side_files.front().name));
        return write_all(STDOUT_FILENO, main_bytes, "standard output");
    }
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
    std::set<std::string> folders;
    for (auto& t : targets) folders.insert(fs::path(t.path).parent_path().string());
    for (auto& f : folders) remove_stale_temporaries(f);

    // Whatever is still staged when this returns (a failure, or an exception such as bad_alloc
    // on its way to the guard) is removed: no temporary outlives a failed run.
    struct Staged {
        std::vector<detail::StagedFile> files;
        size_t committed = 0;
        ~Staged() {
            for (size_t i = committed; i < files.size(); ++i) detail::discard_file(files[i]);
        }
    } staged;
    staged.files.reserve(targets.size());
    for (auto& t : targets) {
        auto file = detail::stage_file(t.path, t.bytes);
        if (!file) {
            Error e = file.error();
            e.path = t.shown;
            return e;
        }
        staged.files.push_back(std::move(*file));
    }
    // Side files first, the main file last, all under one lock on the main file's folder.
    FolderLock lock(fs::path(targets.back().path).parent_path().string());
    for (auto& file : staged.files) {
        ++staged.committed;  // commit_file removes its temporary itself when the rename fails
        if (auto st = detail::commit_file(file); !st) return st;
    }
    return Ok{};
}

}  // namespace

Status write_output(const std::string& path, const Output& output, const WriteOptions& options) {
    return detail::guarded(path, "writing", [&] { return write_files(path, output.bytes, output.side_files, options); });
}

Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes, const WriteOptions& options) {
    return detail::guarded(path, "writing", [&] { return write_files(path, bytes, {}, options); });
}

}  // namespace rigport

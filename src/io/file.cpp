// Whole-file read and atomic write (temporary file beside the target, fsync, rename).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "io/staged_file.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

Error os_error(ErrorCode code, const std::string& path, const char* what) {
    Error e = make_error(code, fmt::format("{}: {}", what, std::strerror(errno)));
    e.path = path;
    return e;
}

}  // namespace

Expected<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_bytes) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return os_error(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot open");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        Error e = make_error(ErrorCode::ReadFailed, "not a regular file");
        e.path = path;
        return e;
    }
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        ::close(fd);
        Error e = make_error(ErrorCode::LimitExceeded, fmt::format("file is {} bytes, the limit is {}", st.st_size, max_bytes));
        e.path = path;
        return e;
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            auto e = os_error(ErrorCode::ReadFailed, path, "read failed");
            ::close(fd);
            return e;
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    return bytes;
}

namespace detail {

Expected<StagedFile> stage_file(const std::string& path, std::span<const uint8_t> bytes) {
    // The temporary file sits in the target's directory so the rename cannot cross filesystems.
    std::random_device rd;
    std::string tmp = fmt::format("{}.tmp-{:08x}", path, rd());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return os_error(ErrorCode::WriteFailed, path, "cannot create temporary file");
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            auto e = os_error(ErrorCode::WriteFailed, path, "write failed");
            ::close(fd);
            ::unlink(tmp.c_str());
            return e;
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        auto e = os_error(ErrorCode::WriteFailed, path, "write failed");
        ::unlink(tmp.c_str());
        return e;
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

Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
    auto staged = detail::stage_file(path, bytes);
    if (!staged) return staged.error();
    return detail::commit_file(*staged);
}

}  // namespace rigport

// Whole-file read: regular files only, bounded by a size limit.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/guarded.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

Error os_error(ErrorCode code, const std::string& path, const char* what) {
    Error e = make_error(code, fmt::format("{}: {}", what, std::strerror(errno)));
    e.path = path;
    return e;
}

}  // namespace

static Expected<std::vector<uint8_t>> read_file_unguarded(const std::string& path, uint64_t max_bytes) {
    auto not_regular = [&path] {
        Error e = make_error(ErrorCode::ReadFailed, "not a regular file (a folder, pipe or device is never read)");
        e.path = path;
        return e;
    };
    // Only regular files are read, checked before the open: opening a named pipe for reading
    // blocks until a writer comes. stat() first, then O_NONBLOCK in case the name was swapped
    // in between, then fstat() on what was actually opened.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return os_error(errno == ENOENT || errno == ENOTDIR ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot open");
    if (!S_ISREG(st.st_mode)) return not_regular();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return os_error(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot open");
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return not_regular();
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

Expected<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_bytes) {
    return detail::guarded(path, "reading", [&] { return read_file_unguarded(path, max_bytes); });
}

}  // namespace rigport

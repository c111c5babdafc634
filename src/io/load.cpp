// load() and save(): read the file, pick the format from content (then extension), dispatch.
#include <fmt/format.h>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

Error with_path(Error e, const std::string& path) {
    if (e.path.empty()) e.path = path;
    return e;
}

const FormatInfo* choose_reader(std::span<const uint8_t> bytes, const std::string& path, const LoadOptions& options,
                                Error& error) {
    const FormatInfo* f = options.format.empty() ? detect_format(bytes, path) : find_format(options.format);
    if (!f) {
        error = make_error(options.format.empty() ? ErrorCode::UnknownFormat : ErrorCode::InvalidArgument,
                           options.format.empty() ? "not a recognised model format (content and extension)"
                                                  : fmt::format("unknown format '{}'", options.format));
    } else if (!f->read) {
        error = make_error(ErrorCode::Unsupported, fmt::format("reading {} is not supported yet", f->name));
        f = nullptr;
    }
    return f;
}

}  // namespace

Expected<Scene> load_bytes(std::span<const uint8_t> bytes, const std::string& path, const LoadOptions& options) {
    if (bytes.size() > options.max_file_bytes)
        return with_path(make_error(ErrorCode::LimitExceeded, fmt::format("input is {} bytes, the limit is {}", bytes.size(), options.max_file_bytes)), path);
    Error error;
    const FormatInfo* f = choose_reader(bytes, path, options, error);
    if (!f) return with_path(error, path);
    auto scene = f->read(bytes, options);
    if (!scene) return with_path(scene.error(), path);
    return scene;
}

Expected<Scene> load(const std::string& path, const LoadOptions& options) {
    auto bytes = read_file(path, options.max_file_bytes);
    if (!bytes) return bytes.error();
    return load_bytes(*bytes, path, options);
}

Expected<std::vector<uint8_t>> save_bytes(const Scene& scene, const std::string& path, const SaveOptions& options) {
    const FormatInfo* f = options.format.empty() ? find_format_by_extension(path) : find_format(options.format);
    if (!f)
        return with_path(make_error(options.format.empty() ? ErrorCode::UnknownFormat : ErrorCode::InvalidArgument,
                                    options.format.empty() ? "cannot tell the output format from the extension"
                                                           : fmt::format("unknown format '{}'", options.format)),
                         path);
    if (!f->write) return with_path(make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", f->name)), path);
    auto bytes = f->write(scene, options);
    if (!bytes) return with_path(bytes.error(), path);
    return bytes;
}

Status save(const Scene& scene, const std::string& path, const SaveOptions& options) {
    auto bytes = save_bytes(scene, path, options);
    if (!bytes) return bytes.error();
    return write_file_atomic(path, *bytes);
}

}  // namespace rigport

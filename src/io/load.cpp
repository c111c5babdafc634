// load() and save(): read the file, pick the format from content (then extension), dispatch.
#include <fmt/format.h>

#include <filesystem>

#include "io/staged_file.hpp"
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

std::function<Expected<std::vector<uint8_t>>(const std::string&)> resource_reader(const std::string& model_path, uint64_t max_bytes) {
    const std::filesystem::path folder = std::filesystem::path(model_path).parent_path();
    return [folder, max_bytes](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        // A scheme is letters, digits, '+', '-', '.' before a ':' (RFC 3986 §3.1); a one-letter
        // one would be a Windows drive, equally absolute.
        const size_t colon = uri.find(':');
        const bool scheme = colon != std::string::npos && uri.find('/') > colon;
        if (scheme || uri.empty() || std::filesystem::path(uri).is_absolute())
            return make_error(ErrorCode::Unsupported, fmt::format("'{}': only relative paths are read, beside the model", uri));
        return read_file((folder / uri).string(), max_bytes);
    };
}

Expected<Scene> load(const std::string& path, const LoadOptions& options) {
    auto bytes = read_input(path, options.max_file_bytes);  // a file, or PACK.jpk:MEMBER
    if (!bytes) return bytes.error();
    if (options.read_resource) return load_bytes(*bytes, path, options);
    LoadOptions with_folder = options;
    with_folder.read_resource = resource_reader(path, options.max_file_bytes);
    return load_bytes(*bytes, path, with_folder);
}

Expected<Output> save_output(const Scene& scene, const std::string& path, const SaveOptions& options) {
    const FormatInfo* f = options.format.empty() ? find_format_by_extension(path) : find_format(options.format);
    if (!f)
        return with_path(make_error(options.format.empty() ? ErrorCode::UnknownFormat : ErrorCode::InvalidArgument,
                                    options.format.empty() ? "cannot tell the output format from the extension"
                                                           : fmt::format("unknown format '{}'", options.format)),
                         path);
    if (!f->write) return with_path(make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", f->name)), path);
    auto out = f->write(scene, path, options);
    if (!out) return with_path(out.error(), path);
    return out;
}

Expected<std::vector<uint8_t>> save_bytes(const Scene& scene, const std::string& path, const SaveOptions& options) {
    SaveOptions one_file = options;
    one_file.gltf.embed_buffer = true;
    auto out = save_output(scene, path, one_file);
    if (!out) return out.error();
    if (!out->side_files.empty())
        return with_path(make_error(ErrorCode::Unsupported, fmt::format("this output needs a side file ('{}'); use save()",
                                                                        out->side_files.front().name)),
                         path);
    return std::move(out->bytes);
}

Status write_output(const std::string& path, const Output& output) {
    // Every file is written out under a temporary name first: a failure then leaves all the old
    // files as they were (never a new .bin beside an old .gltf). Side files go in place first.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    std::vector<detail::StagedFile> staged;
    auto discard_from = [&](size_t i) {
        for (; i < staged.size(); ++i) detail::discard_file(staged[i]);
    };
    for (size_t i = 0; i <= output.side_files.size(); ++i) {
        const bool main = i == output.side_files.size();
        auto file = main ? detail::stage_file(path, output.bytes)
                         : detail::stage_file((folder / output.side_files[i].name).string(), output.side_files[i].bytes);
        if (!file) {
            discard_from(0);
            return file.error();
        }
        staged.push_back(std::move(*file));
    }
    for (size_t i = 0; i < staged.size(); ++i)
        if (auto st = detail::commit_file(staged[i]); !st) {
            discard_from(i + 1);
            return st;
        }
    return Ok{};
}

Status save(const Scene& scene, const std::string& path, const SaveOptions& options) {
    auto out = save_output(scene, path, options);
    if (!out) return out.error();
    return write_output(path, *out);
}

}  // namespace rigport

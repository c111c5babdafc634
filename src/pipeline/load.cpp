// load(): read the file, pick the format from content (then extension), dispatch.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "model/guarded.hpp"
#include "io/confine.hpp"
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
        // An archive (a JPK pack) holds models but is none: say how to name one of them (docs/cli.md "Inputs").
        if (options.format.empty())
            if (std::string text = archive_not_a_model(bytes, path); !text.empty()) error.message = std::move(text);
    } else if (!f->read) {
        error = make_error(ErrorCode::Unsupported, fmt::format("reading {} is not supported yet", f->name));
        f = nullptr;
    }
    return f;
}

}  // namespace

// The one place every read passes (load reads the file, then comes here): the size limit, the
// format, the reader, the scene's invariants, the input path on every warning.
static Expected<Scene> load_bytes_unguarded(std::span<const uint8_t> bytes, const std::string& path, const LoadOptions& options) {
    if (bytes.size() > options.max_file_bytes)
        return with_path(make_error(ErrorCode::LimitExceeded, fmt::format("input is {} bytes, the limit is {}", bytes.size(), options.max_file_bytes)), path);
    Error error;
    const FormatInfo* f = choose_reader(bytes, path, options, error);
    if (!f) return with_path(error, path);
    std::optional<LoadOptions> named;
    if (options.source_name.empty() && !path.empty()) {
        named = options;
        named->source_name = path;
    }
    auto scene = f->read(bytes, named ? *named : options);
    if (!scene) return with_path(scene.error(), path);
    // Every reader's scene holds together before anyone uses it (indices in range, arrays sized
    // to their vertices, joints parent-first): checked here, once, for every format.
    if (auto st = check_invariants(*scene); !st) return with_path(st.error(), path);
    scene->warnings.set_path(path);  // a reader's warnings are about the file it read
    return scene;
}

Expected<Scene> load_bytes(std::span<const uint8_t> bytes, const std::string& path, const LoadOptions& options) {
    return detail::guarded(path, "reading", [&] { return load_bytes_unguarded(bytes, path, options); });
}

std::function<Expected<std::vector<uint8_t>>(const std::string&)> resource_reader(const std::string& model_path,
                                                                                   const LoadOptions& options) {
    const std::filesystem::path folder = std::filesystem::path(model_path).parent_path();
    const std::string root = detail::confinement_root(model_path, options.root);
    return [folder, root, max_bytes = options.max_file_bytes, allow_outside = options.allow_outside,
            on_read = options.on_read, storage = options.read_file](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        // A scheme is letters, digits, '+', '-', '.' before a ':' (RFC 3986 §3.1); a one-letter
        // one would be a Windows drive, equally absolute.
        const size_t colon = uri.find(':');
        const bool scheme = colon != std::string::npos && uri.find('/') > colon;
        if (scheme || uri.empty())
            return make_error(ErrorCode::Unsupported, fmt::format("'{}': only paths are read, beside the model", uri));
        // A decoded "%00" would cut the name the OS sees short of the name checked.
        if (uri.find('\0') != std::string::npos) return make_error(ErrorCode::Malformed, "the path holds a NUL byte");
        if (storage) {  // the caller's storage: joined and made lexically normal, never above the folder
            const std::filesystem::path joined = (folder / uri).lexically_normal();
            const std::filesystem::path inside = joined.lexically_relative(folder.empty() ? std::filesystem::path(".") : folder);
            if (!allow_outside && (std::filesystem::path(uri).is_absolute() || inside.empty() || *inside.begin() == ".."))
                return make_error(ErrorCode::ReadFailed, fmt::format("'{}' leads outside the model's folder: refused (a model reads only from its own "
                                                                     "folder and below; --allow-outside lifts this)", uri));
            auto bytes = storage(joined.string());
            if (bytes && bytes->size() > max_bytes)
                return make_error(ErrorCode::LimitExceeded, fmt::format("'{}': {} bytes, the limit is {}", uri, bytes->size(), max_bytes));
            if (bytes && on_read) on_read(joined.string());
            return bytes;
        }
        // An absolute path replaces folder when joined; confinement then judges it like "../".
        auto path = detail::confine((folder / uri).string(), root, allow_outside);
        if (!path) return path.error();
        auto bytes = read_file(*path, max_bytes);
        if (bytes && on_read) on_read(*path);
        return bytes;
    };
}

std::function<Expected<std::vector<uint8_t>>(const std::string&)> resource_reader(const std::string& model_path, uint64_t max_bytes) {
    LoadOptions options;
    options.max_file_bytes = max_bytes;
    return resource_reader(model_path, options);
}

static Expected<Scene> load_unguarded(const std::string& path, const LoadOptions& options) {
    auto bytes = read_input(path, options);  // a file, or PACK.jpk:MEMBER
    if (!bytes) return bytes.error();
    if (options.read_resource) return load_bytes(*bytes, path, options);
    LoadOptions with_folder = options;
    with_folder.read_resource = resource_reader(path, options);
    return load_bytes(*bytes, path, with_folder);
}

Expected<Scene> load(const std::string& path, const LoadOptions& options) {
    return detail::guarded(path, "reading", [&] { return load_unguarded(path, options); });
}

}  // namespace rigport

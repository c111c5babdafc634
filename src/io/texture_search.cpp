// The texture search rule (docs/cli.md "Textures"): the places a material's texture name may
// mean, in order, each confined to the model's folder and the texture paths before it is looked at.
#include "io/texture_search.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "io/confine.hpp"

namespace rigport::detail {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A file: URI as the path it names (RFC 8089: file:///abs/path, file://localhost/abs/path,
// file:/abs/path, percent-escapes decoded); any other text is returned as it is.
std::string file_uri_path(const std::string& uri) {
    if (uri.size() < 5 || lower(uri.substr(0, 5)) != "file:") return uri;
    std::string rest = uri.substr(5);
    if (rest.rfind("//", 0) == 0) {
        const size_t slash = rest.find('/', 2);
        const std::string host = rest.substr(2, slash == std::string::npos ? std::string::npos : slash - 2);
        if (!host.empty() && host != "localhost") return uri;  // another machine's file: not ours to look up
        rest = slash == std::string::npos ? std::string() : rest.substr(slash);
    }
    std::string path;
    for (size_t i = 0; i < rest.size(); ++i) {
        auto hex = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10); };
        if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
            path += static_cast<char>(hex(rest[i + 1]) * 16 + hex(rest[i + 2]));
            i += 2;
        } else {
            path += rest[i];
        }
    }
    // file:///C:/x.png names a Windows drive: the path is C:/x.png.
    if (path.size() >= 3 && path[0] == '/' && std::isalpha(static_cast<unsigned char>(path[1])) && path[2] == ':') path.erase(0, 1);
    return path;
}

// What a texture name says, read once.
struct Name {
    std::string text;        // '/' separators, a file: URI decoded
    bool absolute = false;   // a path on this machine: tried as it is
    bool relative = false;   // tried under the model's folder and each texture path
    std::string base;        // its file name, when text has folders; else empty
    bool replace = false;    // its extension is an image's: replaced by the others, not appended to
};

Name read_name(const std::string& written) {
    Name n;
    n.text = file_uri_path(written);
    std::replace(n.text.begin(), n.text.end(), '\\', '/');  // Windows exporters
    const fs::path p(n.text);
    // "D:/Dev/x.png" (an FBX from the author's disk) names another machine's drive: its base name only.
    const bool drive = n.text.size() >= 2 && std::isalpha(static_cast<unsigned char>(n.text[0])) && n.text[1] == ':';
    n.absolute = !drive && p.is_absolute();
    n.relative = !drive && !n.absolute && !n.text.empty();
    const std::string file = p.filename().string();
    if (!file.empty() && file != "." && file != ".." && n.text != file) n.base = file;
    n.replace = is_image_extension(p.extension().string());
    return n;
}

// p, then p with each of texture_extensions (in place of an image extension, else appended).
void add_with_extensions(const fs::path& p, bool replace, std::vector<fs::path>& out) {
    out.push_back(p);
    const std::string written = lower(p.extension().string());
    for (const char* e : texture_extensions) {
        if (!replace) {
            out.push_back(fs::path(p.string() + e));
        } else if (written != e) {
            fs::path q = p;
            out.push_back(q.replace_extension(e));
        }
    }
}

fs::path folder_of(const std::string& dir) { return fs::path(dir.empty() ? "." : dir); }

std::vector<fs::path> places_of(const Name& n, const TextureSearch& search) {
    std::vector<fs::path> all;
    const fs::path model = folder_of(search.model_dir);
    if (n.absolute) add_with_extensions(fs::path(n.text), n.replace, all);
    else if (n.relative) add_with_extensions(model / n.text, n.replace, all);
    if (!n.base.empty()) add_with_extensions(model / n.base, n.replace, all);
    for (const std::string& dir : search.texture_paths) {
        if (n.relative) add_with_extensions(folder_of(dir) / n.text, n.replace, all);
        if (!n.base.empty()) add_with_extensions(folder_of(dir) / n.base, n.replace, all);
    }
    std::vector<fs::path> out;
    std::unordered_set<std::string> seen;
    for (auto& p : all)
        if (seen.insert(p.string()).second) out.push_back(std::move(p));
    return out;
}

std::string and_list(const std::vector<std::string>& items, const char* last = " and ") {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? last : ", ") + items[i];
    return out;
}

// "models/x/skin and skin in m and game, each as written and with .png, .tga ... or .pcx".
std::string looked_text(const Name& n, const TextureSearch& search) {
    std::vector<std::string> names;
    if (n.relative) names.push_back(n.text);
    if (!n.base.empty()) names.push_back(n.base);
    std::vector<std::string> folders{folder_of(search.model_dir).generic_string()};
    for (auto& dir : search.texture_paths) folders.push_back(folder_of(dir).generic_string());
    std::vector<std::string> extensions;
    const std::string written = lower(fs::path(n.text).extension().string());
    for (const char* e : texture_extensions)
        if (!n.replace || written != e) extensions.push_back(e);
    std::string text = n.absolute ? n.text : std::string();
    if (!names.empty()) text += (text.empty() ? "" : ", then ") + and_list(names) + " in " + and_list(folders);
    if (text.empty()) return "nowhere: the name holds no file name";
    return text + fmt::format(", each as written and {} {}", n.replace ? "as" : "with", and_list(extensions, " or "));
}

}  // namespace

// An extension that says "an image" (texture_extensions and the other formats stb or engines
// read): such a name's extension is replaced by each of texture_extensions, not appended to.
bool is_image_extension(const std::string& extension) {
    const std::string e = lower(extension);
    for (const char* known : texture_extensions)
        if (e == known) return true;
    for (const char* known : {".gif", ".psd", ".hdr", ".pic", ".pnm", ".ppm", ".pgm", ".tif", ".tiff", ".ktx", ".ktx2", ".exr"})
        if (e == known) return true;
    return false;
}


TextureFinder::TextureFinder(TextureSearch search) : search_(std::move(search)) {
    roots_.push_back(search_.root.empty() ? folder_of(search_.model_dir).string() : search_.root);
    for (auto& dir : search_.texture_paths) roots_.push_back(folder_of(dir).string());
}

TextureLookup TextureFinder::find(const std::string& name) {
    const Name n = read_name(name);
    TextureLookup out;
    out.looked = looked_text(n, search_);
    auto refuse = [&](const fs::path& place) {
        if (!out.refused.empty()) return;
        auto why = confine(place.string(), roots_, false);
        out.refused = fmt::format("{}: {}", place.generic_string(), why ? "refused" : why.error().message);
    };
    for (const fs::path& place : places_of(n, search_)) {
        const std::string leaf = place.filename().string();
        if (leaf.empty() || leaf == "." || leaf == "..") continue;
        // Each folder is resolved once; a place in a folder outside is never looked at.
        if (!search_.allow_outside) {
            const fs::path folder = place.has_parent_path() ? place.parent_path() : fs::path(".");
            auto [it, fresh] = folder_inside_.try_emplace(folder.string(), false);
            if (fresh) it->second = bool(confine(folder.string(), roots_, false));
            if (!it->second) {
                refuse(place);
                continue;
            }
        }
        std::error_code ec;
        const fs::file_status link = fs::symlink_status(place, ec);
        if (ec || !fs::exists(link)) continue;
        if (fs::is_symlink(link) && !confine(place.string(), roots_, search_.allow_outside)) {  // a link leading out
            refuse(place);
            continue;
        }
        if (!fs::is_regular_file(place, ec)) continue;
        out.file = place.string();
        return out;
    }
    return out;
}

std::vector<std::string> TextureFinder::places(const std::string& name) const {
    std::vector<std::string> out;
    for (auto& p : places_of(read_name(name), search_)) out.push_back(p.string());
    return out;
}

TextureSearch texture_search(const ImageOptions& options) {
    TextureSearch search;
    search.model_dir = options.search_dir;
    search.texture_paths = options.texture_paths;
    search.root = options.root;
    search.allow_outside = options.allow_outside;
    return search;
}

}  // namespace rigport::detail

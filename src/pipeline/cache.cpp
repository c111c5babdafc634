// The content-addressed conversion cache: a model's key from every byte it read, its options and
// rigport's version; an entry holding every file the conversion wrote, written whole then renamed;
// least recently used eviction; damaged entries found by their digest (docs/scale.md "The cache").
#include "pipeline/cache.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>

#include "rigport/batch.hpp"
#include "rigport/version.hpp"
#include "support/sha256.hpp"

namespace rigport::detail {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// The layout's own version: a change to the key's text or the entry's bytes raises it, and old
// entries are then simply never found (docs/scale.md "On disk").
constexpr const char* layout = "rigport-cache-1";
constexpr const char* entry_magic = "rigport-cache-entry 1\n";
// Lists of files read kept per query: a model whose side files change back and forth (a texture
// edited and reverted) finds each of its last few states.
constexpr size_t manifest_lists = 4;

fs::path root_of(const CacheOptions& cache) { return fs::path(cache.dir) / layout; }
fs::path entry_path(const CacheOptions& cache, const std::string& key) { return root_of(cache) / "entries" / key.substr(0, 2) / key; }
fs::path manifest_path(const CacheOptions& cache, const std::string& key) { return root_of(cache) / "manifests" / key.substr(0, 2) / key; }

std::optional<std::vector<uint8_t>> read_whole(const fs::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return std::nullopt;
    std::vector<uint8_t> bytes;
    uint8_t chunk[1 << 16];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return std::nullopt;
    return bytes;
}

// The file's SHA-256, or "absent" when it cannot be read (a texture a material names that is not
// there): a file appearing there later changes the key.
std::string file_digest(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return "absent";
    support::Sha256 h;
    uint8_t chunk[1 << 16];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) h.add(std::span<const uint8_t>(chunk, n));
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    return failed ? "absent" : h.hex();
}

// A name no other writer (thread, process or machine on a shared folder) picks: host, process,
// a counter and random bits.
std::string temporary_suffix() {
    static std::atomic<uint64_t> counter{0};
    char host[64] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "host");
    std::random_device random;
    return fmt::format(".tmp-{}-{}-{}-{:08x}", host, ::getpid(), counter++, random());
}

// Written whole under a temporary name in the same folder, then renamed over the name: a reader
// sees the old file, the new one or none, never a part. Not synced: an entry a crash tears is
// caught by its digest and rebuilt.
Status write_then_rename(const fs::path& path, std::span<const uint8_t> first, std::span<const uint8_t> rest = {}) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path temporary = path.string() + temporary_suffix();
    std::FILE* f = std::fopen(temporary.c_str(), "wb");
    if (!f) return make_error(ErrorCode::WriteFailed, fmt::format("{}: {}", temporary.string(), std::strerror(errno)));
    const bool written = std::fwrite(first.data(), 1, first.size(), f) == first.size() && std::fwrite(rest.data(), 1, rest.size(), f) == rest.size();
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed || std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int e = errno;
        fs::remove(temporary, ec);
        return make_error(ErrorCode::WriteFailed, fmt::format("{}: {}", path.string(), std::strerror(e)));
    }
    return Ok{};
}

std::string fields(const std::vector<std::string>& items) {
    std::string out;
    for (auto& s : items) out += fmt::format("{}:{};", s.size(), s);
    return out;
}

// Every option of ConvertOptions that changes the output, each by name (docs/scale.md "The key").
// threads is left out: the bytes never depend on it (docs/cli.md "convert", --threads).
std::string options_text(const ConvertOptions& o) {
    std::string t;
    auto add = [&t](std::string_view name, const auto& value) { t += fmt::format("{}={}\n", name, value); };
    const LoadOptions& l = o.load;
    add("load.format", fields({l.format}));
    add("load.max_file_bytes", l.max_file_bytes);
    add("load.max_elements", l.max_elements);
    add("load.max_frames", l.max_frames);
    add("load.resample_rate", l.resample_rate);
    add("load.resample_curves", l.resample_curves);
    add("load.vertex_frame_rate", l.vertex_frame_rate);
    add("load.source_name", fields({l.source_name}));
    add("load.root", fields({l.root}));
    add("load.allow_outside", l.allow_outside);
    add("load.allow_missing", l.allow_missing);
    add("load.max_depth", l.max_depth);
    add("load.companions", l.companions);
    add("transform.scale", o.transform.scale);
    add("transform.rotate", fmt::format("{},{},{}", o.transform.rotate_degrees[0], o.transform.rotate_degrees[1], o.transform.rotate_degrees[2]));
    add("transform.meshtrans", fmt::format("{},{},{}", o.transform.meshtrans[0], o.transform.meshtrans[1], o.transform.meshtrans[2]));
    add("clip_end", o.clip_end ? to_string(*o.clip_end) : "by-format");
    add("force_joints", o.force_joints);
    add("fix_normals", o.fix_normals);
    add("force", o.force);
    add("axis", int(o.axis));
    add("unit", fields({o.unit}));
    add("loop_key", o.loop_key);
    add("images.mode", int(o.images.mode));
    add("images.convert", o.images.convert);
    add("images.any_type", o.images.any_type);
    add("images.search_dir", fields({o.images.search_dir}));
    add("images.texture_paths", fields(o.images.texture_paths));
    add("images.model_path", fields({o.images.model_path}));
    add("images.root", fields({o.images.root}));
    add("images.allow_outside", o.images.allow_outside);
    add("images.max_file_bytes", o.images.max_file_bytes);
    add("images.max_dimension", o.images.max_dimension);
    add("cal3d.dialect", int(o.cal3d.dialect));
    add("cal3d.binary", o.cal3d.binary);
    add("md3.tags", fields(o.md3.tags));
    add("fbx.ascii", o.fbx.ascii);
    add("fbx.version", o.fbx.version);
    add("fbx.pre_rotation", o.fbx.pre_rotation);
    add("fbx.embed_images", o.fbx.embed_images);
    add("compression.enabled", o.gltf_compression.enabled);
    add("compression.level", int(o.gltf_compression.level));
    add("compression.position_bits", o.gltf_compression.position_bits);
    add("target", fields({o.target ? std::string(o.target->name) : std::string()}));
    add("max_error", o.max_error);
    return t;
}

Json warnings_json(const Warnings& warnings) {
    Json list = Json::array();
    for (auto& w : warnings.items)
        list.push_back({{"code", int(w.code)}, {"message", w.message}, {"count", w.count}, {"offset", w.offset ? Json(*w.offset) : Json(nullptr)}, {"path", w.path}});
    return list;
}

Warnings warnings_of(const Json& list) {
    Warnings out;
    for (auto& j : list) {
        Warning w;
        w.code = static_cast<WarningCode>(j.at("code").get<int>());
        w.message = j.at("message").get<std::string>();
        w.count = j.at("count").get<uint32_t>();
        if (!j.at("offset").is_null()) w.offset = j.at("offset").get<uint64_t>();
        w.path = j.at("path").get<std::string>();
        out.add_warning(w);
    }
    return out;
}

// The key of the entry for these files as they are now.
std::string entry_key(const CacheQuery& query, const std::vector<std::string>& files, std::map<std::string, std::string>& digests) {
    support::Sha256 h;
    h.add_field(query.text);
    for (auto& f : files) {
        auto [it, added] = digests.try_emplace(f);
        if (added) it->second = file_digest(f);
        h.add_field(f);
        h.add_field(it->second);
    }
    return h.hex();
}

std::vector<std::vector<std::string>> manifest_of(const CacheOptions& cache, const CacheQuery& query) {
    std::vector<std::vector<std::string>> lists;
    auto bytes = read_whole(manifest_path(cache, query.manifest_key));
    if (!bytes) return lists;
    const Json j = Json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (!j.is_object() || !j.contains("lists") || !j["lists"].is_array()) return lists;  // damaged: rewritten at the next store
    for (auto& list : j["lists"]) {
        if (!list.is_array()) return {};
        std::vector<std::string> files;
        for (auto& f : list) {
            if (!f.is_string()) return {};
            files.push_back(f.get<std::string>());
        }
        lists.push_back(std::move(files));
    }
    return lists;
}

// An entry's bytes read back, its digest checked; unset when damaged.
std::optional<CacheHit> parse_entry(const std::vector<uint8_t>& bytes) {
    const std::string_view all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const std::string_view magic(entry_magic);
    if (all.substr(0, magic.size()) != magic) return std::nullopt;
    const size_t digest_end = all.find('\n', magic.size());
    if (digest_end == std::string_view::npos) return std::nullopt;
    const std::string_view digest = all.substr(magic.size(), digest_end - magic.size());
    const std::span<const uint8_t> rest(bytes.data() + digest_end + 1, bytes.size() - digest_end - 1);
    if (support::sha256_hex(rest) != digest) return std::nullopt;
    const std::string_view body = all.substr(digest_end + 1);
    const size_t header_end = body.find('\n');
    if (header_end == std::string_view::npos) return std::nullopt;
    size_t header_size = 0;
    try {
        header_size = std::stoull(std::string(body.substr(0, header_end)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (header_size > body.size() - header_end - 1) return std::nullopt;
    const Json h = Json::parse(body.substr(header_end + 1, header_size), nullptr, false);
    if (!h.is_object()) return std::nullopt;
    try {
        CacheHit hit;
        size_t at = header_end + 1 + header_size;
        bool main = true;
        for (auto& f : h.at("files")) {
            const uint64_t size = f.at("size").get<uint64_t>();
            if (size > body.size() - at) return std::nullopt;
            std::vector<uint8_t> content(body.begin() + at, body.begin() + at + size);
            at += size;
            if (main) hit.output.bytes = std::move(content);
            else hit.output.side_files.push_back(OutputFile{f.at("name").get<std::string>(), std::move(content)});
            main = false;
        }
        if (main || at != body.size()) return std::nullopt;
        hit.format = h.at("format").get<std::string>();
        hit.inputs = h.at("inputs").get<std::vector<std::string>>();
        ConvertResult& r = hit.reported;
        r.read_warnings = warnings_of(h.at("read_warnings"));
        r.write_warnings = warnings_of(h.at("write_warnings"));
        r.normal_swaps = h.at("normal_swaps").get<std::vector<std::string>>();
        r.target_fixes = h.at("target_fixes").get<std::vector<std::string>>();
        r.write_notes = h.at("write_notes").get<std::vector<std::string>>();
        const auto counts = h.at("counts").get<std::vector<uint64_t>>();
        if (counts.size() != 5) return std::nullopt;
        r.counts = ConvertCounts{counts[0], counts[1], counts[2], counts[3], counts[4]};
        r.bytes = hit.output.bytes.size();
        return hit;
    } catch (const std::exception&) {  // a field of the wrong type: damaged
        return std::nullopt;
    }
}

// Removes the least recently used files (entries and lists; their modification time, which a hit
// renews) until the cache holds at most max_bytes. Temporaries an interrupted writer left are
// removed once an hour old.
void evict(const CacheOptions& cache) {
    struct Item {
        fs::file_time_type used;
        uint64_t size;
        fs::path path;
    };
    std::vector<Item> items;
    uint64_t total = 0;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (auto it = fs::recursive_directory_iterator(root_of(cache), ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e;
        if (!it->is_regular_file(e)) continue;
        const auto size = it->file_size(e);
        const auto used = it->last_write_time(e);
        if (e) continue;
        if (it->path().filename().string().find(".tmp-") != std::string::npos) {
            if (now - used > std::chrono::hours(1)) fs::remove(it->path(), e);
            continue;
        }
        items.push_back({used, size, it->path()});
        total += size;
    }
    if (total <= cache.max_bytes) return;
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.used < b.used; });
    for (auto& item : items) {
        if (total <= cache.max_bytes) break;
        std::error_code e;
        if (fs::remove(item.path, e)) total -= item.size;
    }
}

// A sweep lists every file of the cache, so one after every store would make a batch of N
// models cost N^2 directory reads. This process sweeps at its first store into a folder, then once
// an eighth of the limit has been stored since its last sweep; a batch (and a cluster's client)
// ends with cache_trim. Between sweeps the cache may exceed its limit by that eighth
// (docs/scale.md "Eviction").
std::mutex sweeps_mutex;
std::map<std::string, uint64_t> sweeps;  // folder -> bytes stored since this process last swept it

bool sweep_due(const CacheOptions& cache, uint64_t stored) {
    std::lock_guard lock(sweeps_mutex);
    auto [it, first] = sweeps.try_emplace(cache.dir, 0);
    it->second += stored;
    if (!first && it->second < std::max<uint64_t>(cache.max_bytes / 8, 1)) return false;
    it->second = 0;
    return true;
}

}  // namespace

std::optional<CacheQuery> cache_query(const ConvertJob& job, const std::vector<CompileInput>& inputs, const ConvertOptions& o) {
    if (o.cache.dir.empty() || job.in_memory || is_stdout_path(job.output) || !o.format) return std::nullopt;
    // Files from a caller's storage are not the disk's: their bytes cannot be hashed here.
    if (o.load.read_file || o.load.read_resource) return std::nullopt;
    // The header's creation time from the clock: no two runs write the same bytes.
    if (o.fbx.timestamp) return std::nullopt;
    CacheQuery q;
    q.text = fmt::format("{}\nversion={}\nformat={}\noutput={}\n", layout, RIGPORT_VERSION_STRING, o.format->name, fields({job.output}));
    for (auto& in : inputs) {
        const AnimationInputOptions& a = in.animation;
        q.text += fmt::format("input={}name={};fps={};loop={};start={};end={}\n", fields(in.paths), a.name ? fields({*a.name}) : "-",
                              a.fps ? fmt::format("{}", *a.fps) : "-", a.loop, a.start ? fmt::format("{}", *a.start) : "-",
                              a.end ? fmt::format("{}", *a.end) : "-");
    }
    q.text += options_text(o);
    q.manifest_key = support::sha256_hex(std::span(reinterpret_cast<const uint8_t*>(q.text.data()), q.text.size()));
    return q;
}

std::optional<CacheHit> cache_find(const CacheOptions& cache, const CacheQuery& query) {
    std::map<std::string, std::string> digests;  // each file hashed once, whatever the lists
    for (auto& files : manifest_of(cache, query)) {
        const fs::path path = entry_path(cache, entry_key(query, files, digests));
        auto bytes = read_whole(path);
        if (!bytes) continue;
        auto hit = parse_entry(*bytes);
        std::error_code ec;
        if (!hit || hit->inputs != files) {
            fs::remove(path, ec);  // damaged: converted and stored again
            continue;
        }
        hit->output.format = hit->format;
        // Used now: the last to be evicted (the list too).
        fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
        fs::last_write_time(manifest_path(cache, query.manifest_key), fs::file_time_type::clock::now(), ec);
        return hit;
    }
    return std::nullopt;
}

Status cache_store(const CacheOptions& cache, const CacheQuery& query, const std::vector<std::string>& files_read, const Output& output,
                   const ConvertResult& r) {
    std::map<std::string, std::string> digests;
    const std::string key = entry_key(query, files_read, digests);
    Json h;
    h["format"] = std::string(output.format);
    Json files = Json::array();
    files.push_back({{"name", ""}, {"size", output.bytes.size()}});
    for (auto& side : output.side_files) files.push_back({{"name", side.name}, {"size", side.bytes.size()}});
    h["files"] = files;
    h["inputs"] = files_read;
    h["read_warnings"] = warnings_json(r.read_warnings);
    h["write_warnings"] = warnings_json(r.write_warnings);
    h["normal_swaps"] = r.normal_swaps;
    h["target_fixes"] = r.target_fixes;
    h["write_notes"] = output.notes;
    h["counts"] = {r.counts.meshes, r.counts.vertices, r.counts.triangles, r.counts.joints, r.counts.animations};
    const std::string header = h.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::vector<uint8_t> body;
    const std::string head = fmt::format("{}\n{}", header.size(), header);
    body.insert(body.end(), head.begin(), head.end());
    body.insert(body.end(), output.bytes.begin(), output.bytes.end());
    for (auto& side : output.side_files) body.insert(body.end(), side.bytes.begin(), side.bytes.end());
    const std::string first = fmt::format("{}{}\n", entry_magic, support::sha256_hex(body));
    if (auto st = write_then_rename(entry_path(cache, key), std::span(reinterpret_cast<const uint8_t*>(first.data()), first.size()), body); !st) return st;

    // This list first, then the others kept, newest first.
    std::vector<std::vector<std::string>> lists{files_read};
    for (auto& l : manifest_of(cache, query))
        if (l != files_read && lists.size() < manifest_lists) lists.push_back(std::move(l));
    Json listed;
    listed["lists"] = lists;
    const std::string manifest = listed.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (auto st = write_then_rename(manifest_path(cache, query.manifest_key), std::span(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size()));
        !st)
        return st;
    if (cache.max_bytes > 0 && sweep_due(cache, first.size() + body.size() + manifest.size())) evict(cache);
    return Ok{};
}

void cache_trim(const CacheOptions& cache) {
    if (cache.dir.empty() || cache.max_bytes == 0) return;
    {
        std::lock_guard lock(sweeps_mutex);
        sweeps[cache.dir] = 0;
    }
    evict(cache);
}

}  // namespace rigport::detail

namespace rigport {

void trim_cache(const CacheOptions& cache) { detail::cache_trim(cache); }

}  // namespace rigport

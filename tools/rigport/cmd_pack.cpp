// `rigport pack list|extract|create`: VDrift JPK packs (docs/joe.md §7; include/rigport/jpk.hpp).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli.hpp"
#include "rigport/jpk.hpp"

namespace rigport::cli {

namespace {

using Json = nlohmann::ordered_json;

struct PackArgs {
    std::string pack;    // list / extract: the pack; create: the output
    std::string folder;  // extract: the output folder; create: the input folder
    bool json = false;
    bool verbose = false;
    bool force = false;  // replace read-only outputs
};

// Reads and parses the pack at path, printing its warnings; on failure prints the error and
// returns the exit code (exit_ok on success).
int open_pack(const std::string& path, std::vector<uint8_t>& bytes, JpkPack& pack) {
    auto read = read_file(path);
    if (!read) {
        print_error(read.error().to_string());
        return read_exit_code(read.error());
    }
    auto parsed = parse_jpk(*read);
    if (!parsed) {
        Error e = parsed.error();
        e.path = path;
        print_error(e.to_string());
        return read_exit_code(e);
    }
    print_warnings(parsed->warnings);
    bytes = std::move(*read);
    pack = std::move(*parsed);
    return exit_ok;
}

int run_list(const PackArgs& a) {
    std::vector<uint8_t> bytes;
    JpkPack pack;
    if (int code = open_pack(a.pack, bytes, pack); code != exit_ok) return code;
    if (a.json) {
        Json j;
        j["path"] = a.pack;
        j["numobjs"] = pack.numobjs;
        j["maxstrlen"] = pack.maxstrlen;
        j["fat_end"] = pack.fat_end;
        j["data_end"] = pack.data_end;
        j["trailing_bytes"] = pack.trailing_bytes;
        j["entries"] = Json::array();
        for (auto& e : pack.entries)
            j["entries"].push_back({{"name", e.name}, {"offset", e.offset}, {"length", e.length}, {"overridden", e.overridden},
                                    {"padding_garbage", e.padding_garbage}});
        j["warnings"] = Json::array();
        for (auto& w : pack.warnings.items) j["warnings"].push_back(warning_text(w));
        fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
        return exit_ok;
    }
    fmt::print("{}: JPK01.00, {} entries, maxstrlen {}, FAT ends at {}, data ends at {}, {} bytes after it\n", a.pack, pack.numobjs,
               pack.maxstrlen, pack.fat_end, pack.data_end, pack.trailing_bytes);
    for (auto& e : pack.entries)
        fmt::print("  {:>10} {:>10}  {}{}\n", e.offset, e.length, printable(e.name, 200), e.overridden ? "  (overridden by a later entry)" : "");
    return exit_ok;
}

int run_extract(const PackArgs& a) {
    std::vector<uint8_t> bytes;
    JpkPack pack;
    if (int code = open_pack(a.pack, bytes, pack); code != exit_ok) return code;
    // No member may replace the pack itself (a member of the same name extracted beside it).
    auto written = extract_jpk(bytes, a.folder, WriteOptions{a.force, {a.pack}});
    if (!written) {
        Error e = written.error();
        if (e.path.empty()) e.path = a.pack;
        print_error(e.to_string());
        return e.code == ErrorCode::Unsupported ? exit_unsupported : write_exit_code(e);
    }
    if (a.verbose) fmt::print("{} -> {}: {} members written\n", a.pack, a.folder, written->size());
    return exit_ok;
}

int run_create(const PackArgs& a) {
    // The pack may not replace a file it packs (a pack inside its own folder).
    WriteOptions write_options;
    write_options.force = a.force;
    if (auto st = check_output(a.pack, write_options); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    auto members = collect_jpk_members(a.folder);
    if (!members) {
        print_error(members.error().to_string());
        return read_exit_code(members.error());
    }
    auto bytes = write_jpk(*members);
    if (!bytes) {
        Error e = bytes.error();
        e.path = a.pack;
        print_error(e.to_string());
        return write_exit_code(e);
    }
    for (auto& m : *members) write_options.protect.push_back((std::filesystem::path(a.folder) / m.name).string());
    if (auto st = write_file_atomic(a.pack, *bytes, write_options); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    if (a.verbose) fmt::print("{} -> {}: {} members, {} bytes\n", a.folder, a.pack, members->size(), bytes->size());
    return exit_ok;
}

}  // namespace

Verb add_pack(CLI::App& app) {
    auto args = std::make_shared<PackArgs>();
    CLI::App* sub = app.add_subcommand("pack", "VDrift JPK packs: list, extract or create (convert reads members as PACK.jpk:MEMBER)");
    sub->require_subcommand(1);
    CLI::App* list = sub->add_subcommand("list", "List a pack's entries: offset, length, name");
    list->add_option("FILE", args->pack, "JPK pack")->required();
    list->add_flag("--json", args->json, "Print one JSON object instead of text");
    CLI::App* extract = sub->add_subcommand("extract", "Write every member into a folder (never outside it)");
    extract->add_option("FILE", args->pack, "JPK pack")->required();
    extract->add_option("-o,--output", args->folder, "Output folder (created when missing; files replaced atomically)")->required();
    extract->add_flag("--force", args->force, "Replace read-only files");
    extract->add_flag("-v,--verbose", args->verbose, "Print a summary of what was written");
    CLI::App* create = sub->add_subcommand("create", "Pack a folder's files (names relative with '/', sorted)");
    create->add_option("DIR", args->folder, "Folder to pack")->required();
    create->add_option("-o,--output", args->pack, "Output pack (replaced atomically)")->required();
    create->add_flag("--force", args->force, "Replace a read-only output pack");
    create->add_flag("-v,--verbose", args->verbose, "Print a summary of what was written");
    return {sub, [args, list, extract]() -> int {
                if (list->parsed()) return run_list(*args);
                if (extract->parsed()) return run_extract(*args);
                return run_create(*args);
            }};
}

}  // namespace rigport::cli

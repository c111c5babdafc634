// Which model of a batch writes which file, and the files the caller writes beside the batch (the
// report, the build file): checked against every input and output (docs/cli.md "batch").
#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <string_view>

#include "pipeline/batch_internal.hpp"

namespace rigport {

namespace pipeline {

namespace {

Digest digest_of(std::string_view bytes) {
    uint64_t fnv = 0xcbf29ce484222325ull;  // FNV-1a
    for (unsigned char c : bytes) fnv = (fnv ^ c) * 0x100000001b3ull;
    return {std::hash<std::string_view>{}(bytes), fnv, bytes.size()};
}

}  // namespace

std::string path_identity(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    if (ec) p = std::filesystem::absolute(path, ec).lexically_normal();
    return p.string();
}

Claims::Claims(const BatchPlan& plan, const BatchOptions& options) : plan_(plan), report_name_(options.names.report_file) {
    for (size_t i = 0; i < plan.jobs.size(); ++i)
        if (!plan.jobs[i].refused) owner_.emplace(path_identity(plan.jobs[i].output), i);
    if (!options.report_file.empty()) owner_.emplace(path_identity(options.report_file), report_owner);
    for (auto& p : plan.protect) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) inputs_.emplace(std::make_pair(st.st_dev, st.st_ino), p);
    }
}

Status Claims::claim(size_t model, const std::vector<std::string>& paths, const std::vector<std::span<const uint8_t>>& contents) {
    // Identities (path resolution) and digests are worked out before taking the lock, which
    // every thread's model passes through.
    std::vector<std::string> ids;
    std::vector<Digest> digests;
    for (size_t k = 0; k < paths.size(); ++k) {
        ids.push_back(path_identity(paths[k]));
        digests.push_back(k > 0 ? digest_of(std::string_view(reinterpret_cast<const char*>(contents[k].data()), contents[k].size())) : Digest{});
    }
    std::lock_guard lock(mutex_);
    for (size_t k = 0; k < paths.size(); ++k) {
        const std::string& p = paths[k];
        const std::string& id = ids[k];
        const Digest& digest = digests[k];
        auto [it, first] = owner_.emplace(id, model);
        if (first || it->second == model) {
            if (k > 0) side_digest_.emplace(id, digest);
            continue;
        }
        const auto shared = side_digest_.find(id);
        if (k > 0 && shared != side_digest_.end() && shared->second == digest) continue;
        return make_error(ErrorCode::InvalidArgument,
                          fmt::format("'{}' is also written for {}{}", p,
                                      it->second == report_owner ? report_name_ : fmt::format("'{}'", plan_.jobs[it->second].input),
                                      k > 0 ? " with other contents" : ""));
    }
    for (auto& p : paths) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) continue;
        if (auto it = inputs_.find({st.st_dev, st.st_ino}); it != inputs_.end())
            return make_error(ErrorCode::InvalidArgument, fmt::format("'{}' would replace the input '{}'", p, it->second));
    }
    return Ok{};
}

}  // namespace pipeline

namespace {

using pipeline::path_identity;
Error usage(std::string message) { return make_error(ErrorCode::InvalidArgument, std::move(message)); }

// report_file and build_file name none of the files the batch reads or writes, nor each other;
// checked by name here (the outputs are not written yet), and by device and inode against every
// file found in the inputs (check_output with plan.protect). Before any model is read.
Status check_caller_files(const BatchPlan& plan, const BatchOptions& o) {
    const BatchOptionNames& n = o.names;
    if (o.report_file.empty() && o.build_file.empty()) return Ok{};
    if (!o.report_file.empty() && !o.build_file.empty() && path_identity(o.report_file) == path_identity(o.build_file))
        return usage(fmt::format("{} '{}' and {} '{}' are the same file", n.report_file, o.report_file, n.build_file, o.build_file));
    std::map<std::string, std::string> files;  // identity -> what it is, as the message names it
    for (auto& m : plan.jobs) {
        if (m.refused) continue;
        files.emplace(path_identity(m.input), fmt::format("the input '{}'", m.input));
        for (auto& c : m.companions) files.emplace(path_identity(c), fmt::format("the input '{}'", c));
        files.emplace(path_identity(m.output), fmt::format("the output '{}' (of '{}')", m.output, m.input));
        if (!o.build_file.empty()) files.emplace(path_identity(m.output + ".d"), fmt::format("the depfile '{}.d' (of '{}')", m.output, m.input));
    }
    for (auto& [name, path] : {std::pair<std::string, std::string>{n.report_file, o.report_file}, {n.build_file, o.build_file}}) {
        if (path.empty()) continue;
        if (auto it = files.find(path_identity(path)); it != files.end())
            return usage(fmt::format("{} '{}' is the same file as {}", name, path, it->second));
        WriteOptions options;
        options.protect = plan.protect;
        if (auto st = check_output(path, options); !st) return st;
    }
    return Ok{};
}

}  // namespace

Status prepare_batch(const BatchPlan& plan, const BatchOptions& options) {
    if (!plan.format) return usage("the plan names no output format (a plan comes from plan_batch)");
    if (plan.jobs.empty()) return usage("no models found in the inputs (files whose extension a format reads, or .cfg characters)");
    std::error_code ec;
    if (!std::filesystem::is_directory(options.out_dir, ec)) {
        std::filesystem::create_directory(options.out_dir, ec);
        if (ec) return make_error(ErrorCode::WriteFailed, fmt::format("{}: cannot create the folder: {}", options.out_dir, ec.message()));
    }
    return check_caller_files(plan, options);
}

}  // namespace rigport

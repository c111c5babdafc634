// A batch's models converted on the library's thread pool, each as run_conversion converts it
// alone; outputs staged and made durable together (docs/cli.md "batch", docs/library.md "Batch").
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "support/thread_pool.hpp"
#include "pipeline/batch_internal.hpp"
#include "pipeline/cache.hpp"
#include "pipeline/convert_internal.hpp"

namespace rigport {

namespace {

// Staged files a batch commits together: one durability step per this many files (and one at
// the end), so a crash loses at most this much finished work, and temporaries stay few.
constexpr size_t commit_files = 256;

int rank(FailureClass c) { return static_cast<int>(c); }

// The class of an error as the CLI's exit codes sort them: a bad value (InvalidArgument) counts
// as the side it came from.
FailureClass class_of(const Error& e, bool write_error, bool failed_writing) {
    switch (e.code) {
        case ErrorCode::UnknownFormat:
        case ErrorCode::Unsupported: return FailureClass::Unsupported;
        case ErrorCode::WriteFailed: return write_error ? FailureClass::Write : FailureClass::Read;
        case ErrorCode::InvalidArgument: return failed_writing ? FailureClass::Write : FailureClass::Read;
        default: return FailureClass::Read;
    }
}

// The mirrored folder of an output, created when the model has something to write (out_dir exists).
Status make_folder(const std::string& output) {
    const std::filesystem::path dir = std::filesystem::path(output).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir))
        return make_error(ErrorCode::WriteFailed, fmt::format("{}: cannot create the folder: {}", dir.string(), ec ? ec.message() : "not a folder"));
    return Ok{};
}

}  // namespace

FailureClass failure_class(const ConvertResult& r) { return r.error ? class_of(*r.error, r.write_error, r.failed_writing) : FailureClass::None; }

Expected<BatchReport> run_batch(const BatchPlan& plan, const BatchOptions& o, const BatchProgress& progress) {
    if (auto st = prepare_batch(plan, o); !st) return st.error();
    // Each model exactly as run_conversion converts it alone.
    ConvertOptions options = o.convert;
    options.format = plan.format;
    // The plan decided which files go with which model (none with BatchOptions::companions off):
    // a job's companions are its inputs, so the conversion looks for no more of them.
    options.load.companions = false;
    pipeline::Claims claims(plan, o);
    BatchReport report;
    report.models.resize(plan.jobs.size());
    std::mutex progress_mutex;
    size_t done = 0, total = plan.jobs.size();
    for (auto& skip : plan.skipped)
        if (progress) progress(BatchEvent{.kind = BatchEvent::Kind::Skipped, .skip = &skip});
    auto finished = [&](size_t i) {
        std::lock_guard lock(progress_mutex);
        ++done;
        if (progress)
            progress(BatchEvent{.kind = BatchEvent::Kind::Finished, .job = i, .model = &plan.jobs[i], .result = &report.models[i], .done = done, .total = total});
    };
    // Each converted model's files are staged (WriteGroup), then committed with the other models
    // staged so far in one durability step (one syncfs, not one fsync per file) once enough are
    // waiting, and at the end: a model is reported finished once its files are in place and durable.
    std::mutex staged_mutex;
    std::vector<std::pair<size_t, WriteGroup>> staged;
    size_t staged_files = 0;
    auto commit = [&](std::vector<std::pair<size_t, WriteGroup>> batch) {
        std::vector<WriteGroup*> groups;
        for (auto& [i, group] : batch) groups.push_back(&group);
        const std::vector<Status> written = commit_groups(groups);
        for (size_t k = 0; k < batch.size(); ++k) {
            BatchModel& m = report.models[batch[k].first];
            if (!written[k]) {
                m.result.error = written[k].error();
                m.result.write_error = true;
                m.result.failed_writing = true;
                m.result.outputs.clear();
                m.failure = failure_class(m.result);
            }
            finished(batch[k].first);
        }
    };
    auto convert_one = [&](size_t i) {
        const BatchJob& job = plan.jobs[i];
        BatchModel& m = report.models[i];
        if (job.refused) {
            m.result.error = *job.refused;
            m.result.failed_writing = true;
            m.result.inputs = {job.input};
            m.failure = FailureClass::Write;  // a refused output (another model's) is a write failure
            return finished(i);
        }
        // The companions the plan found, given as inputs: the model is read as convert reads the
        // mesh file alone (add_companions), without listing its folder again.
        ConvertJob cj;
        cj.inputs = {CompileInput{{job.input}, {}}};
        for (auto& c : job.companions) cj.inputs.push_back(CompileInput{{c}, {}});
        cj.output = job.output;
        cj.check_output_first = false;  // the mirrored folder is made only when there is something to write
        auto claim_and_make_folder = [&, i](const std::vector<std::string>& paths, const std::vector<std::span<const uint8_t>>& contents) -> Status {
            if (auto st = claims.claim(i, paths, contents); !st) return st;
            return make_folder(job.output);
        };
        WriteGroup group;
        cj.stage_into = &group;
        try {
            m.result = detail::run_conversion(cj, options, claim_and_make_folder);
            m.result.companions = job.companions;
        } catch (const std::exception& e) {  // out of memory: this model fails, the others go on
            m.result = ConvertResult{};
            m.result.error = make_error(ErrorCode::LimitExceeded, e.what());
            m.result.error->path = job.input;
        }
        m.failure = failure_class(m.result);
        if (!m.result.ok()) return finished(i);
        std::vector<std::pair<size_t, WriteGroup>> ready;
        {
            std::lock_guard lock(staged_mutex);
            staged_files += group.file_count();
            staged.emplace_back(i, std::move(group));
            if (staged_files >= commit_files) {
                ready.swap(staged);
                staged_files = 0;
            }
        }
        if (!ready.empty()) commit(std::move(ready));
    };
    // The jobs to convert: every one, or the share BatchOptions::only names.
    std::vector<size_t> chosen = o.only;
    if (chosen.empty())
        for (size_t i = 0; i < plan.jobs.size(); ++i) chosen.push_back(i);
    for (size_t i : chosen)
        if (i >= plan.jobs.size()) return make_error(ErrorCode::InvalidArgument, fmt::format("only: job {} is not in the plan ({} jobs)", i, plan.jobs.size()));
    total = chosen.size();
    const uint32_t threads = uint32_t(std::min<size_t>(o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency()), chosen.size()));
    // Models in parallel already use the cores: each model's own steps then stay on its thread.
    if (threads > 1) options.threads = 1;
    detail::parallel_for(chosen.size(), 1, threads, [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) convert_one(chosen[k]);
    });
    commit(std::move(staged));
    // The cache down to its limit once the batch is done (stores sweep only now and then,
    // docs/scale.md "Eviction"); a cluster's share leaves that to the client, once.
    if (o.only.empty()) detail::cache_trim(o.convert.cache);

    for (size_t i : chosen) {
        const BatchModel& m = report.models[i];
        (m.result.ok() ? report.converted : report.failed) += 1;
        report.warnings += m.result.warning_count();
        if (rank(m.failure) > rank(report.failure)) report.failure = m.failure;
    }
    return report;
}

}  // namespace rigport

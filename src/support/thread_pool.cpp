// The shared thread pool (thread_pool.hpp): one job queue, chunks claimed by an atomic counter by
// the calling thread and whichever workers are free.
#include "support/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rigport::detail {

namespace {

std::atomic<size_t> max_grain{0};

struct Job {
    const std::function<void(size_t, size_t)>* fn = nullptr;
    size_t count = 0, grain = 1, chunks = 0;
    uint32_t helpers = 0;              // workers that may still join (threads - 1)
    uint32_t active = 0;               // workers inside claim_chunks; under Pool::mutex
    std::atomic<size_t> next{0};       // the next chunk to claim
    std::atomic<size_t> finished{0};   // chunks done (or skipped after an error)
    std::atomic<bool> failed{false};
    std::exception_ptr error;          // the first one; written under Pool::mutex
};

class Pool {
public:
    explicit Pool(unsigned workers) {
        try {
            for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
        } catch (...) {
            // No memory or no thread: the started ones stop, and the error goes to the caller
            // (whose guard makes it an Error); the next call tries to build the pool again.
            stop();
            throw;
        }
    }
    ~Pool() { stop(); }

    size_t workers() const { return threads_.size(); }

    // first: what the caller runs before it joins the chunks (parallel_invoke's own task).
    void run(Job& job, const std::function<void()>* first = nullptr) {
        if (job.helpers > 0 && !threads_.empty()) {
            {
                std::lock_guard lock(mutex_);
                queue_.push_back(&job);
            }
            if (job.helpers == 1) wake_.notify_one();
            else wake_.notify_all();
        }
        std::exception_ptr first_error;
        if (first) {
            try {
                (*first)();
            } catch (...) {
                first_error = std::current_exception();
            }
        }
        claim_chunks(job);
        {
            std::unique_lock lock(mutex_);
            std::erase(queue_, &job);  // no worker may join from now on
            // Also until every worker that joined has left it: the job lives on this stack.
            done_.wait(lock, [&] { return job.finished.load() == job.chunks && job.active == 0; });
        }
        if (first_error) std::rethrow_exception(first_error);
        if (job.error) std::rethrow_exception(job.error);
    }

private:
    void stop() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
        threads_.clear();
    }

    void claim_chunks(Job& job) {
        for (;;) {
            const size_t c = job.next.fetch_add(1);
            if (c >= job.chunks) return;
            if (!job.failed.load()) {
                try {
                    const size_t begin = c * job.grain;
                    (*job.fn)(begin, std::min(job.count, begin + job.grain));
                } catch (...) {
                    std::lock_guard lock(mutex_);
                    if (!job.error) job.error = std::current_exception();
                    job.failed = true;
                }
            }
            if (job.finished.fetch_add(1) + 1 == job.chunks) {
                std::lock_guard lock(mutex_);  // the waiter checks under the lock: no lost wake-up
                done_.notify_all();
            }
        }
    }

    void work() {
        for (;;) {
            Job* job = nullptr;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] {
                    if (stop_) return true;
                    for (Job* j : queue_)
                        if (j->helpers > 0 && j->next.load() < j->chunks) return true;
                    return false;
                });
                if (stop_) return;
                for (Job* j : queue_)
                    if (j->helpers > 0 && j->next.load() < j->chunks) {
                        job = j;
                        --j->helpers;
                        ++j->active;
                        break;
                    }
            }
            // The caller claims chunks without the lock: between the wait's check and the search
            // above it may have taken the last one, and there is nothing to help with after all.
            if (!job) continue;
            claim_chunks(*job);
            std::lock_guard lock(mutex_);
            if (--job->active == 0) done_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::deque<Job*> queue_;
    std::vector<std::thread> threads_;
    bool stop_ = false;
};

Pool& shared_pool() {
    static Pool pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
    return pool;
}

}  // namespace

size_t chunk_grain(size_t grain) {
    grain = std::max<size_t>(grain, 1);
    if (size_t cap = max_grain.load(); cap > 0) grain = std::min(grain, cap);
    return grain;
}

size_t chunk_count(size_t count, size_t grain) {
    grain = chunk_grain(grain);
    return (count + grain - 1) / grain;
}

namespace {

void run_chunks(size_t count, size_t grain, uint32_t threads, const std::function<void(size_t, size_t)>& fn) {
    const size_t chunks = (count + grain - 1) / grain;
    if (chunks == 0) return;
    if (chunks == 1 || threads == 1) {
        for (size_t begin = 0; begin < count; begin += grain) fn(begin, std::min(count, begin + grain));
        return;
    }
    Pool& pool = shared_pool();
    Job job;
    job.fn = &fn;
    job.count = count;
    job.grain = grain;
    job.chunks = chunks;
    const size_t wanted = threads == 0 ? pool.workers() : std::min<size_t>(threads - 1, pool.workers());
    job.helpers = uint32_t(std::min(wanted, chunks - 1));
    pool.run(job);
}

}  // namespace

void parallel_for(size_t count, size_t grain, uint32_t threads, const std::function<void(size_t, size_t)>& fn) {
    run_chunks(count, chunk_grain(grain), threads, fn);
}

void parallel_invoke(uint32_t threads, const std::function<void()>& a, const std::function<void()>& b) {
    if (threads == 1) {
        a();
        b();
        return;
    }
    // a always on the caller (its allocations stay in the caller's malloc arena, where later
    // steps reuse them); b on a free worker, or on the caller after a when none is free.
    Pool& pool = shared_pool();
    const std::function<void(size_t, size_t)> fn = [&](size_t, size_t) { b(); };
    Job job;
    job.fn = &fn;
    job.count = 1;
    job.chunks = 1;
    job.helpers = pool.workers() > 0 ? 1 : 0;
    pool.run(job, &a);
}

void set_max_grain_for_testing(size_t grain) { max_grain = grain; }

}  // namespace rigport::detail

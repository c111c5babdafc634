// The thread pool under churn: many tiny jobs, each of whose chunks the caller may finish before a
// woken worker looks for them (a race fuzz_iqe found: the worker then took a job that was no longer
// there). Every chunk runs once, every job returns.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "support/thread_pool.hpp"

using rigport::detail::parallel_for;

TEST(ThreadPool, ManyTinyJobsEachChunkOnce) {
    std::vector<std::atomic<uint32_t>> runs(4);
    for (int round = 0; round < 20000; ++round) {
        parallel_for(4, 1, 0, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i) runs[i].fetch_add(1, std::memory_order_relaxed);
        });
    }
    for (auto& r : runs) EXPECT_EQ(r.load(), 20000u);
}

TEST(ThreadPool, NestedJobsFinish) {
    std::atomic<uint64_t> sum{0};
    for (int round = 0; round < 2000; ++round)
        parallel_for(3, 1, 0, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
                parallel_for(3, 1, 0, [&](size_t b2, size_t e2) { sum.fetch_add(e2 - b2, std::memory_order_relaxed); });
        });
    EXPECT_EQ(sum.load(), 2000u * 3 * 3);
}

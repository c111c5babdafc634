// A small thread pool shared by the whole library: created once on first parallel use, sized from
// std::thread::hardware_concurrency, running parallel_for over index ranges in fixed chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace rigport::detail {

// Runs fn(begin, end) over [0, count) in chunks of `grain` indices (the last one shorter), on at
// most `threads` threads including the caller (0 = every core, 1 = here, in order, with no pool).
// Chunk boundaries depend only on count and grain, never on the number of threads or on timing,
// so a caller that combines per-chunk results in chunk order gets the same bytes on any machine.
// The caller works too, so nested calls (from inside fn) cannot deadlock: a busy pool just leaves
// all the chunks to the calling thread. The first exception thrown by fn is rethrown here after
// every started chunk has finished; chunks not yet started are skipped.
void parallel_for(size_t count, size_t grain, uint32_t threads, const std::function<void(size_t, size_t)>& fn);

// The chunk length parallel_for uses for `grain` (chunk i starts at i * chunk_grain(grain)), and
// the number of chunks it splits count into (0 for count 0): for per-chunk partial results.
size_t chunk_grain(size_t grain);
size_t chunk_count(size_t count, size_t grain);

// Runs a() and b(), at the same time when a thread is free (threads as above).
void parallel_invoke(uint32_t threads, const std::function<void()>& a, const std::function<void()>& b);

// Tests only: caps every grain at `grain` (0 = no cap) so that small models take the parallel
// paths; the output must not change. Not thread-safe against running parallel_for calls.
void set_max_grain_for_testing(size_t grain);

}  // namespace rigport::detail

// The content-addressed conversion cache inside the pipeline: keys, entries, lookups, stores and
// eviction (docs/scale.md "The cache").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigport/convert.hpp"

namespace rigport::detail {

// What a model's key is made of before any file is read: rigport's version, the output format,
// every option that changes the output, the inputs and the output as given (docs/scale.md "The key").
struct CacheQuery {
    std::string text;          // the key's text
    std::string manifest_key;  // SHA-256 of text: names the lists of files earlier conversions read
};

// Unset when this conversion cannot be cached: no cache folder, standard output, in memory, files
// from a caller's storage, a clock in the output (FBX --timestamp).
std::optional<CacheQuery> cache_query(const ConvertJob& job, const std::vector<CompileInput>& inputs, const ConvertOptions& options);

// An entry found: the files a conversion wrote and what it reported.
struct CacheHit {
    Output output;              // main bytes and side files; output.format points into format
    std::string format;         // Output::format as written
    std::vector<std::string> inputs;  // every file the conversion read (ConvertResult::inputs)
    ConvertResult reported;     // warnings, swaps, fixes, notes, counts, bytes
};

// Looks up the entry for the files each earlier conversion under this query read, as they are now.
// A damaged entry (its digest does not match) is removed and not returned: the model is converted
// and stored again. A hit marks the entry used (least recently used eviction).
std::optional<CacheHit> cache_find(const CacheOptions& cache, const CacheQuery& query);

// Stores what a conversion wrote under the key of the files it read (files_read, each hashed now;
// a file that is absent counts as absent), then, at this process's first store and after each
// eighth of cache.max_bytes stored, evicts down to it. An error is the caller's to warn about; the
// conversion itself stands.
Status cache_store(const CacheOptions& cache, const CacheQuery& query, const std::vector<std::string>& files_read, const Output& output,
                   const ConvertResult& result);

// Evicts the least recently used entries down to cache.max_bytes now (no limit: nothing): the end
// of a batch.
void cache_trim(const CacheOptions& cache);

}  // namespace rigport::detail

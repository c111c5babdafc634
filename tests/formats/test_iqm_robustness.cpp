// Robustness inside the test runner (as ufbx does): every corpus IQM truncated at every length
// and mutated 10,000 times with a fixed seed must give a valid scene or a clean error, never a
// crash, hang or sanitizer report. Successful mutants must also survive validate and the writers.
#include <gtest/gtest.h>

#include <random>

#include "formats/iqm/iqm_layout.hpp"
#include "formats/iqm_builder.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "rigport/validate.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

// Reads the bytes; a success must satisfy the scene invariants. Returns whether it loaded.
bool read_cleanly(std::span<const uint8_t> bytes, const std::string& what) {
    auto scene = iqm::read(bytes, LoadOptions{});
    if (!scene) {
        EXPECT_FALSE(scene.error().message.empty()) << what;
        EXPECT_TRUE(scene.error().offset.has_value()) << what << ": " << scene.error().message;
        return false;
    }
    auto st = check_invariants(*scene);
    EXPECT_TRUE(st) << what << ": " << (st ? "" : st.error().message);
    return true;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds() {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    for (auto& p : corpus_files("iqm", ".iqm")) out.emplace_back(p.filename().string(), read_bytes(p));
    // The built-in sample, through rigport's own writer, is a seed that needs no corpus.
    auto sample = save_bytes(make_sample_scene(), "sample.iqm");
    if (sample) out.emplace_back("sample.iqm", std::move(*sample));
    return out;
}

TEST(IqmRobustness, TruncatedAtEveryLength) {
    auto files = seeds();
    ASSERT_FALSE(files.empty());
    if (corpus_dir().empty()) std::cout << "[ note ] corpus absent: only the built-in sample is truncated\n";
    for (auto& [name, bytes] : files) {
        std::vector<uint8_t> patched = bytes;  // one copy; each cut is a prefix of it
        for (size_t n = 0; n < bytes.size(); ++n) {
            // As cut, the header's filesize no longer matches: always an error.
            ASSERT_FALSE(iqm::read(std::span(bytes.data(), n), LoadOptions{})) << name << " cut at " << n;
            // With filesize patched to the cut length the reader must find the damage itself.
            if (n >= 24) {
                set_u32(patched, H_FILESIZE, static_cast<uint32_t>(n));
                read_cleanly(std::span(patched.data(), n), name + " cut at " + std::to_string(n) + " with filesize patched");
            }
            if (HasFailure()) return;
        }
    }
}

// Values that hostile counts and offsets like to take.
uint32_t interesting(std::mt19937& rng, uint32_t size) {
    const uint32_t values[] = {0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu,
                               size, size - 1, size + 1, size / 2, 124, 0x10000, 0x3F800000u /* 1.0f */, 0x7FC00000u /* NaN */};
    return values[rng() % std::size(values)];
}

void mutate(std::vector<uint8_t>& b, std::mt19937& rng) {
    const uint32_t size = static_cast<uint32_t>(b.size());
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        switch (rng() % 5) {
            case 0: b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;  // bit flip
            case 1: b[rng() % b.size()] = static_cast<uint8_t>(rng()); break;               // random byte
            case 2: {  // a header field: counts and offsets are where readers die
                const size_t at = 16 + 4 * (rng() % 27);
                set_u32(b, at, rng() % 2 ? interesting(rng, size) : get_u32(b, at) + (rng() % 64) - 32);
                break;
            }
            case 3: {  // a 4-aligned word anywhere: record fields
                const size_t at = (rng() % (b.size() / 4)) * 4;
                set_u32(b, at, interesting(rng, size));
                break;
            }
            default: {  // copy a run of bytes elsewhere
                const size_t from = rng() % b.size(), to = rng() % b.size();
                const size_t n = std::min<size_t>(1 + rng() % 32, std::min(b.size() - from, b.size() - to));
                std::memmove(b.data() + to, b.data() + from, n);
            }
        }
    }
}

TEST(IqmRobustness, TenThousandSeededMutationsPerFile) {
    auto files = seeds();
    ASSERT_FALSE(files.empty());
    for (auto& [name, bytes] : files) {
        std::mt19937 rng(0x1A2B3C4Du ^ static_cast<uint32_t>(bytes.size()));
        int loaded = 0;
        for (int i = 0; i < 10000; ++i) {
            std::vector<uint8_t> m = bytes;
            mutate(m, rng);
            const std::string what = name + " mutation " + std::to_string(i);
            if (read_cleanly(m, what)) {
                ++loaded;
                // Every 50th survivor also goes through validation and the writer.
                if (loaded % 50 == 1) {
                    (void)validate_bytes(m, what);
                    auto scene = iqm::read(m, LoadOptions{});
                    // The glTF writer takes whatever a reader accepted: a value or an Error.
                    auto glb = save_bytes(*scene, "out.glb");
                    if (!glb) {
                        EXPECT_FALSE(glb.error().message.empty()) << what;
                    }
                    auto out = save_bytes(*scene, "out.iqm");
                    if (out) {
                        auto back = iqm::read(*out, LoadOptions{});
                        if (!back) {
                            // Keep the input for a regression fixture (STYLE.md rule 12).
                            auto keep = temp_dir() / "failing-mutant.iqm";
                            write_bytes(keep, m);
                            ADD_FAILURE() << what << ": rigport cannot read what it wrote: " << back.error().to_string()
                                          << " (input kept in " << keep << ")";
                        }
                    }
                }
            }
            if (HasFailure()) return;
        }
        std::cout << "[ note ] " << name << ": " << loaded << " of 10000 mutants loaded, the rest gave clean errors\n";
    }
}

}  // namespace
}  // namespace rigport::test

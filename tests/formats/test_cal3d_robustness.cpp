// Cal3D robustness inside the test runner (as test_iqm_robustness.cpp): small corpus files, binary
// and XML, truncated at every length and mutated 2,000 times each with a fixed seed: a valid scene
// or an error with a message, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

const char* small_files[] = {
    "upstream_binary/cally/cally.csf",
    "upstream_binary/cally/cally_ponytail.cmf",
    "upstream_binary/cally/cally_idle.caf",
    "upstream_binary/paladin/paladin_loincloth.cmf",
    "imvu_authored/binary_written_by_imvu_fork/imvu_test_mesh1_morph.cmf",
    "imvu_authored/binary_written_by_imvu_fork/imvu_test_skeleton1.csf",
    "imvu_authored/binary_written_by_imvu_fork/imvu_test_material1.crf",
    "imvu_authored/binary_written_by_imvu_fork/imvu_test_animmorph1.cpf",
    "converted/mp3butcher_v1301_binary/cally_skin.crf",
    "imvu_authored/xml/imvu_test_mesh1_morph.xmf",
    "imvu_authored/xml/imvu_test_animation2_rotonly.xaf",
    "imvu_authored/xml/imvu_test_animmorph1.xpf",
    "imvu_authored/xml/imvu_test_material1.xrf",
    "upstream_tests/base.xsf",
};

bool read_cleanly(std::span<const uint8_t> bytes, const std::string& path, const std::string& what) {
    LoadOptions options;
    auto scene = load_bytes(bytes, path, options);
    if (!scene) {
        EXPECT_FALSE(scene.error().message.empty()) << what;
        return false;
    }
    auto st = check_invariants(*scene);
    EXPECT_TRUE(st) << what << ": " << (st ? "" : st.error().message);
    return true;
}

TEST(Cal3dRobustness, TruncatedAtEveryLength) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto rel : small_files) {
        auto path = corpus_dir() / "cal3d" / rel;
        auto bytes = read_bytes(path);
        ASSERT_LT(bytes.size(), 20000u) << rel;
        const bool binary = bytes.size() >= 4 && bytes[3] == 0;
        for (size_t n = 0; n < bytes.size(); ++n) {
            const bool loaded = read_cleanly(std::span(bytes.data(), n), path.string(), std::string(rel) + " cut at " + std::to_string(n));
            if (binary) {
                EXPECT_FALSE(loaded) << rel << " cut at " << n << " loaded";  // exact size
            }
            if (HasFailure()) return;
        }
    }
}

TEST(Cal3dRobustness, SeededMutations) {
    RIGPORT_REQUIRE_CORPUS();
    std::mt19937 rng(20240607);
    for (auto rel : small_files) {
        auto path = corpus_dir() / "cal3d" / rel;
        const auto original = read_bytes(path);
        for (int i = 0; i < 2000; ++i) {
            auto bytes = original;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const size_t at = rng() % bytes.size();
                switch (rng() % 4) {
                    case 0: bytes[at] = uint8_t(rng()); break;
                    case 1: bytes[at] ^= uint8_t(1u << (rng() % 8)); break;
                    case 2:  // a hostile int32 at an aligned spot
                        if (at + 4 <= bytes.size()) {
                            const uint32_t v[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x10000u, 0u};
                            const uint32_t x = v[rng() % 5];
                            for (int k = 0; k < 4; ++k) bytes[(at & ~size_t(3)) + k < bytes.size() ? (at & ~size_t(3)) + k : at] = uint8_t(x >> (8 * k));
                        }
                        break;
                    default: bytes.erase(bytes.begin() + long(at)); break;
                }
                if (bytes.empty()) bytes.push_back(0);
            }
            read_cleanly(bytes, path.string(), std::string(rel) + " mutation " + std::to_string(i));
            if (HasFailure()) return;
        }
    }
}

}  // namespace
}  // namespace rigport::test

// Robustness of the IQE reader inside the test runner: every corpus IQE (and a built-in fixture)
// truncated at many lengths and mutated 2,000 times with a fixed seed gives a clean line:col
// error or a scene that passes check_invariants, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "formats/iqe/iqe_layout.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

bool read_cleanly(std::span<const uint8_t> bytes, const std::string& what) {
    auto scene = iqe::read(bytes, LoadOptions{});
    if (!scene) {
        EXPECT_FALSE(scene.error().message.empty()) << what;
        EXPECT_GT(scene.error().line, 0u) << what << ": " << scene.error().message;
        return false;
    }
    auto st = check_invariants(*scene);
    EXPECT_TRUE(st) << what << ": " << (st ? "" : st.error().message);
    return true;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds() {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    for (auto& p : corpus_files("iqe", ".iqe")) out.emplace_back(p.filename().string(), read_bytes(p));
    // The built-in sample through the IQE writer, plus every command the corpus lacks.
    auto sample = iqe::write(make_sample_scene(), SaveOptions{});
    if (sample) {
        std::string extra =
            "\nvertexarray custom2 half 3 \"x y\"\nmesh \"poly gon\"\nmaterial m\nsmoothgroup 2\nsmoothangle 40\nsmoothuv 1\n"
            "vp 0 0 0\nvs 1\nv2 1 2 3\nvc 1 0 0\nvp 1 0 0\nvp 1 1 0\nvp 0 1 -0\nfa -4 -3 -2 -1\nfs 1 0 1 0\nfm 0 1 2\n"
            "pm 0 0 0 1 0 0 0 1 0 0 0 1 2 2 2\npa 0 0 0 0.1 0.2 0.3\nanimation extra\nframe 0\npq 0 0 0 0 0 0\n"
            "comment\nthe end\n";
        sample->insert(sample->end(), extra.begin(), extra.end());
        out.emplace_back("sample.iqe", std::move(*sample));
    }
    return out;
}

TEST(IqeRobustness, TruncatedAtManyLengths) {
    auto files = seeds();
    ASSERT_FALSE(files.empty());
    if (corpus_dir().empty()) std::cout << "[ note ] corpus absent: only the built-in sample is truncated\n";
    for (auto& [name, bytes] : files) {
        ASSERT_TRUE(read_cleanly(bytes, name + " whole")) << name;
        // Every length for small files; a stride keeping about 400 cuts for the big ones.
        const size_t stride = bytes.size() <= 64 * 1024 ? 1 : bytes.size() / 400 + 1;
        for (size_t n = 0; n < bytes.size(); n += stride) {
            read_cleanly(std::span(bytes.data(), n), name + " cut at " + std::to_string(n));
            if (HasFailure()) return;
        }
    }
}

void mutate(std::vector<uint8_t>& b, std::mt19937& rng) {
    static const char* huge[] = {"1e999", "-1e39", "99999", "-99999", "4294967296", "nan", "inf", "1e-999", "-0", "2147483648"};
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !b.empty(); ++e) {
        const size_t at = rng() % b.size();
        switch (rng() % 5) {
            case 0: b[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;  // byte flip
            case 1: {  // a digit changed
                size_t i = at;
                while (i < b.size() && !(b[i] >= '0' && b[i] <= '9')) ++i;
                if (i < b.size()) b[i] = static_cast<uint8_t>('0' + rng() % 10);
                break;
            }
            case 2: b.insert(b.begin() + at, '-'); break;
            case 3: {  // a number replaced by a huge or odd one
                std::string_view h = huge[rng() % std::size(huge)];
                size_t i = at;
                while (i < b.size() && b[i] != ' ') ++i;
                if (i >= b.size()) break;
                size_t j = i + 1;
                while (j < b.size() && b[j] != ' ' && b[j] != '\n') ++j;
                b.erase(b.begin() + i + 1, b.begin() + j);
                b.insert(b.begin() + i + 1, h.begin(), h.end());
                break;
            }
            default: {  // a token deleted
                size_t i = at;
                while (i < b.size() && b[i] != ' ') ++i;
                size_t j = i + 1;
                while (j < b.size() && b[j] != ' ' && b[j] != '\n') ++j;
                if (i < b.size()) b.erase(b.begin() + i, b.begin() + std::min(j, b.size()));
            }
        }
    }
}

TEST(IqeRobustness, TwoThousandSeededMutationsPerFile) {
    auto files = seeds();
    ASSERT_FALSE(files.empty());
    for (auto& [name, full] : files) {
        // Big files are mutated in their first 64 KB (header, joints, vertex declarations and the
        // first vertices and faces, cut at a line end) so the run stays short; the whole file
        // gets 100 extra mutations.
        std::vector<uint8_t> bytes = full;
        if (bytes.size() > 64 * 1024) {
            size_t cut = 64 * 1024;
            while (cut < bytes.size() && bytes[cut - 1] != '\n') ++cut;
            bytes.resize(cut);
        }
        std::mt19937 rng(0x1AE5EEDu ^ static_cast<uint32_t>(full.size()));
        int loaded = 0;
        const int whole = full.size() > bytes.size() ? 100 : 0;
        for (int i = 0; i < 2000 + whole; ++i) {
            std::vector<uint8_t> m = i < 2000 ? bytes : full;
            mutate(m, rng);
            loaded += read_cleanly(m, name + " mutation " + std::to_string(i));
            if (HasFailure()) {
                auto keep = temp_dir() / "failing-mutant.iqe";
                write_bytes(keep, m);
                ADD_FAILURE() << "input kept in " << keep;
                return;
            }
        }
        std::cout << "[ note ] " << name << ": " << loaded << " of " << 2000 + whole << " mutants loaded, the rest gave clean errors\n";
    }
}

}  // namespace
}  // namespace rigport::test

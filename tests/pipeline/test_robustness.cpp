// The one robustness harness, driven by the format registry (docs/reliability.md; after ufbx's test/testing_fuzz.h): every registered reader gets its seeds (rigport's
// sample through the format's writer, our fixtures; then the corpus files with its extensions)
// truncated at every length (a stride for large files), mutated with a fixed seed (bytes, words,
// text numbers, and the format's own structural mutator) and with every leading word / number set
// to hostile counts. Every result must be a scene that passes check_invariants or an Error with a
// message, the path and (for the formats that promise one) the place; no exception may escape a
// reader; survivors go through validate and the writers, and what rigport writes it reads back.
// A format registered tomorrow is covered by the same tests the day it is registered.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <random>

#include "pipeline/robustness_harness.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/validate.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using namespace robustness;
using nlohmann::json;

// ---- what each format promises beyond the generic rules -----------------------------------------

struct Traits {
    bool error_has_place = false;      // every Error names a byte offset or a line
    bool cut_never_loads = false;      // the header or the record sizes pin the file size exactly
    bool cut_never_detected = false;   // detect() checks the exact size too
    bool writers_must_accept = false;  // whatever the reader accepts, the GLB writer takes, and the IQM writer within its frame budget
};

Traits traits(const FormatInfo& f) {
    Traits t;
    const std::string_view n = f.name;
    t.error_has_place = n == "iqm" || n == "iqe" || n == "joe" || n == "md5" || n == "smd" || n == "obj" || n == "hlmdl" || n == "md2" ||
                        n == "mdl" || n == "md3";
    t.cut_never_loads = n == "iqm" || n == "joe" || n == "hlmdl" || n == "cal3d-csf" || n == "cal3d-cmf" || n == "cal3d-caf" ||
                        n == "cal3d-crf" || n == "cal3d-cpf" || n == "md3";
    t.cut_never_detected = n == "joe";
    t.writers_must_accept = n == "gltf" || n == "glb";
    return t;
}

// ---- budgets: every length and every leading word for small files, a stride beyond -------------

constexpr size_t every_length_up_to = 4096;   // truncation: each length below this
constexpr size_t bytes_per_pass = 12u << 20;  // a large file gets about this many bytes of reading per pass
constexpr size_t max_mutants = 2000;

size_t reads_for(size_t size, size_t natural, size_t floor) {
    return std::min(natural, std::max(floor, bytes_per_pass / std::max<size_t>(size, 1)));
}

// ---- format mutators: the structure a format knows about ------------------------------------------

// IQM (iqm.txt): the 27 header words after the magic, counts and offsets, set hostile or nudged.
bool mutate_iqm_header(const Seed&, std::vector<uint8_t>& b, std::mt19937& rng) {
    if (b.size() < 124) return false;
    const size_t at = 16 + 4 * (rng() % 27);
    set_word(b, at, rng() % 2 ? hostile_word(rng, uint32_t(b.size())) : word_at(b, at) + (rng() % 64) - 32);
    return true;
}

// JOE (docs/joe.md §2): the four header words, or a u16 face index of the first frame.
bool mutate_joe_records(const Seed&, std::vector<uint8_t>& b, std::mt19937& rng) {
    if (b.size() < 20) return false;
    if (rng() % 2) {
        set_word(b, 4 * (rng() % 4), hostile_word(rng, uint32_t(b.size())));
    } else {
        const size_t at = 16 + 2 * (rng() % std::max<size_t>(1, (b.size() - 16) / 2 - 1));
        const uint16_t v = uint16_t(rng() % 3 ? rng() % 64 : hostile_word(rng, uint32_t(b.size())));
        if (at + 1 < b.size()) b[at] = uint8_t(v), b[at + 1] = uint8_t(v >> 8);
    }
    return true;
}

// glTF 2.0: a GLB taken apart (§4.4) so JSON edits can change its length and be put back.
constexpr uint32_t glb_magic = 0x46546C67, chunk_json = 0x4E4F534A, chunk_bin = 0x004E4942;

struct Glb {
    std::string json_text;
    std::vector<uint8_t> bin;
    bool has_bin = false;

    static std::optional<Glb> split(const std::vector<uint8_t>& b) {
        if (b.size() < 20 || word_at(b, 0) != glb_magic || word_at(b, 16) != chunk_json) return std::nullopt;
        const uint32_t n = word_at(b, 12);
        if (n > b.size() - 20) return std::nullopt;
        Glb g;
        g.json_text.assign(b.begin() + 20, b.begin() + 20 + n);
        const size_t at = 20 + size_t(n);
        if (at + 8 <= b.size() && word_at(b, at + 4) == chunk_bin) {
            const uint32_t m = word_at(b, at);
            if (m > b.size() - at - 8) return std::nullopt;
            g.bin.assign(b.begin() + long(at) + 8, b.begin() + long(at) + 8 + m);
            g.has_bin = true;
        }
        return g;
    }
    std::vector<uint8_t> join() const {
        std::string text = json_text;
        while (text.size() % 4) text += ' ';
        std::vector<uint8_t> out;
        put_u32(out, glb_magic);
        put_u32(out, 2);
        put_u32(out, 0);
        auto chunk = [&](uint32_t type, const uint8_t* data, size_t size) {
            put_u32(out, uint32_t(size));
            put_u32(out, type);
            out.insert(out.end(), data, data + size);
        };
        chunk(chunk_json, reinterpret_cast<const uint8_t*>(text.data()), text.size());
        std::vector<uint8_t> padded = bin;
        while (padded.size() % 4) padded.push_back(0);
        if (has_bin) chunk(chunk_bin, padded.data(), padded.size());
        set_word(out, 8, uint32_t(out.size()));
        return out;
    }
};

// A seed's JSON parsed once, with the JSON pointer of every leaf, for structural edits.
struct ParsedGltf {
    json doc;
    std::vector<json::json_pointer> leaves;
    std::optional<Glb> glb;

    explicit ParsedGltf(const Seed& seed) {
        glb = Glb::split(seed.bytes);
        const std::string text = glb ? glb->json_text : std::string(seed.bytes.begin(), seed.bytes.end());
        doc = json::parse(text, nullptr, false);
        if (doc.is_discarded()) return;
        const json flat = doc.flatten();  // must outlive the loop: items() only refers to it
        for (const auto& item : flat.items()) leaves.emplace_back(item.key());
    }
};

const ParsedGltf& parsed_gltf(const Seed& seed) {
    static std::map<std::pair<std::string, size_t>, ParsedGltf> cache;
    const auto key = std::make_pair(seed.name, seed.bytes.size());
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, ParsedGltf(seed)).first;
    return it->second;
}

// A structural JSON edit: a leaf (or its parent) deleted, set to a hostile number, a string,
// null, an empty array or object, or an array item repeated. Empty when the seed is not JSON.
std::string mutate_json_structure(const ParsedGltf& p, std::mt19937& rng) {
    if (p.leaves.empty()) return {};
    json j = p.doc;
    const json::json_pointer& leaf = p.leaves[rng() % p.leaves.size()];
    const json::json_pointer where = rng() % 4 == 0 && !leaf.empty() ? leaf.parent_pointer() : leaf;
    if (where.empty()) return {};
    switch (rng() % 8) {
        case 0: {
            json& parent = j[where.parent_pointer()];
            const std::string key = where.back();
            if (parent.is_object()) parent.erase(key);
            else if (parent.is_array() && !parent.empty()) parent.erase(parent.size() > std::stoul(key) ? std::stoul(key) : 0);
            break;
        }
        case 1:
        case 2: j[where] = "@@number@@"; break;  // replaced by a raw number below (1e999 is no JSON double)
        case 3: j[where] = "7"; break;
        case 4: j[where] = nullptr; break;
        case 5: j[where] = rng() % 2 ? json::array() : json::object(); break;
        case 6: {
            json& parent = j[where.parent_pointer()];
            if (parent.is_array() && !parent.empty()) parent.push_back(parent[rng() % parent.size()]);
            break;
        }
        default: j[where] = rng() % 2 ? json(int64_t(rng() % 64)) : json(-double(rng() % 4)); break;
    }
    std::string text = j.dump();
    if (const size_t at = text.find("\"@@number@@\""); at != std::string::npos) text.replace(at, 12, hostile_number(rng));
    return text;
}

// A data: URI buffer's base64 edited in place: words set to hostile values.
bool mutate_base64(std::string& text, std::mt19937& rng) {
    const size_t comma = text.find(";base64,");
    if (comma == std::string::npos) return false;
    const size_t at = comma + 8 + rng() % 4096;
    if (at + 8 >= text.size()) return false;
    static const char* words[] = {"////", "AAAA", "/38A", "AAD/", "f8AA", "gAAA"};
    const char* w = words[rng() % std::size(words)];
    for (int k = 0; k < 4 && std::isalnum(static_cast<unsigned char>(text[at + k])); ++k) text[at + k] = w[k];
    return true;
}

void mutate_json_text(std::string& text, std::mt19937& rng) {
    std::vector<uint8_t> b(text.begin(), text.end());
    mutate_text(b, rng);
    text.assign(b.begin(), b.end());
}

// glTF: three in ten a structural JSON edit (perhaps plus a textual one); else edits of the GLB
// header and chunk words, BIN words, JSON text or base64 data, the GLB put back together after.
bool mutate_gltf(const Seed& seed, std::vector<uint8_t>& b, std::mt19937& rng) {
    const ParsedGltf& parsed = parsed_gltf(seed);
    if (rng() % 10 < 3) {
        std::string text = mutate_json_structure(parsed, rng);
        if (!text.empty()) {
            if (rng() % 3 == 0) mutate_json_text(text, rng);
            if (!parsed.glb) {
                b.assign(text.begin(), text.end());
                return true;
            }
            Glb g = *parsed.glb;
            g.json_text = std::move(text);
            b = g.join();
            return true;
        }
    }
    if (parsed.glb) {
        const unsigned kind = rng() % 4;
        if (kind == 0 && b.size() >= 16) {
            set_word(b, 4 * (rng() % 4), hostile_word(rng, uint32_t(b.size())));
            return true;
        }
        auto g = Glb::split(b);
        if (!g) return false;
        if (kind == 1 && g->bin.size() >= 4)
            set_word(g->bin, (rng() % (g->bin.size() / 4)) * 4, hostile_word(rng, uint32_t(g->bin.size())));
        else
            mutate_json_text(g->json_text, rng);
        b = g->join();
        return true;
    }
    std::string text(b.begin(), b.end());
    if (!mutate_base64(text, rng)) return false;
    b.assign(text.begin(), text.end());
    return true;
}

FormatMutator format_mutator(const FormatInfo& f) {
    if (f.name == "iqm") return mutate_iqm_header;
    if (f.name == "joe") return mutate_joe_records;
    if (f.name == "gltf" || f.name == "glb") return mutate_gltf;
    return nullptr;
}

// ---- the checks -----------------------------------------------------------------------------------

// Loads damaged bytes of one seed as its format and checks the result; counts what happened.
class Runner {
public:
    Runner(const FormatInfo& format, const Seed& seed)
        : f_(format), seed_(seed), traits_(traits(format)), text_(looks_text(seed.bytes)) {}

    bool text() const { return text_; }
    size_t loaded() const { return loaded_; }

    // False once the test has failed (the input is then kept for a regression fixture).
    bool check(std::span<const uint8_t> bytes, const std::string& what, std::optional<size_t> cut = std::nullopt) {
        ++runs_;
        LoadOptions options;
        options.format = std::string(f_.name);
        auto scene = load_bytes(bytes, seed_.name, options);
        if (!scene) {
            check_error(scene.error(), what, cut);
        } else {
            ++loaded_;
            if (cut && traits_.cut_never_loads) ADD_FAILURE() << what << ": loaded although the file is cut";
            auto st = check_invariants(*scene);
            EXPECT_TRUE(st) << what << ": check_invariants: " << (st ? "" : st.error().to_string());
            if (st && loaded_ % survivor_every() == 1) check_survivor(*scene, bytes, what);
        }
        if (cut && traits_.cut_never_detected && f_.detect) {
            EXPECT_FALSE(f_.detect(bytes)) << what << ": detected although cut";
        }
        if (!::testing::Test::HasFailure()) return true;
        const fs::path keep = temp_dir() / ("failing-" + fs::path(seed_.name).filename().string());
        write_bytes(keep, std::vector<uint8_t>(bytes.begin(), bytes.end()));
        ADD_FAILURE() << what << ": input kept in " << keep;
        return false;
    }

    void note(const char* pass, std::chrono::steady_clock::time_point start) const {
        std::cout << "[ note ] " << f_.name << " " << seed_.name << " (" << seed_.bytes.size() << " bytes) " << pass << ": " << runs_
                  << " inputs, " << loaded_ << " loaded, the rest clean errors ("
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s)\n";
    }

private:
    int survivor_every() const { return seed_.bytes.size() > 64 * 1024 ? 200 : 25; }

    void check_error(const Error& e, const std::string& what, std::optional<size_t> cut) {
        EXPECT_FALSE(e.message.empty()) << what;
        EXPECT_EQ(e.path, seed_.name) << what << ": the error does not name the input: " << e.to_string();
        // The guard at the API boundary turned an exception into this error: a reader threw.
        EXPECT_EQ(e.message.find("unexpected error while"), std::string::npos) << what << ": an exception escaped the reader: " << e.message;
        // A count no file of this size can justify was allocated.
        EXPECT_NE(e.message.rfind("out of memory", 0), 0u) << what << ": " << e.message;
        if (traits_.error_has_place) {
            EXPECT_TRUE(e.offset.has_value() || e.line > 0) << what << ": the error names no place: " << e.to_string();
        }
        if (cut && e.offset) {
            EXPECT_LE(*e.offset, *cut) << what << ": the error's offset is past the data: " << e.to_string();
        }
    }

    // Validation and the writers take whatever a reader accepted: a value or an Error, and what
    // rigport writes it must read back.
    void check_survivor(const Scene& scene, std::span<const uint8_t> bytes, const std::string& what) {
        LoadOptions options;
        options.format = std::string(f_.name);
        const ValidationReport report = validate_bytes(bytes, seed_.name, options);
        EXPECT_EQ(report.path, seed_.name) << what;
        std::vector<std::string> targets = {"glb", "iqm"};
        if (f_.write && f_.name != "glb" && f_.name != "iqm") targets.push_back(std::string(f_.name));
        for (const std::string& target : targets) {
            const FormatInfo* t = find_format(target);
            if (!t || !t->write || !t->read) continue;
            SaveOptions so;
            so.format = target;
            so.gltf.embed_buffer = true;
            so.joe.force = true;
            const std::string name = file_name(*t, "out");
            auto out = save_output(scene, name, so);
            if (!out) {
                EXPECT_FALSE(out.error().message.empty()) << what;
                // A clip whose keys lie far apart is kept as keys by the reader; only a
                // frame-based writer, which would sample it, refuses it (LimitExceeded).
                const bool frame_budget = target != "glb" && out.error().code == ErrorCode::LimitExceeded;
                if (traits_.writers_must_accept && !frame_budget)
                    ADD_FAILURE() << what << ": cannot write " << target << ": " << out.error().to_string();
                continue;
            }
            if (!out->side_files.empty()) continue;  // a .cfg and its members: not one file
            LoadOptions back_options;
            back_options.format = target;
            auto back = load_bytes(out->bytes, name, back_options);
            EXPECT_TRUE(back) << what << ": rigport cannot read the " << target << " it wrote: " << (back ? "" : back.error().to_string());
        }
    }

    const FormatInfo& f_;
    const Seed& seed_;
    Traits traits_;
    bool text_;
    size_t runs_ = 0, loaded_ = 0;
};

// ---- the passes -------------------------------------------------------------------------------------

// Every length up to 4 KB, then a stride over the rest (within the budget), then the last 64.
std::vector<size_t> cut_lengths(size_t size) {
    std::vector<size_t> out;
    for (size_t n = 0; n < std::min(size, every_length_up_to); ++n) out.push_back(n);
    if (size <= every_length_up_to) return out;
    const size_t tail = std::max(every_length_up_to, size - std::min<size_t>(size, 64));
    const size_t strided = reads_for(size / 2, tail - every_length_up_to, 32);
    const size_t stride = std::max<size_t>(1, (tail - every_length_up_to) / std::max<size_t>(1, strided));
    for (size_t n = every_length_up_to; n < tail; n += stride) out.push_back(n);
    for (size_t n = tail; n < size; ++n) out.push_back(n);
    return out;
}

void truncate_seed(const FormatInfo& f, const Seed& seed, bool must_load_whole) {
    const auto start = std::chrono::steady_clock::now();
    Runner run(f, seed);
    const size_t size = seed.bytes.size();
    // The whole file first: its scene also goes through validate and the writers.
    if (!run.check(seed.bytes, seed.name + " whole")) return;
    if (must_load_whole) ASSERT_EQ(run.loaded(), 1u) << seed.name << " does not load whole";
    else if (run.loaded() == 0) std::cout << "[ note ] " << seed.name << " does not load whole\n";
    for (size_t n : cut_lengths(size)) {
        if (!run.check(std::span(seed.bytes.data(), n), seed.name + " cut at " + std::to_string(n), n)) return;
    }
    run.note("truncated", start);
}

void mutate_seed(const FormatInfo& f, const Seed& seed) {
    const auto start = std::chrono::steady_clock::now();
    Runner run(f, seed);
    const FormatMutator own = format_mutator(f);
    const size_t count = reads_for(seed.bytes.size(), max_mutants, 24);
    // A large text file is mutated in its first 64 KB (cut at a line end), where the header and
    // declarations are, so each read is short; one in ten mutants edits the whole file.
    std::vector<uint8_t> head = seed.bytes;
    if (run.text() && head.size() > 64 * 1024) {
        size_t cut = 64 * 1024;
        while (cut < head.size() && head[cut - 1] != '\n') ++cut;
        head.resize(cut);
    }
    const size_t head_count = head.size() < seed.bytes.size() ? std::min<size_t>(max_mutants, bytes_per_pass / head.size()) : 0;
    std::mt19937 rng(0x5EED0000u ^ uint32_t(seed.bytes.size()));
    for (size_t i = 0; i < count + head_count; ++i) {
        std::vector<uint8_t> m = i < head_count && rng() % 10 != 0 ? head : seed.bytes;
        if (!(own && rng() % 2 && own(seed, m, rng))) {
            if (run.text()) mutate_text(m, rng);
            else mutate_binary(m, rng);
        }
        if (!run.check(m, seed.name + " mutation " + std::to_string(i))) return;
    }
    run.note("mutated", start);
}

// Each leading 4-byte word (binary) or number (text), then a stride of later ones, set in turn to
// each hostile count: 0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, size-1, size,
// size+1 / -1, 2^31, 2^32, 1e999, nan ...
void hostile_counts(const FormatInfo& f, const Seed& seed) {
    const auto start = std::chrono::steady_clock::now();
    Runner run(f, seed);
    const size_t size = seed.bytes.size();
    if (run.text()) {
        const auto spans = number_spans(seed.bytes);
        const auto& values = hostile_numbers();
        const size_t places = reads_for(size, spans.size() * values.size(), 8 * values.size()) / values.size();
        const size_t lead = std::min<size_t>(places / 2, spans.size());
        const size_t stride = std::max<size_t>(1, (spans.size() - lead) / std::max<size_t>(1, places - lead));
        for (size_t s = 0; s < spans.size(); s += s < lead ? 1 : stride) {
            for (const std::string& v : values) {
                std::vector<uint8_t> m(seed.bytes.begin(), seed.bytes.begin() + long(spans[s].first));
                m.insert(m.end(), v.begin(), v.end());
                m.insert(m.end(), seed.bytes.begin() + long(spans[s].second), seed.bytes.end());
                if (!run.check(m, seed.name + " number " + std::to_string(s) + " = " + v)) return;
            }
        }
    } else {
        const std::vector<uint32_t> values = hostile_words(uint32_t(size));
        const size_t words = size / 4;
        const size_t places = reads_for(size, words * values.size(), 8 * values.size()) / values.size();
        const size_t lead = std::min<size_t>(std::max<size_t>(places / 2, 8), words);
        const size_t stride = std::max<size_t>(1, (words - lead) / std::max<size_t>(1, places - std::min(places, lead)));
        std::vector<uint8_t> m = seed.bytes;
        for (size_t w = 0; w < words; w += w < lead ? 1 : stride) {
            for (uint32_t v : values) {
                set_word(m, 4 * w, v);
                if (!run.check(m, seed.name + " word at " + std::to_string(4 * w) + " = " + std::to_string(v))) return;
            }
            set_word(m, 4 * w, word_at(seed.bytes, 4 * w));
        }
    }
    run.note("hostile counts", start);
}

// ---- the tests, one set per registered reader --------------------------------------------------------

std::vector<std::string> reader_names() {
    std::vector<std::string> out;
    for (const FormatInfo& f : formats())
        if (f.read) out.emplace_back(f.name);
    return out;
}

class Robustness : public ::testing::TestWithParam<std::string> {
protected:
    const FormatInfo& format() const { return *find_format(GetParam()); }

    // rigport's own seeds; a reader with none fails, so a new format cannot go untested.
    std::vector<Seed> own() const {
        auto seeds = own_seeds(format());
        if (seeds.empty() && !seedless_reason(format()))
            ADD_FAILURE() << format().name << " has a reader but no seed: give it a writer or a fixture in robustness_harness.hpp";
        return seeds;
    }
    // The corpus files with the format's extensions; skips with a message when the corpus is absent.
    std::vector<Seed> corpus() const { return corpus_seeds(format(), corpus_dir()); }
};

#define RIGPORT_CORPUS_SEEDS(seeds)                                                                          \
    if (const char* why = seedless_reason(format())) GTEST_SKIP() << why;                                    \
    RIGPORT_REQUIRE_CORPUS();                                                                                \
    const auto seeds = corpus();                                                                             \
    if (seeds.empty()) GTEST_SKIP() << "no corpus file has an extension of " << format().name;

TEST_P(Robustness, OwnSeedsTruncatedAtEveryLength) {
    if (const char* why = seedless_reason(format())) GTEST_SKIP() << why;
    for (const Seed& seed : own()) {
        truncate_seed(format(), seed, true);
        if (HasFailure()) return;
    }
}

TEST_P(Robustness, OwnSeedsMutated) {
    if (const char* why = seedless_reason(format())) GTEST_SKIP() << why;
    for (const Seed& seed : own()) {
        mutate_seed(format(), seed);
        if (HasFailure()) return;
    }
}

TEST_P(Robustness, OwnSeedsWithHostileCounts) {
    if (const char* why = seedless_reason(format())) GTEST_SKIP() << why;
    for (const Seed& seed : own()) {
        hostile_counts(format(), seed);
        if (HasFailure()) return;
    }
}

TEST_P(Robustness, CorpusTruncated) {
    RIGPORT_CORPUS_SEEDS(seeds);
    for (const Seed& seed : seeds) {
        truncate_seed(format(), seed, false);
        if (HasFailure()) return;
    }
}

TEST_P(Robustness, CorpusMutated) {
    RIGPORT_CORPUS_SEEDS(seeds);
    for (const Seed& seed : seeds) {
        mutate_seed(format(), seed);
        if (HasFailure()) return;
    }
}

TEST_P(Robustness, CorpusWithHostileCounts) {
    RIGPORT_CORPUS_SEEDS(seeds);
    for (const Seed& seed : seeds) {
        hostile_counts(format(), seed);
        if (HasFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, Robustness, ::testing::ValuesIn(reader_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

// ---- a Cal3D character: the .cfg read from disk with its members -----------------------------------

// The registry's "cal3d" row reads nothing from bytes: a .cfg is the list of its members, read by
// load_cal3d_character. Its text, truncated and mutated, must give a character or an Error.
TEST(Cal3dCharacterRobustness, CfgTruncatedAndMutated) {
    const fs::path dir = temp_dir();
    const std::string cfg = (dir / "sample.cfg").string();
    Scene scene = make_sample_scene();  // less the animations Cal3D cannot hold (no joint keys)
    std::erase_if(scene.animations, [](const Animation& a) {
        return std::none_of(a.tracks.begin(), a.tracks.end(), [](const JointTrack& t) { return t.channel != Channel::Scale; });
    });
    SaveOptions o;
    o.cal3d.binary = true;
    ASSERT_TRUE(save(scene, cfg, o));
    const std::vector<uint8_t> original = read_bytes(cfg);
    std::mt19937 rng(0xCF6u);
    auto check = [&](const std::vector<uint8_t>& text, const std::string& what) {
        write_bytes(cfg, text);
        auto character = load_cal3d_character({cfg});
        if (!character) {
            EXPECT_FALSE(character.error().message.empty()) << what;
            EXPECT_FALSE(character.error().path.empty()) << what << ": " << character.error().to_string();
            EXPECT_EQ(character.error().message.find("unexpected error while"), std::string::npos) << what << ": " << character.error().message;
        } else {
            auto st = check_invariants(*character);
            EXPECT_TRUE(st) << what << ": " << (st ? "" : st.error().to_string());
        }
        if (HasFailure()) ADD_FAILURE() << what << ": the .cfg was:\n" << std::string(text.begin(), text.end());
        return !HasFailure();
    };
    ASSERT_TRUE(check(original, "whole"));
    for (size_t n = 0; n < original.size(); ++n)
        if (!check(std::vector<uint8_t>(original.begin(), original.begin() + long(n)), "cut at " + std::to_string(n))) return;
    for (int i = 0; i < 300; ++i) {
        std::vector<uint8_t> m = original;
        mutate_text(m, rng);
        if (!check(m, "mutation " + std::to_string(i))) return;
    }
}

// ---- container lengths patched: the reader must find the damage inside ------------------------------

// IQM: with the header's filesize patched to the cut length, the cut no longer fails on the size
// check alone, so the reader meets each damaged section itself.
TEST(IqmRobustness, TruncatedWithFilesizePatched) {
    const FormatInfo& f = *find_format("iqm");
    auto seeds = own_seeds(f);
    for (auto& s : corpus_seeds(f, corpus_dir())) seeds.push_back(std::move(s));
    for (const Seed& seed : seeds) {
        Runner run(f, seed);
        std::vector<uint8_t> patched = seed.bytes;
        const size_t size = seed.bytes.size();
        const size_t stride = size <= 4 * every_length_up_to ? 1 : size / 2000;
        for (size_t n = 24; n < size; n += n < every_length_up_to ? 1 : stride) {
            set_word(patched, 20, uint32_t(n));  // filesize
            if (!run.check(std::span(patched.data(), n), seed.name + " cut at " + std::to_string(n) + " with filesize patched")) return;
        }
    }
}

// GLB: the header length and the last chunk's length patched to the cut.
TEST(GltfReadRobustness, GlbTruncatedWithLengthsPatched) {
    const FormatInfo& f = *find_format("gltf");
    std::vector<Seed> seeds;
    for (auto& s : own_seeds(*find_format("glb"))) seeds.push_back(std::move(s));
    for (auto& s : corpus_seeds(f, corpus_dir()))
        if (Glb::split(s.bytes)) seeds.push_back(std::move(s));
    ASSERT_FALSE(seeds.empty());
    for (const Seed& seed : seeds) {
        Runner run(f, seed);
        const size_t size = seed.bytes.size();
        const uint32_t json_length = word_at(seed.bytes, 12);
        const size_t stride = size <= every_length_up_to ? 1 : (size - every_length_up_to) / 400 + 1;
        for (size_t n = 20; n < size; n += n < every_length_up_to ? 1 : stride) {
            std::vector<uint8_t> patched = seed.bytes;
            set_word(patched, 8, uint32_t(n));
            if (n < 20 + size_t(json_length)) {
                set_word(patched, 12, uint32_t(n - 20));
            } else if (n >= 28 + size_t(json_length)) {
                set_word(patched, 20 + json_length, uint32_t(n - 28 - json_length));
            }
            if (!run.check(std::span(patched.data(), n), seed.name + " cut at " + std::to_string(n) + " with lengths patched")) return;
        }
    }
}

}  // namespace
}  // namespace rigport::test

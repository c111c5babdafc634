// Allocation failure at every step (as ufbx's test runner does): the global operator new (every
// overload) is replaced so that its Nth call while armed fails (std::bad_alloc; nullptr for the
// nothrow forms). Each reader family loads a small fixture of ours, and each writer writes the
// sample, with N = 1, 2, 3 ... until the call no longer reaches an Nth allocation; every failed
// run must return an Error (never throw, never abort), every other run a value. Under the ASan
// build LeakSanitizer checks at exit that no failed run leaked. Its own executable: replacing
// operator new would disturb every other test.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <string>

#include "formats/iqe/iqe.hpp"
#include "pipeline/robustness_harness.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/sample.hpp"
#include "rigport/validate.hpp"

// ---- the hook ---------------------------------------------------------------------------------------

namespace {

std::atomic<bool> armed{false};
std::atomic<uint64_t> allocations{0};  // counted while armed
std::atomic<uint64_t> fail_at{0};      // 0 = never
std::atomic<bool> failed{false};       // the Nth allocation was reached and refused
std::atomic<bool> failed_nothrow{false};  // ... and it was a nothrow one: nullptr, which the caller may survive

// The case under way, for the SIGABRT handler (an exception that escaped into std::terminate).
char current_case[256] = "";

void* allocate(std::size_t size, std::size_t align, bool nothrow) {
    if (armed.load(std::memory_order_relaxed)) {
        const uint64_t n = allocations.fetch_add(1, std::memory_order_relaxed) + 1;
        if (n == fail_at.load(std::memory_order_relaxed)) {
            failed.store(true, std::memory_order_relaxed);
            failed_nothrow.store(nothrow, std::memory_order_relaxed);
            if (nothrow) return nullptr;
            throw std::bad_alloc();
        }
    }
    if (size == 0) size = 1;
    void* p = nullptr;
    if (align <= alignof(std::max_align_t)) {
        p = std::malloc(size);
    } else if (posix_memalign(&p, align, size) != 0) {
        p = nullptr;
    }
    if (!p && !nothrow) throw std::bad_alloc();
    return p;
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n, 0, false); }
void* operator new[](std::size_t n) { return allocate(n, 0, false); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, std::size_t(a), false); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, std::size_t(a), false); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate(n, std::size_t(a), true); }
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate(n, std::size_t(a), true); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using robustness::Seed;

// Runs f with the hook armed to fail allocation number n (0: count only).
template <class F>
auto with_failure_at(uint64_t n, F&& f) {
    struct Disarm {
        ~Disarm() { armed.store(false); }
    } disarm;
    allocations.store(0);
    failed.store(false);
    failed_nothrow.store(false);
    fail_at.store(n);
    armed.store(true);
    return f();
}

// What a call gave: a value, or an Error with its message and path.
struct Outcome {
    bool value = false;
    std::string error;  // Error::to_string()
    std::string message, path;
};

template <class T>
Outcome outcome(const Expected<T>& r) {
    Outcome o;
    o.value = r.has_value();
    if (!o.value) o.error = r.error().to_string(), o.message = r.error().message, o.path = r.error().path;
    return o;
}

// A call under test: runs the API with_failure_at(n) and says what it gave.
using Call = std::function<Outcome(uint64_t n)>;

// Fails allocation 1, 2, 3 ... of the call (every one up to 1500, then a stride to about 3000
// runs in all) and checks each run; a failed run's error names a path that starts with
// expected_path (a member of a character names its own file).
void fail_every_allocation(const std::string& name, const Call& call, const std::string& expected_path) {
    std::snprintf(current_case, sizeof current_case, "%s (counting)", name.c_str());
    (void)call(0);  // warm up: statics the library builds once
    const Outcome whole = call(0);
    const uint64_t total = allocations.load();
    ASSERT_TRUE(whole.value) << name << ": fails without any allocation failing: " << whole.error;
    ASSERT_GT(total, 0u) << name;
    const uint64_t every_up_to = 1500;
    const uint64_t stride = total <= 3000 ? 1 : (total - every_up_to) / 1500 + 1;
    uint64_t runs = 0;
    for (uint64_t n = 1; n <= total + 1; n += n < every_up_to ? 1 : stride) {
        std::snprintf(current_case, sizeof current_case, "%s with allocation %llu of %llu failing", name.c_str(),
                      static_cast<unsigned long long>(n), static_cast<unsigned long long>(total));
        const Outcome o = call(n);
        ++runs;
        if (failed_nothrow.load()) {
            // A nothrow allocation answered nullptr (std::stable_sort's buffer): the caller may
            // do without it (a value) or give up (an Error), never crash.
            if (!o.value) {
                EXPECT_FALSE(o.message.empty()) << name << ": allocation " << n;
            }
        } else if (!failed.load()) {
            EXPECT_TRUE(o.value) << name << ": allocation " << n << " not reached, yet an error: " << o.error;
        } else {
            EXPECT_FALSE(o.value) << name << ": allocation " << n << " failed, yet a value came back (the failure was swallowed)";
            if (!o.value) {
                EXPECT_FALSE(o.message.empty()) << name << ": allocation " << n;
                EXPECT_EQ(o.path.rfind(expected_path, 0), 0u) << name << ": allocation " << n << ": the error names no "
                                                                << expected_path << "...: " << o.error;
            }
        }
        if (::testing::Test::HasFailure()) return;
    }
    std::cout << "[ note ] " << name << ": " << total << " allocations, " << runs << " runs each failing one\n";
}

extern "C" void on_abort(int) {
    static const char what[] = "\nrigport_alloc_tests: aborted during: ";
    (void)!write(2, what, sizeof what - 1);
    (void)!write(2, current_case, std::strlen(current_case));
    (void)!write(2, "\n", 1);
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

class AllocationFailure : public ::testing::Test {
protected:
    static void SetUpTestSuite() { signal(SIGABRT, on_abort); }
};

fs::path scratch_root() { return fs::temp_directory_path() / ("rigport-alloc-" + std::to_string(getpid())); }

// This process's scratch folder goes when the process ends (ctest runs every test in its own).
struct ScratchCleanup {
    ~ScratchCleanup() {
        std::error_code ec;
        fs::remove_all(scratch_root(), ec);
    }
} scratch_cleanup;

fs::path scratch(const std::string& name) {
    const fs::path p = scratch_root() / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// The sample's animations without translation or rotation keys are more than Cal3D can hold.
Scene without_scale_only_animations(Scene scene) {
    std::erase_if(scene.animations, [](const Animation& a) {
        return std::none_of(a.tracks.begin(), a.tracks.end(), [](const JointTrack& t) { return t.channel != Channel::Scale; });
    });
    return scene;
}

// ---- readers: every registered format's own seeds, through the front door -----------------------

class ReaderAllocationFailure : public AllocationFailure, public ::testing::WithParamInterface<std::string> {};

TEST_P(ReaderAllocationFailure, EveryFailedAllocationIsAnError) {
    const FormatInfo& f = *find_format(GetParam());
    const auto seeds = robustness::own_seeds(f);
    if (seeds.empty()) GTEST_SKIP() << f.name << ": no seed of our own (see robustness_harness.hpp)";
    // The smallest seed: the cost grows with the square of its allocations.
    const Seed* seed = &seeds.front();
    for (const Seed& s : seeds)
        if (s.bytes.size() < seed->bytes.size()) seed = &s;
    LoadOptions options;
    options.format = std::string(f.name);
    fail_every_allocation(std::string(f.name) + " " + seed->name, [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return load_bytes(seed->bytes, seed->name, options); }));
    }, seed->name);
}

std::vector<std::string> reader_names() {
    std::vector<std::string> out;
    for (const FormatInfo& f : formats())
        if (f.read) out.emplace_back(f.name);
    return out;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Registry, ReaderAllocationFailure, ::testing::ValuesIn(reader_names()), param_name);

// ---- writers: the sample through every registered writer, in memory ---------------------------

class WriterAllocationFailure : public AllocationFailure, public ::testing::WithParamInterface<std::string> {};

TEST_P(WriterAllocationFailure, EveryFailedAllocationIsAnError) {
    const FormatInfo& f = *find_format(GetParam());
    SaveOptions options;
    options.format = std::string(f.name);
    const std::string path = robustness::file_name(f, "out");
    // The first scene the writer takes whole: the sample, the sample with morphs (.cpf/.xpf hold
    // only those), the sample without the animations a Cal3D character cannot hold.
    Scene scene;
    for (Scene candidate : {make_sample_scene(), robustness::make_morph_scene(), without_scale_only_animations(make_sample_scene())}) {
        if (save_output(candidate, path, options)) {
            scene = std::move(candidate);
            break;
        }
    }
    fail_every_allocation(std::string(f.name) + " writer", [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return save_output(scene, path, options); }));
    }, path);
}

std::vector<std::string> writer_names() {
    std::vector<std::string> out;
    for (const FormatInfo& f : formats())
        if (f.write) out.emplace_back(f.name);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, WriterAllocationFailure, ::testing::ValuesIn(writer_names()), param_name);

// ---- the other entry points: files, characters, packs, validation, the compiler ----------------

TEST_F(AllocationFailure, LoadFromAFile) {
    const fs::path dir = scratch("load");
    auto bytes = save_bytes(make_sample_scene(), "sample.iqm");
    ASSERT_TRUE(bytes);
    const std::string path = (dir / "sample.iqm").string();
    write_file(path, *bytes);
    fail_every_allocation("load(sample.iqm)", [&](uint64_t n) { return outcome(with_failure_at(n, [&] { return load(path); })); }, path);
}

TEST_F(AllocationFailure, Cal3dCharacter) {
    const fs::path dir = scratch("cal3d");
    const std::string cfg = (dir / "sample.cfg").string();
    SaveOptions o;
    o.cal3d.binary = true;
    auto st = save(without_scale_only_animations(make_sample_scene()), cfg, o);
    ASSERT_TRUE(st) << st.error().to_string();
    const std::vector<std::string> paths = {cfg};  // built before arming: the test's own allocations must not fail
    fail_every_allocation("load_cal3d_character(sample.cfg)", [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return load_cal3d_character(paths); }));
    }, dir.string());
}

TEST_F(AllocationFailure, JpkPack) {
    std::vector<JpkMember> members = {{"a.joe", robustness::joe_quad(1)}, {"list.txt", {'h', 'i', '\n'}}};
    auto pack = write_jpk(members);
    ASSERT_TRUE(pack);
    fail_every_allocation("parse_jpk", [&](uint64_t n) { return outcome(with_failure_at(n, [&] { return parse_jpk(*pack); })); }, "");
    fail_every_allocation("write_jpk", [&](uint64_t n) { return outcome(with_failure_at(n, [&] { return write_jpk(members); })); }, "");
    fail_every_allocation("inspect_joe", [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return inspect_joe(members.front().bytes); }));
    }, "");
}

TEST_F(AllocationFailure, ValidateBytes) {
    auto bytes = save_bytes(make_sample_scene(), "sample.iqm");
    ASSERT_TRUE(bytes);
    fail_every_allocation("validate_bytes(sample.iqm)", [&](uint64_t n) {
        const ValidationReport r = with_failure_at(n, [&] { return validate_bytes(*bytes, "sample.iqm"); });
        Outcome o;
        o.value = r.count(Severity::Error) == 0;
        for (auto& f : r.findings)
            if (f.severity == Severity::Error && o.message.empty()) o.error = o.message = f.message;
        o.path = r.path;
        return o;
    }, "sample.iqm");
}

TEST_F(AllocationFailure, CompileIqe) {
    const fs::path dir = scratch("compile");
    auto bytes = save_bytes(make_sample_scene(), "sample.iqe");
    ASSERT_TRUE(bytes);
    const std::string path = (dir / "sample.iqe").string();
    write_file(path, *bytes);
    CompileOptions options;
    std::vector<CompileInput> inputs(1);
    inputs[0].paths = {path};
    fail_every_allocation("compile(sample.iqe)", [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return compile(inputs, options); }));
    }, path);
}

// The IQE reader's parallel chunks (iqe_parse_chunks.cpp), with chunks of 64 bytes on 2 threads:
// a failure in a chunk's parse (on either thread) or in the join is an Error like any other.
TEST_F(AllocationFailure, IqeParallelChunks) {
    auto bytes = save_bytes(make_sample_scene(), "sample.iqe");
    ASSERT_TRUE(bytes);
    struct ChunkBytes {
        ChunkBytes() { iqe::set_chunk_bytes_for_testing(64); }
        ~ChunkBytes() { iqe::set_chunk_bytes_for_testing(0); }
    } chunks;
    LoadOptions options;
    options.format = "iqe";
    options.threads = 2;
    fail_every_allocation("load_bytes(sample.iqe) in chunks", [&](uint64_t n) {
        return outcome(with_failure_at(n, [&] { return load_bytes(*bytes, "sample.iqe", options); }));
    }, "sample.iqe");
}

}  // namespace
}  // namespace rigport::test

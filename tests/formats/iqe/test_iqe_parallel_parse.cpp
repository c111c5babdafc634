// IQE parse in parallel chunks (iqe_parse_chunks.cpp): with chunks of a few bytes to a few KiB, a
// generated model that uses every command parses to the same Document (scene, smoothing, warnings)
// and compiles to the same IQM bytes as the serial parse; errors anywhere (late chunks, deferred
// range checks, limits) are the serial parse's, same message, line and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "formats/iqe/iqe.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

// Restores the default chunk size however the test ends.
struct ChunkBytes {
    explicit ChunkBytes(size_t bytes) { iqe::set_chunk_bytes_for_testing(bytes); }
    ~ChunkBytes() { iqe::set_chunk_bytes_for_testing(0); }
};

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// Every command of the format: joints with pq/pm/pa bind poses, vertexarray declarations, three
// meshes (one repeated, one material change after faces), every vertex command (vx in both forms,
// v0/v1 custom values, vs), fm / fa / fs faces with polygons and negative indices, smoothing
// commands, comments, blank and indented lines, an unknown command, lines that warn, two
// animations with framerate / loop / frame, and a trailing comment.
std::string every_command(int grid) {
    std::string out = "# Inter-Quake Export\n# generated for the parallel parse test\n";
    out += "joint \"root\" -1\njoint \"arm\" 0\njoint hand 1\n";
    out += "pq 0 0 0 0 0 0 1\npm 1 0 0  1 0 0  0 1 0  0 0 1\npa 0 1 0 0.1 0.2 0.3 1 1 1\n";
    out += "vertexarray custom0 ubyte 2 \"tags\"\nvertexarray custom1 float 3\nvertexarray color ubyte 4\nfrobnicate 1 2\n";
    const int n = grid + 1;
    auto vertices = [&](int mesh, bool custom) {
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int i = y * n + x;
                out += fmt::format("vp {} {} {:.4f}\n", x + mesh * 100, y, 0.01 * ((i * 7) % 13));
                out += fmt::format("   vt {} {}\n", double(x) / grid, double(y) / grid);
                if (mesh != 1) out += fmt::format("vn 0 {:.3f} 1\n", 0.001 * (i % 17));
                if (i % 2) out += fmt::format("vx 1 0 0 {}\n", i % 4 == 1 ? 1 : -1);
                else out += fmt::format("vx 1 0 0 0 {} 0\n", i % 4 == 0 ? 1 : -1);
                if (i % 3 == 0) out += fmt::format("vc 0.5 0.25 {} 1\n", (i % 5) / 4.0);
                out += fmt::format("vb {} 0.75 {} 0.25\n", i % 3, (i + 1) % 3);
                if (custom) out += fmt::format("v0 {} {}\nv1 {} 0.5 -1\nvs {}\n", i % 200, (i * 3) % 200, i * 0.25, i % 4);
                if (i % 97 == 5) out += "vt 0 0\n";  // a second vt: warns (the chunk leaves it to the serial pass)
                if (i % 61 == 7) out += "\n# a comment among the vertices\n";
            }
    };
    auto faces = [&](const char* cmd, int base) {
        for (int y = 0; y < grid; ++y)
            for (int x = 0; x < grid; ++x) {
                const int a = base + y * n + x, b = a + 1, c = a + n, d = c + 1;
                if ((x + y) % 5 == 0) out += fmt::format("{} {} {} {} {}\nfs 1 0 1 1\n", cmd, a, c, d, b);  // a quad
                else out += fmt::format("{} {} {} {}\n{} {} {} {}\n", cmd, a, c, b, cmd, b, c, d);
            }
    };
    out += "mesh \"body\"\nmaterial \"skin.png\"\nsmoothgroup 2\nsmoothangle 60\nsmoothuv 1\n";
    vertices(0, false);
    faces("fm", 0);
    out += "fm -1 -2 -3\nfm 0 -5 -4 -7\n";  // negative indices: from the last vertex read
    out += "material \"cloth.png\"\nsmoothgroup -1\nsmoothangle 180\nsmoothuv 0\n";
    faces("fm", 0);
    out += "mesh \"arm\"\nmaterial \"metal.png\"\n";
    vertices(1, true);
    faces("fm", 0);
    out += "fm 0 1\n";  // fewer than 3 indices: warns
    out += "mesh \"body\"\nmaterial \"skin.png\"\n";  // a repeated block: merged, warns
    vertices(2, false);
    faces("fa", 2 * n * n);
    out += "fa 0 1 2\n";  // a face of the first block's vertices
    out += "animation \"walk\"\nframerate 24\nloop\n";
    for (int f = 0; f < 30; ++f) {
        out += fmt::format("frame {}\n", f);
        out += fmt::format("pq 0 0 {} 0 0 0 1\n", 0.1 * f);
        out += fmt::format("pm 1 0 0  1 0 0  0 {:.4f} {:.4f}  0 {:.4f} {:.4f}\n", std::cos(0.1 * f), -std::sin(0.1 * f), std::sin(0.1 * f), std::cos(0.1 * f));
        out += fmt::format("pa 0 1 0 {} 0 0\n", 0.05 * f);
        if (f == 17) out += "pq 0 0 0 0 0 0 2\n";  // not unit length: warns
    }
    out += "animation idle\nframe\nframe\npq 0 0 0\npq 0 0 0\npq 0 0 0\n";
    out += "comment\nfree text after the comment\nvp not parsed\n";
    return out;
}

void expect_same_error(const Error& a, const Error& b, const std::string& what) {
    EXPECT_EQ(a.code, b.code) << what;
    EXPECT_EQ(a.message, b.message) << what;
    EXPECT_EQ(a.line, b.line) << what;
    EXPECT_EQ(a.column, b.column) << what;
    EXPECT_EQ(a.offset, b.offset) << what;
}

void expect_same(const Expected<iqe::Document>& a, const Expected<iqe::Document>& b, const std::string& what) {
    ASSERT_EQ(bool(a), bool(b)) << what << ": " << (a ? b.error().to_string() : a.error().to_string());
    if (!a) return expect_same_error(a.error(), b.error(), what);
    const auto& wa = a->scene.warnings.items;
    const auto& wb = b->scene.warnings.items;
    ASSERT_EQ(wa.size(), wb.size()) << what;
    for (size_t i = 0; i < wa.size(); ++i) {
        EXPECT_EQ(wa[i].code, wb[i].code) << what << " warning " << i;
        EXPECT_EQ(wa[i].message, wb[i].message) << what << " warning " << i;
        EXPECT_EQ(wa[i].count, wb[i].count) << what << " warning " << i;
        EXPECT_EQ(wa[i].offset, wb[i].offset) << what << " warning " << i;
    }
    EXPECT_EQ(a->has_normals, b->has_normals) << what;
    EXPECT_EQ(a->has_tangents, b->has_tangents) << what;
    EXPECT_EQ(a->scene.meta.comment, b->scene.meta.comment) << what;
    ASSERT_EQ(a->smoothing.size(), b->smoothing.size()) << what;
    for (size_t m = 0; m < a->smoothing.size(); ++m) {
        const auto &sa = a->smoothing[m], &sb = b->smoothing[m];
        EXPECT_EQ(sa.vertex_index, sb.vertex_index) << what;
        ASSERT_EQ(sa.triangles.size(), sb.triangles.size()) << what;
        for (size_t t = 0; t < sa.triangles.size(); ++t) {
            const auto &x = sa.triangles[t], &y = sb.triangles[t];
            ASSERT_TRUE(x.group == y.group && x.smooth_uv == y.smooth_uv && x.angle_degrees == y.angle_degrees &&
                        x.has_edge_flags == y.has_edge_flags && x.smooth_edge == y.smooth_edge)
                << what << " mesh " << m << " triangle " << t;
        }
    }
    ASSERT_EQ(a->scene.meshes.size(), b->scene.meshes.size()) << what;
    for (size_t m = 0; m < a->scene.meshes.size(); ++m) {
        EXPECT_EQ(a->scene.meshes[m].triangles, b->scene.meshes[m].triangles) << what;
        EXPECT_EQ(a->scene.meshes[m].positions, b->scene.meshes[m].positions) << what;
    }
    // Everything else the scene holds, as IQE text (every vertex stream, skin, custom arrays,
    // materials, joints, animations).
    auto ta = iqe::write(a->scene, SaveOptions{}), tb = iqe::write(b->scene, SaveOptions{});
    ASSERT_TRUE(ta && tb) << what;
    EXPECT_TRUE(*ta == *tb) << what;
}

Expected<iqe::Document> parse(const std::string& text, uint32_t threads, uint64_t max_elements = LoadOptions{}.max_elements) {
    LoadOptions options;
    options.threads = threads;
    options.max_elements = max_elements;
    return iqe::parse(bytes_of(text), options);
}

const size_t chunk_sizes[] = {16, 100, 333, 4096};

TEST(IqeParallelParse, SameDocumentAsTheSerialParse) {
    const std::string text = every_command(12);
    ASSERT_GT(text.size(), 20000u);
    const auto serial = parse(text, 1);
    ASSERT_TRUE(serial) << serial.error().to_string();
    ASSERT_EQ(serial->scene.meshes.size(), 3u);  // the repeated block is merged
    EXPECT_EQ(serial->scene.animations.size(), 2u);
    EXPECT_FALSE(serial->scene.meta.comment.empty());
    EXPECT_GE(serial->scene.warnings.items.size(), 5u);
    for (size_t bytes : chunk_sizes) {
        ChunkBytes chunks(bytes);
        for (uint32_t threads : {2u, 0u, 5u}) expect_same(serial, parse(text, threads), fmt::format("chunks of {} B, {} threads", bytes, threads));
        expect_same(serial, parse(text, 1), fmt::format("chunks of {} B, 1 thread", bytes));
    }
    // CRLF line breaks: chunks still start at line starts.
    std::string crlf;
    for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
    const auto crlf_serial = parse(crlf, 1);
    ASSERT_TRUE(crlf_serial) << crlf_serial.error().to_string();
    for (size_t bytes : chunk_sizes) {
        ChunkBytes chunks(bytes);
        expect_same(crlf_serial, parse(crlf, 2), fmt::format("CRLF, chunks of {} B", bytes));
    }
    // Without the lines that warn, the chunks read nearly everything themselves.
    std::string quiet = text;
    for (const char* line : {"vt 0 0\n", "fm 0 1\n", "pq 0 0 0 0 0 0 2\n"})
        for (size_t p; (p = quiet.find(line)) != std::string::npos;) quiet.erase(p, std::string_view(line).size());
    const auto quiet_serial = parse(quiet, 1);
    ASSERT_TRUE(quiet_serial) << quiet_serial.error().to_string();
    for (size_t bytes : chunk_sizes) {
        ChunkBytes chunks(bytes);
        expect_same(quiet_serial, parse(quiet, 2), fmt::format("quiet, chunks of {} B", bytes));
    }
}

// The 1-based line number of the line at `offset`.
uint32_t line_of(const std::string& text, size_t offset) { return uint32_t(std::count(text.begin(), text.begin() + offset, '\n') + 1); }

TEST(IqeParallelParse, ErrorsAreTheSerialParsesInEveryChunk) {
    const std::string text = every_command(10);
    struct Case {
        const char* find;     // the n-th line that starts with this ...
        int nth;
        const char* replace;  // ... becomes this
    };
    const Case cases[] = {
        {"vt ", 3, "vt 0.5 x"},                // early
        {"vb ", 300, "vb 1 0.5 2 nan"},        // late
        {"vp ", 320, "vp 1 2 1e400"},          // out of range, in the last mesh
        {"fm ", 150, "fm 0 1 900000"},         // beyond the vertices: found after the whole file
        {"fa ", 20, "fa 0 -99999 1"},          // before the first vertex
        {"vb ", 250, "vb 7 0.5"},              // joint beyond the skeleton: deferred
        {"pq ", 25, "pq 0 0 0 0 0 0 0"},       // zero quaternion, in the animation
        {"pm ", 10, "pm 0 0 0 0 0 0 0 0 0 0 0 0"},
        {"frame", 28, "joint \"late\" 9"},     // a parent that does not exist yet
        {"v1 ", 50, "v1 1 2 abc"},
        {"vs ", 60, "vs 1.5"},
    };
    for (const Case& c : cases) {
        std::string bad = text;
        size_t at = std::string::npos;
        for (int k = 0, from = 0; k < c.nth; ++k) {
            at = bad.find(std::string("\n") + c.find, size_t(from));
            ASSERT_NE(at, std::string::npos) << c.find << " " << c.nth;
            from = int(at + 1);
        }
        ++at;
        bad.replace(at, bad.find('\n', at) - at, c.replace);
        const auto serial = parse(bad, 1);
        ASSERT_FALSE(serial) << c.replace;
        for (size_t bytes : chunk_sizes) {
            ChunkBytes chunks(bytes);
            expect_same(serial, parse(bad, 2), fmt::format("'{}' with chunks of {} B", c.replace, bytes));
        }
        if (c.nth > 100) {
            EXPECT_EQ(serial.error().line, line_of(bad, at)) << c.replace;  // a late line, named
        }
    }
}

TEST(IqeParallelParse, LimitsAreTheSerialParses) {
    const std::string text = every_command(10);
    const auto full = parse(text, 1);
    ASSERT_TRUE(full);
    // Limits that fail at vertices, influences, triangles and poses of late chunks.
    for (uint64_t max : {30u, 200u, 250u, 363u, 400u, 700u, 800u}) {
        const auto serial = parse(text, 1, max);
        for (size_t bytes : chunk_sizes) {
            ChunkBytes chunks(bytes);
            expect_same(serial, parse(text, 2, max), fmt::format("max_elements {} with chunks of {} B", max, bytes));
        }
    }
}

// compile() passes CompileOptions::threads to the reader: the same IQM bytes either way.
TEST(IqeParallelParse, CompilesToTheSameIqm) {
    const auto path = (temp_dir() / "every.iqe").string();
    std::string text = every_command(14);
    text = text.substr(0, text.find("animation idle"));  // one animation for a clean compile
    std::ofstream(path, std::ios::binary) << text;
    auto compile_iqm = [&](uint32_t threads) {
        CompileOptions options = compiler_options(*find_format("iqm"));
        options.threads = threads;
        auto scene = compile({CompileInput{{path}, {}}}, options);
        EXPECT_TRUE(scene) << scene.error().to_string();
        if (!scene) return std::vector<uint8_t>{};
        auto bytes = save_bytes(*scene, "out.iqm", SaveOptions{});
        EXPECT_TRUE(bytes) << bytes.error().to_string();
        return bytes ? *bytes : std::vector<uint8_t>{};
    };
    const auto single = compile_iqm(1);
    ASSERT_GT(single.size(), 1000u);
    for (size_t bytes : chunk_sizes) {
        ChunkBytes chunks(bytes);
        EXPECT_EQ(compile_iqm(2), single) << bytes;
        EXPECT_EQ(compile_iqm(0), single) << bytes;
    }
}

}  // namespace
}  // namespace rigport::test

// A format added with one row and no other edit (docs/architecture.md "Adding a format: one folder
// + one row"): a toy text format defined here, registered with register_format, then found,
// detected, loaded, saved, converted and listed through the library's front door like a built-in
// one, which applies its shared rules to it (size limit, invariants, the path on warnings).
//
// The registration lasts for the process, and other tests count or walk the registry, so the
// checks run in a child process (a death test that exits 0 when every check held); a failed check
// is printed on the child's stderr, which the failure message shows.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "rigport/convert.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// The toy format: a first line "TOY 1", then "v X Y Z" (a vertex), "t A B C" (a triangle of
// vertex indices, not range-checked here: the front door checks the scene) and "w TEXT" (a
// warning the reader reports without a path). One mesh.
constexpr std::string_view toy_magic = "TOY 1\n";

bool toy_detect(std::span<const uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return text.starts_with(toy_magic);
}

Expected<Scene> toy_read(std::span<const uint8_t> bytes, const LoadOptions&) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!text.starts_with(toy_magic)) return make_error(ErrorCode::Malformed, "not a toy file");
    Scene scene;
    scene.meshes.emplace_back();
    Mesh& mesh = scene.meshes.back();
    mesh.name = "toy";
    size_t at = toy_magic.size();
    uint32_t line = 1;
    while (at < text.size()) {
        ++line;
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view l = text.substr(at, end - at);
        at = end + 1;
        if (l.empty()) continue;
        if (l.starts_with("w ")) {
            scene.warnings.add(WarningCode::Ignored, std::string(l.substr(2)));
            continue;
        }
        float f[3] = {};
        uint32_t u[3] = {};
        const char* p = l.data() + 1;
        const char* stop = l.data() + l.size();
        for (int k = 0; k < 3; ++k) {
            while (p < stop && *p == ' ') ++p;
            const auto r = l[0] == 'v' ? std::from_chars(p, stop, f[k]) : std::from_chars(p, stop, u[k]);
            if (r.ec != std::errc() || (l[0] != 'v' && l[0] != 't')) {
                Error e = make_error(ErrorCode::Malformed, "expected 'v X Y Z' or 't A B C'");
                e.line = line;
                return e;
            }
            p = r.ptr;
        }
        if (l[0] == 'v') mesh.positions.push_back({f[0], f[1], f[2]});
        else mesh.triangles.push_back({u[0], u[1], u[2]});
    }
    return scene;
}

int toy_writes = 0;  // how often the writer ran: a broken scene must never reach it

Expected<Output> toy_write(const Scene& scene, const std::string&, const SaveOptions&) {
    ++toy_writes;
    std::string text(toy_magic);
    uint32_t base = 0;
    for (auto& mesh : scene.meshes) {
        for (auto& v : mesh.positions) text += "v " + std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]) + "\n";
        for (auto& t : mesh.triangles)
            text += "t " + std::to_string(base + t[0]) + " " + std::to_string(base + t[1]) + " " + std::to_string(base + t[2]) + "\n";
        base += mesh.vertex_count();
    }
    // No warning about materials here: the row says the format holds none, and save_output says
    // what is lost from that.
    return Output{std::vector<uint8_t>(text.begin(), text.end()), {}, {}, {}, {}};
}

std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

#define TOY_CHECK(cond)                                                                      \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "toy check failed at line %d: %s\n", __LINE__, #cond);     \
            ++failures;                                                                      \
        }                                                                                    \
    } while (0)

// Every check; the number that failed.
int toy_checks(const fs::path& dir) {
    int failures = 0;
    const std::string triangle = "TOY 1\nv 0 0 0\nv 1 0 0\nv 0 1 0\nt 0 1 2\nw a note from the toy reader\n";

    // One row, registered once; a name that is taken (in any letter case) adds nothing.
    const size_t before = formats().size();
    TOY_CHECK(register_format(FormatInfo{.name = "toy", .description = "A toy text format (tests only)", .extensions = {".toy"},
                                         .detect = &toy_detect, .read = &toy_read, .write = &toy_write,
                                         .holds = {.meshes = true}}));
    TOY_CHECK(formats().size() == before + 1);
    TOY_CHECK(!register_format(FormatInfo{.name = "TOY"}));
    TOY_CHECK(!register_format(FormatInfo{.name = "IQM"}));
    TOY_CHECK(!register_format(FormatInfo{}));
    TOY_CHECK(formats().size() == before + 1);

    // Found by name, extension and content like a built-in row.
    const FormatInfo* toy = find_format("Toy");
    TOY_CHECK(toy && toy->name == "toy" && toy == &formats().back());
    TOY_CHECK(find_format_by_extension("dir/model.TOY") == toy);
    TOY_CHECK(detect_format(bytes_of(triangle), "no-extension") == toy);
    TOY_CHECK(detect_format(bytes_of("solid x\n"), "model.toy") == toy);  // by extension when no content matches

    // load(): the reader through the front door; its warning names the file.
    const fs::path file = dir / "model.toy";
    write_bytes(file, bytes_of(triangle));
    auto scene = load(file.string());
    TOY_CHECK(scene.has_value());
    if (!scene) return failures + 1;
    TOY_CHECK(scene->meshes.size() == 1 && scene->meshes[0].vertex_count() == 3 && scene->meshes[0].triangles.size() == 1);
    TOY_CHECK(scene->warnings.items.size() == 1 && scene->warnings.items[0].path == file.string());

    // The front door's rules hold for the new row without its reader doing anything.
    LoadOptions small;
    small.max_file_bytes = 8;
    auto too_big = load_bytes(bytes_of(triangle), "big.toy", small);
    TOY_CHECK(!too_big && too_big.error().code == ErrorCode::LimitExceeded && too_big.error().path == "big.toy");
    auto broken = load_bytes(bytes_of("TOY 1\nv 0 0 0\nt 0 0 7\n"), "broken.toy");
    TOY_CHECK(!broken && broken.error().path == "broken.toy" && broken.error().message.find('7') != std::string::npos);

    // save_output(): the writer by extension; the output names the format; what the row says the
    // format cannot hold is warned about, naming the output; a scene that does not hold together
    // never reaches the writer.
    Scene with_material = *scene;
    with_material.materials.emplace_back();
    with_material.materials[0].name = "skin";
    with_material.meshes[0].material = 0;
    auto out = save_output(with_material, (dir / "again.toy").string());
    TOY_CHECK(out.has_value());
    if (!out) return failures + 1;
    TOY_CHECK(out->format == "toy");
    const std::string written(out->bytes.begin(), out->bytes.end());
    TOY_CHECK(written.starts_with(toy_magic) && written.find("t 0 1 2\n") != std::string::npos);
    TOY_CHECK(out->warnings.items.size() == 1 && out->warnings.items[0].path == (dir / "again.toy").string());
    TOY_CHECK(out->warnings.items[0].message == "1 materials not written (toy holds none)");
    const int writes = toy_writes;
    Scene bad = *scene;
    bad.meshes[0].triangles[0][2] = 40;
    TOY_CHECK(!save_output(bad, (dir / "bad.toy").string()));
    TOY_CHECK(toy_writes == writes);

    // convert, as the CLI's convert and batch run it: toy -> glTF -> toy.
    ConvertOptions to_glb;
    auto glb_format = find_output_format((dir / "model.glb").string(), "");
    TOY_CHECK(glb_format.has_value());
    if (!glb_format) return failures + 1;
    to_glb.format = *glb_format;
    ConvertJob job{{CompileInput{{file.string()}, {}}}, (dir / "model.glb").string()};
    ConvertResult glb = run_conversion(job, to_glb);
    TOY_CHECK(glb.ok() && fs::is_regular_file(dir / "model.glb"));
    TOY_CHECK(glb.counts.triangles == 1);
    auto toy_out = find_output_format((dir / "back.toy").string(), "");
    TOY_CHECK(toy_out.has_value() && *toy_out == toy);
    if (!toy_out) return failures + 1;
    ConvertOptions to_toy;
    to_toy.format = *toy_out;
    ConvertResult back = run_conversion(ConvertJob{{CompileInput{{(dir / "model.glb").string()}, {}}}, (dir / "back.toy").string()}, to_toy);
    TOY_CHECK(back.ok() && back.written_format == "toy");
    auto reread = load((dir / "back.toy").string());
    TOY_CHECK(reread && reread->meshes.size() == 1 && reread->meshes[0].vertex_count() == 3 && reread->meshes[0].triangles.size() == 1);

    // The formats listing: the row is the last one, with what it declares.
    const std::string all = formats_json();
    const std::string json = all.substr(0, all.find("\"archives\": ["));  // the rows, before the archives
    const size_t at = json.rfind("\"name\": \"toy\"");
    TOY_CHECK(at != std::string::npos);
    TOY_CHECK(at != std::string::npos && json.find("\".toy\"", at) != std::string::npos);
    TOY_CHECK(at != std::string::npos && json.find("\"name\": \"", at + 1) == std::string::npos);
    return failures;
}

TEST(ToyFormat, OneRowIsEnough) {
    const fs::path dir = temp_dir();
    EXPECT_EXIT(std::_Exit(toy_checks(dir) == 0 ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

// Without the registration nothing knows the toy format (so the checks above test the row).
TEST(ToyFormat, UnknownWithoutItsRow) {
    EXPECT_EQ(find_format("toy"), nullptr);
    EXPECT_EQ(find_format_by_extension("model.toy"), nullptr);
    auto scene = load_bytes(bytes_of("TOY 1\nv 0 0 0\n"), "model.toy");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::UnknownFormat);
}

}  // namespace
}  // namespace rigport::test

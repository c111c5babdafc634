// The batch as a library (rigport/batch.hpp): the plan (models, skipped archives, claimed .cfg
// members, refused clashes), options named by their library names, the progress events, failure
// classes, the same bytes as `rigport batch`, the Ninja text; and the option words
// (rigport/options.hpp) both front ends read.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "rigport/batch.hpp"
#include "rigport/io.hpp"
#include "rigport/options.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

fs::path save_sample(const fs::path& path, Scene scene = make_sample_scene()) {
    fs::create_directories(path.parent_path());
    auto st = save(scene, path.string());
    EXPECT_TRUE(st) << st.error().to_string();
    return path;
}

std::map<std::string, std::vector<uint8_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::vector<uint8_t>> out;
    if (!fs::exists(dir)) return out;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out[fs::relative(e.path(), dir).generic_string()] = read_bytes(e.path());
    return out;
}

// in/a.iqm, in/sub/b.iqe, in/sub/b.iqm (same output as b.iqe), in/broken.iqm, in/p.jpk,
// in/char/c.cfg with its members.
fs::path make_tree(const fs::path& dir) {
    const fs::path in = dir / "in";
    save_sample(in / "a.iqm");
    save_sample(in / "sub/b.iqe");
    save_sample(in / "sub/b.iqm");
    auto bytes = read_bytes(in / "a.iqm");
    bytes.resize(200);
    write_bytes(in / "broken.iqm", bytes);
    write_bytes(in / "p.jpk", {0, 0});
    Scene character = make_sample_scene();
    character.animations.resize(1);  // "pulse" has no Cal3D form
    save_sample(in / "char/c.cfg", character);
    return in;
}

TEST(BatchLibrary, PlanNamesModelsSkipsArchivesClaimsMembersAndRefusesClashes) {
    const fs::path dir = files_dir();
    const fs::path in = make_tree(dir);
    BatchOptions o;
    o.inputs = {in.string()};
    o.out_dir = (dir / "out").string();
    o.format = "GLB";
    auto plan = plan_batch(o);
    ASSERT_TRUE(plan) << plan.error().to_string();
    ASSERT_NE(plan->format, nullptr);
    EXPECT_EQ(plan->format->name, "glb");
    std::vector<std::string> inputs;
    for (auto& j : plan->jobs) inputs.push_back(fs::relative(j.input, in).generic_string());
    EXPECT_EQ(inputs, (std::vector<std::string>{"a.iqm", "broken.iqm", "char/c.cfg", "sub/b.iqe", "sub/b.iqm"}));
    EXPECT_EQ(plan->jobs[2].output, (dir / "out/char/c.glb").string());
    EXPECT_FALSE(plan->jobs[3].refused);
    ASSERT_TRUE(plan->jobs[4].refused);  // b.iqe writes out/sub/b.glb first
    EXPECT_NE(plan->jobs[4].refused->message.find("another out_dir"), std::string::npos) << plan->jobs[4].refused->message;
    ASSERT_EQ(plan->skipped.size(), 1u);
    EXPECT_EQ(plan->skipped[0].path, (in / "p.jpk").string());
    EXPECT_EQ(plan->skipped[0].reason, "a JPK pack is not expanded (convert a member as PACK.jpk:MEMBER)");
    EXPECT_GE(plan->claimed.size(), 3u);  // the .cfg's skeleton, mesh and animation at least
    for (auto& c : plan->claimed) EXPECT_EQ(fs::path(c).parent_path(), in / "char") << c;
    EXPECT_FALSE(fs::exists(dir / "out")) << "planning writes nothing";
}

TEST(BatchLibrary, OptionsAreNamedByTheirLibraryNames) {
    const fs::path dir = files_dir();
    const fs::path in = make_tree(dir);
    write_bytes(dir / "file", {1});
    auto error_of = [&](auto change) {
        BatchOptions o;
        o.inputs = {in.string()};
        o.out_dir = (dir / "out").string();
        o.format = "iqm";
        change(o);
        auto plan = plan_batch(o);
        if (!plan) return plan.error();
        auto report = run_batch(*plan, o);
        return report ? Error{} : report.error();
    };
    EXPECT_EQ(error_of([&](BatchOptions& o) { o.out_dir = (dir / "file").string(); }).message, "out_dir '" + (dir / "file").string() + "' is not a folder");
    EXPECT_EQ(error_of([](BatchOptions& o) { o.convert.unit = "furlong"; }).message.rfind("unit 'furlong': expected keep or a unit (", 0), 0u);
    EXPECT_EQ(error_of([&](BatchOptions& o) { o.convert.images.texture_paths = {(dir / "nowhere").string()}; }).message,
              "texture_paths '" + (dir / "nowhere").string() + "': no such folder");
    const Error same = error_of([&](BatchOptions& o) { o.report_file = (dir / "out/a.iqm").string(); });
    EXPECT_EQ(same.code, ErrorCode::InvalidArgument);
    EXPECT_EQ(same.message.rfind("report_file '", 0), 0u) << same.message;
    const Error unknown = error_of([](BatchOptions& o) { o.format = "nope"; });
    EXPECT_EQ(unknown.message, "unknown format 'nope' (see 'formats()')");
    fs::create_directories(dir / "empty");
    const Error none = error_of([&](BatchOptions& o) { o.inputs = {(dir / "empty").string()}; });
    EXPECT_EQ(none.message.rfind("no models found", 0), 0u) << none.message;
    EXPECT_FALSE(fs::exists(dir / "out/a.iqm"));
}

TEST(BatchLibrary, RunReportsEveryModelKeepsGoingAndWritesTheCliBytes) {
    const fs::path dir = files_dir();
    const fs::path in = make_tree(dir);
    BatchOptions o;
    o.inputs = {in.string()};
    o.out_dir = (dir / "lib").string();
    o.format = "glb";
    o.jobs = 2;
    auto plan = plan_batch(o);
    ASSERT_TRUE(plan) << plan.error().to_string();
    std::vector<BatchEvent::Kind> kinds;
    std::vector<size_t> done, jobs;
    auto report = run_batch(*plan, o, [&](const BatchEvent& e) {
        kinds.push_back(e.kind);
        if (e.kind == BatchEvent::Kind::Finished) {
            done.push_back(e.done);
            jobs.push_back(e.job);
            EXPECT_EQ(e.total, plan->jobs.size());
            EXPECT_EQ(e.model, &plan->jobs[e.job]);
        }
    });
    ASSERT_TRUE(report) << report.error().to_string();
    ASSERT_EQ(kinds.size(), 1 + plan->jobs.size());
    EXPECT_EQ(kinds[0], BatchEvent::Kind::Skipped);  // the pack, before any model
    EXPECT_EQ(done, (std::vector<size_t>{1, 2, 3, 4, 5}));
    std::sort(jobs.begin(), jobs.end());
    EXPECT_EQ(jobs, (std::vector<size_t>{0, 1, 2, 3, 4}));
    ASSERT_EQ(report->models.size(), 5u);
    EXPECT_EQ(report->models[0].failure, FailureClass::None);
    EXPECT_EQ(report->models[1].failure, FailureClass::Read);   // broken.iqm
    EXPECT_EQ(report->models[4].failure, FailureClass::Write);  // refused: b.iqe's output
    EXPECT_EQ(report->converted, 3u);
    EXPECT_EQ(report->failed, 2u);
    EXPECT_EQ(report->failure, FailureClass::Write);
    EXPECT_EQ(report->models[0].result.outputs, std::vector<std::string>{(dir / "lib/a.glb").string()});

    auto cli = run_cli({"batch", in.string(), "-o", (dir / "cli").string(), "--format", "glb", "-q"});
    EXPECT_EQ(cli.exit_code, 4) << cli.err;
    const auto by_library = snapshot(dir / "lib");
    EXPECT_EQ(by_library.size(), 3u);
    EXPECT_EQ(by_library, snapshot(dir / "cli"));
}

TEST(BatchLibrary, NinjaTextHasAnEdgePerModelAndRefusesOptionsItCannotPassOn) {
    const fs::path dir = files_dir();
    const fs::path in = dir / "in";
    save_sample(in / "a.iqm");
    save_sample(in / "b b.iqe");
    BatchOptions o;
    o.inputs = {in.string()};
    o.out_dir = (dir / "out").string();
    o.format = "iqm";
    o.convert.unit = "cm";
    o.build_file = (dir / "build.ninja").string();
    auto plan = plan_batch(o);
    ASSERT_TRUE(plan) << plan.error().to_string();
    auto file = ninja_text(*plan, o, "/opt/rigport");
    ASSERT_TRUE(file) << file.error().to_string();
    EXPECT_EQ(file->edges, 2u);
    EXPECT_NE(file->text.find("rigport = '/opt/rigport'\n"), std::string::npos) << file->text;
    EXPECT_NE(file->text.find("--format iqm --unit cm --ninja-deps -q"), std::string::npos) << file->text;
    EXPECT_NE(file->text.find("build " + (dir / "out/b$ b.iqm").string() + ": convert " + (in / "b$ b.iqe").string()), std::string::npos) << file->text;
    o.convert.fix_normals = true;
    auto refused = ninja_text(*plan, o, "/opt/rigport");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("convert.fix_normals"), std::string::npos) << refused.error().message;
}

TEST(BatchLibrary, ArchivesAreAskedOfTheRegistry) {
    ASSERT_NE(find_archive_by_extension("x/PACK.JPK"), nullptr);
    EXPECT_EQ(find_archive_by_extension("x/pack.jpk")->name, "jpk");
    EXPECT_EQ(find_archive_by_extension("x/pack.iqm"), nullptr);
    EXPECT_EQ(find_archive_by_extension("x/pack.jpk.bak"), nullptr);
    auto split = split_archive_member_path("cars/XS.jpk:body.joe");
    ASSERT_TRUE(split);
    EXPECT_EQ(split->first, "cars/XS.jpk");
    EXPECT_EQ(split->second, "body.joe");
    EXPECT_FALSE(split_archive_member_path("cars/body.joe"));
}

TEST(OptionWords, OneReaderForEveryFrontEnd) {
    EXPECT_EQ(*parse_axis_word("root"), GltfOptions::AxisMode::Root);
    EXPECT_EQ(parse_axis_word("up", "--axis").error().message, "--axis 'up': expected bake or root");
    EXPECT_EQ(parse_axis_word("up").error().message, "axis 'up': expected bake or root");
    EXPECT_EQ(*parse_unit_word(""), "");
    EXPECT_EQ(*parse_unit_word("inch"), "inch");
    EXPECT_FALSE(parse_unit_word("furlong"));
    EXPECT_EQ(*parse_image_mode_word("embed"), ImageOptions::Mode::Embed);
    EXPECT_EQ(parse_image_mode_word("all").error().message, "images 'all': expected auto, reference, embed or none");
    EXPECT_FALSE(parse_clip_end_word("")->has_value());
    EXPECT_EQ(**parse_clip_end_word("extrapolate"), ClipEnd::Extrapolate);
    EXPECT_EQ(*parse_cal3d_dialect_word("919"), Cal3dOptions::Dialect::Imvu919);
    EXPECT_EQ(*parse_cal3d_dialect_word("1301"), Cal3dOptions::Dialect::Trunk1301);
    EXPECT_EQ(parse_cal3d_dialect_word("1200").error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(parse_vec3_word("1,+2,3", false), (Vec3{1, 2, 3}));
    EXPECT_EQ(parse_vec3_word("5", true), (Vec3{0, 0, 5}));
    EXPECT_FALSE(parse_vec3_word("5", false));
    EXPECT_FALSE(parse_vec3_word("1,2,nan", false));
}

}  // namespace
}  // namespace rigport::test

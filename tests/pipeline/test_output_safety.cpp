// A user's files are sacred (docs/cli.md, "Outputs: what rigport will and will not replace"), through the real binary: no output replaces an input or
// a file an input reads, special files are never renamed over, symlinked and read-only outputs,
// standard output, concurrent writers of one .gltf, temporaries of killed runs; outputs written as
// a group (WriteGroup: one durability step) leave the same bytes, no temporaries, and replace
// nothing when a file of the group fails.
#include <gtest/gtest.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

fs::path write_sample(const fs::path& path) {
    auto r = run_cli({"sample", "-o", path.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
}

// Every regular file under dir with its bytes: compared before and after a refused command.
std::map<std::string, std::vector<uint8_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::vector<uint8_t>> files;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) files[fs::relative(e.path(), dir).generic_string()] = read_bytes(e.path());
    return files;
}

bool mentions(const std::string& text, const fs::path& p) { return text.find(p.filename().string()) != std::string::npos; }

TEST(OutputSafety, OutputThatIsTheInputIsRefused) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "same.iqm");
    ASSERT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "same.iqe").string()}).exit_code, 0);
    const auto before = snapshot(dir);
    for (const char* name : {"same.iqm", "same.iqe"}) {
        auto r = run_cli({"convert", (dir / name).string(), "-o", (dir / name).string()});
        EXPECT_EQ(r.exit_code, 1) << name << ": " << r.err;
        EXPECT_NE(r.err.find("would replace"), std::string::npos) << r.err;
    }
    // Another name for the same file: a hard link and a symlink.
    fs::create_hard_link(iqm, dir / "hard.iqm");
    fs::create_symlink(iqm, dir / "soft.iqm");
    const auto linked = snapshot(dir);
    for (const char* name : {"hard.iqm", "soft.iqm"}) {
        auto r = run_cli({"convert", iqm.string(), "-o", (dir / name).string()});
        EXPECT_EQ(r.exit_code, 1) << name << ": " << r.err;
        EXPECT_TRUE(mentions(r.err, iqm)) << r.err;  // names the input it would replace
    }
    EXPECT_EQ(snapshot(dir), linked);
    fs::remove(dir / "hard.iqm");
    fs::remove(dir / "soft.iqm");
    EXPECT_EQ(snapshot(dir), before);
}

TEST(OutputSafety, SideFilesMayNotReplaceTheCharactersOwnFiles) {
    // a.cfg lists b.xsf, b_*.xmf ...; writing b.cfg as XML would replace those members.
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    ASSERT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "b.cfg").string()}).exit_code, 0);
    fs::remove(iqm);
    fs::rename(dir / "b.cfg", dir / "a.cfg");
    const auto before = snapshot(dir);
    auto r = run_cli({"convert", (dir / "a.cfg").string(), "-o", (dir / "b.cfg").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("b.xsf"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(dir), before);
    // The case: the .cfg onto itself, binary 1100.
    r = run_cli({"convert", (dir / "a.cfg").string(), "-o", (dir / "a.cfg").string(), "--cal3d-binary", "--cal3d-dialect", "1100"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(snapshot(dir), before);
    // Elsewhere it converts.
    fs::create_directories(dir / "out");
    r = run_cli({"convert", (dir / "a.cfg").string(), "-o", (dir / "out" / "b.cfg").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(OutputSafety, SpecialFilesAreNeverReplaced) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    struct stat null_before {};
    ASSERT_EQ(::stat("/dev/null", &null_before), 0);
    auto r = run_cli({"convert", iqm.string(), "--format", "iqm", "-o", "/dev/null"});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("character device"), std::string::npos) << r.err;
    struct stat null_after {};
    ASSERT_EQ(::stat("/dev/null", &null_after), 0);
    EXPECT_TRUE(S_ISCHR(null_after.st_mode));
    EXPECT_EQ(null_after.st_ino, null_before.st_ino);

    ASSERT_EQ(::mkfifo((dir / "pipe.iqm").c_str(), 0644), 0);
    r = run_cli({"convert", iqm.string(), "-o", (dir / "pipe.iqm").string()});  // never opened: no hang
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("named pipe"), std::string::npos) << r.err;
    fs::create_directories(dir / "folder.iqm");
    EXPECT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "folder.iqm").string()}).exit_code, 4);
    // A missing output folder is found before any input is read.
    r = run_cli({"convert", (dir / "missing-input.iqm").string(), "-o", (dir / "nope" / "x.iqm").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_fifo(dir / "pipe.iqm"));
}

TEST(OutputSafety, SymlinkedOutputReplacesTheFileItPointsTo) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    fs::create_directories(dir / "real");
    write_bytes(dir / "real" / "target.iqe", {'o', 'l', 'd'});
    fs::create_symlink(fs::path("real") / "target.iqe", dir / "link.iqe");
    auto r = run_cli({"convert", iqm.string(), "-o", (dir / "link.iqe").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "link.iqe"));
    const auto text = read_bytes(dir / "real" / "target.iqe");
    EXPECT_EQ(std::string(text.begin(), text.begin() + 4), "# In");  // "# Inter-Quake Export"
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "real"), fs::directory_iterator{}), 1);  // no temporary left
}

TEST(OutputSafety, ReadOnlyOutputNeedsForce) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    const fs::path out = dir / "locked.iqe";
    write_bytes(out, {'k', 'e', 'e', 'p'});
    fs::permissions(out, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    auto r = run_cli({"convert", iqm.string(), "-o", out.string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
    EXPECT_EQ(read_bytes(out), (std::vector<uint8_t>{'k', 'e', 'e', 'p'}));
    r = run_cli({"convert", iqm.string(), "-o", out.string(), "--force"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(read_bytes(out).size(), 4u);
    // The replacement keeps the file's permissions.
    EXPECT_EQ(fs::status(out).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
}

TEST(OutputSafety, DashStreamsToStandardOutput) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    ASSERT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "file.glb").string()}).exit_code, 0);
    auto r = run_cli({"convert", iqm.string(), "--format", "glb", "-o", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto file = read_bytes(dir / "file.glb");
    EXPECT_EQ(r.out.size(), file.size());
    EXPECT_TRUE(r.out == std::string(file.begin(), file.end()));  // not EXPECT_EQ: no binary dump
    // A .gltf on standard output carries its buffer inline.
    r = run_cli({"convert", iqm.string(), "--format", "gltf", "-o", "/dev/stdout"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("data:application/octet-stream;base64,"), std::string::npos);
    auto back = load_bytes(std::span(reinterpret_cast<const uint8_t*>(r.out.data()), r.out.size()), "stdout.gltf");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->vertex_count(), load(iqm.string())->vertex_count());
    // Without --format there is no extension to go by.
    EXPECT_EQ(run_cli({"convert", iqm.string(), "-o", "-"}).exit_code, 1);
}

TEST(OutputSafety, ConcurrentWritersNeverMixGltfAndBin) {
    const fs::path dir = temp_dir();
    const fs::path a = write_sample(dir / "a.iqm");
    ASSERT_EQ(run_cli({"convert", a.string(), "-o", (dir / "b.iqe").string(), "-s", "2"}).exit_code, 0);
    fs::create_directories(dir / "out");
    const fs::path out = dir / "out" / "m.gltf";
    // Two loops convert different models to the same .gltf at once, 25 times each; after every
    // pair the .gltf and its .bin must belong together (the buffer reads with its stated length).
    for (int round = 0; round < 25; ++round) {
        std::ostringstream cmd;
        cmd << "'" << RIGPORT_CLI_PATH << "' convert '" << a.string() << "' -o '" << out.string() << "' & "
            << "'" << RIGPORT_CLI_PATH << "' convert '" << (dir / "b.iqe").string() << "' -o '" << out.string() << "'; wait";
        ASSERT_EQ(std::system(cmd.str().c_str()), 0);
        auto scene = load(out.string());
        ASSERT_TRUE(scene) << "round " << round << ": " << scene.error().to_string();
        auto bin = read_bytes(dir / "out" / "m.bin");
        auto gltf = read_bytes(out);
        const std::string json(gltf.begin(), gltf.end());
        EXPECT_NE(json.find("\"byteLength\":" + std::to_string(bin.size())), std::string::npos) << "round " << round;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out"), fs::directory_iterator{}), 2);  // m.gltf, m.bin
}

TEST(OutputSafety, StaleTemporariesOfDeadRunsAreRemoved) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "m.iqm");
    // A pid above the kernel's pid_max can belong to no process; ours is alive.
    long pid_max = 4194304;
    std::ifstream("/proc/sys/kernel/pid_max") >> pid_max;
    const fs::path stale = dir / ("out.iqe.rigport-tmp-" + std::to_string(pid_max + 1) + "-0badf00d");
    const fs::path live = dir / ("out.iqe.rigport-tmp-" + std::to_string(::getpid()) + "-00c0ffee");
    const fs::path other = dir / "notes.rigport-tmp-12-not-ours";
    for (auto& p : {stale, live, other}) write_bytes(p, {1});
    ASSERT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "out.iqe").string()}).exit_code, 0);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(other));
}

TEST(OutputSafety, PackCreateRefusesToPackItself) {
    const fs::path dir = temp_dir();
    fs::create_directories(dir / "in");
    write_bytes(dir / "in" / "a.txt", {'a'});
    ASSERT_EQ(run_cli({"pack", "create", (dir / "in").string(), "-o", (dir / "in" / "p.jpk").string()}).exit_code, 0);
    const auto before = snapshot(dir);
    // p.jpk now lies in the folder it packs: a second run would read it and replace it.
    auto r = run_cli({"pack", "create", (dir / "in").string(), "-o", (dir / "in" / "p.jpk").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(snapshot(dir), before);
}

TEST(OutputSafety, PackExtractNeverReplacesThePack) {
    // A pack holding a member named like itself, extracted into its own folder.
    const fs::path dir = temp_dir();
    fs::create_directories(dir / "in");
    write_bytes(dir / "in" / "p.jpk", {'x'});
    write_bytes(dir / "in" / "a.txt", {'a'});
    ASSERT_EQ(run_cli({"pack", "create", (dir / "in").string(), "-o", (dir / "p.jpk").string()}).exit_code, 0);
    fs::remove_all(dir / "in");
    const auto before = snapshot(dir);
    auto r = run_cli({"pack", "extract", (dir / "p.jpk").string(), "-o", dir.string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("would replace"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(dir), before);  // a.txt not written either: every member is checked first
}

// No "NAME.rigport-tmp-..." file anywhere below dir.
bool has_temporaries(const fs::path& dir) {
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".rigport-tmp-") != std::string::npos) return true;
    return false;
}

Output gltf_like(uint8_t seed) {
    Output out;
    out.bytes = {'{', seed, '}'};
    out.side_files.push_back({"model.bin", std::vector<uint8_t>(1000, seed)});
    return out;
}

TEST(OutputSafety, AGroupOfOutputsGivesTheSameBytesAndNoTemporaries) {
    const fs::path dir = temp_dir();
    fs::create_directories(dir / "one");
    fs::create_directories(dir / "group" / "sub");
    // The same outputs one by one and as one group, new and then replacing what is there.
    for (uint8_t seed : {uint8_t(1), uint8_t(2)}) {
        ASSERT_TRUE(write_output((dir / "one" / "model.gltf").string(), gltf_like(seed)));
        ASSERT_TRUE(write_file_atomic((dir / "one" / "single.txt").string(), std::vector<uint8_t>{seed, 9}));
        WriteGroup group;
        ASSERT_TRUE(group.stage((dir / "group" / "sub" / "model.gltf").string(), gltf_like(seed)));
        ASSERT_TRUE(group.stage((dir / "group" / "single.txt").string(), std::vector<uint8_t>{seed, 9}));
        EXPECT_EQ(group.file_count(), 3u);
        EXPECT_FALSE(fs::exists(dir / "group" / "single.txt") && seed == 1);  // staged, not yet in place
        ASSERT_TRUE(group.commit());
        EXPECT_EQ(group.file_count(), 0u);
        EXPECT_EQ(read_bytes(dir / "group" / "sub" / "model.gltf"), read_bytes(dir / "one" / "model.gltf"));
        EXPECT_EQ(read_bytes(dir / "group" / "sub" / "model.bin"), read_bytes(dir / "one" / "model.bin"));
        EXPECT_EQ(read_bytes(dir / "group" / "single.txt"), read_bytes(dir / "one" / "single.txt"));
        EXPECT_FALSE(has_temporaries(dir));
    }
}

TEST(OutputSafety, AGroupWithAFailedFileReplacesNothing) {
    const fs::path dir = temp_dir();
    write_bytes(dir / "a.txt", {'o', 'l', 'd'});
    fs::create_directories(dir / "sub");
    write_bytes(dir / "sub" / "b.txt", {'o', 'l', 'd'});
    const auto before = snapshot(dir);
    {
        WriteGroup group;
        ASSERT_TRUE(group.stage((dir / "a.txt").string(), std::vector<uint8_t>{'n', 'e', 'w'}));
        ASSERT_TRUE(group.stage((dir / "sub" / "b.txt").string(), std::vector<uint8_t>{'n', 'e', 'w'}));
        // A name one character short of the limit: the target may exist, its temporary cannot.
        const std::string longest(NAME_MAX - 1, 'x');
        auto st = group.stage((dir / longest).string(), std::vector<uint8_t>{1});
        ASSERT_FALSE(st);
        EXPECT_NE(st.error().message.find("temporary"), std::string::npos) << st.error().to_string();
        EXPECT_EQ(group.file_count(), 2u);  // the outputs staged before stay staged ...
    }  // ... until the group is dropped without a commit
    EXPECT_EQ(snapshot(dir), before);
    EXPECT_FALSE(has_temporaries(dir));
}

TEST(OutputSafety, CommittedGroupsGetOneStatusEach) {
    const fs::path dir = temp_dir();
    WriteGroup good, bad;
    ASSERT_TRUE(good.stage((dir / "good.gltf").string(), gltf_like(7)));
    ASSERT_TRUE(bad.stage((dir / "bad.txt").string(), std::vector<uint8_t>{1}));
    ASSERT_TRUE(bad.stage((dir / "later.txt").string(), std::vector<uint8_t>{2}));
    // Between staging and the commit, bad.txt's name becomes a folder that is not empty.
    fs::create_directories(dir / "bad.txt" / "inside");
    std::vector<WriteGroup*> groups{&good, &bad};
    const auto results = commit_groups(groups);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_TRUE(results[0]);
    ASSERT_FALSE(results[1]);
    EXPECT_NE(results[1].error().message.find("cannot replace the output"), std::string::npos) << results[1].error().to_string();
    EXPECT_EQ(read_bytes(dir / "model.bin"), std::vector<uint8_t>(1000, 7));
    EXPECT_FALSE(fs::exists(dir / "later.txt"));  // a failed rename stops its group
    EXPECT_TRUE(fs::is_directory(dir / "bad.txt"));
    EXPECT_FALSE(has_temporaries(dir));
}

std::string read_text(const fs::path& p) {
    auto b = read_bytes(p);
    return std::string(b.begin(), b.end());
}
void write_text(const fs::path& p, const std::string& text) { write_bytes(p, std::vector<uint8_t>(text.begin(), text.end())); }

// A texture a model names is an input whether or not the output reads it: an IQM output only
// names its texture, and used to be written over it.
TEST(OutputSafety, ATextureTheModelNamesIsAnInput) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "a.iqm");
    ASSERT_TRUE(fs::exists(dir / "sample_texture.png"));
    const auto before = snapshot(dir);
    for (const std::string& out : {(dir / "sample_texture.png").string(), (dir / "." / "sample_texture.png").string(),
                                   (dir / "sub" / ".." / "sample_texture.png").string()}) {
        fs::create_directories(dir / "sub");
        for (const char* format : {"iqm", "iqe", "obj"}) {
            auto r = run_cli({"convert", iqm.string(), "-o", out, "--format", format});
            EXPECT_EQ(r.exit_code, 1) << out << " as " << format << ": " << r.err;
            EXPECT_NE(r.err.find("would replace"), std::string::npos) << r.err;
            EXPECT_NE(r.err.find("texture"), std::string::npos) << r.err;
        }
        fs::remove(dir / "sub");
    }
    EXPECT_EQ(snapshot(dir), before);
    // A hard link to the texture is the texture.
    fs::create_hard_link(dir / "sample_texture.png", dir / "linked.png");
    auto r = run_cli({"convert", iqm.string(), "-o", (dir / "linked.png").string(), "--format", "iqm"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(read_bytes(dir / "linked.png"), before.at("sample_texture.png"));
}

// A texture named by a web address is never looked up as a relative file ("http:" is a legal
// folder name); a file: URI names the file it says.
TEST(OutputSafety, WebAndFileTextureUris) {
    const fs::path dir = temp_dir();
    const fs::path iqm = write_sample(dir / "a.iqm");
    ASSERT_EQ(run_cli({"convert", iqm.string(), "-o", (dir / "a.iqe").string()}).exit_code, 0);
    std::string iqe = read_text(dir / "a.iqe");
    const auto at = iqe.find("material \"sample_texture.png\"");
    ASSERT_NE(at, std::string::npos);
    // A PNG where a relative lookup of the web address would find it.
    fs::create_directories(dir / "http:" / "example.com");
    fs::copy_file(dir / "sample_texture.png", dir / "http:" / "example.com" / "t.png");
    std::string web = iqe;
    web.replace(at, std::string("material \"sample_texture.png\"").size(), "material \"http://example.com/t.png\"");
    write_text(dir / "web.iqe", web);
    auto r = run_cli({"convert", (dir / "web.iqe").string(), "-o", (dir / "web.gltf").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("web address"), std::string::npos) << r.err;
    EXPECT_EQ(read_text(dir / "web.gltf").find("\"images\""), std::string::npos);
    // file:///abs/path%20escaped names the file (inside the model's folder, so not outside it).
    fs::copy_file(dir / "sample_texture.png", dir / "my tex.png");
    std::string file = iqe;
    file.replace(at, std::string("material \"sample_texture.png\"").size(),
                 "material \"file://" + (dir / "my%20tex.png").string() + "\"");
    write_text(dir / "file.iqe", file);
    r = run_cli({"convert", (dir / "file.iqe").string(), "-o", (dir / "file.glb").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("not found"), std::string::npos) << r.err;
    EXPECT_NE(read_text(dir / "file.glb").find("\"image/png\""), std::string::npos);  // the texture embedded
}

}  // namespace
}  // namespace rigport::test

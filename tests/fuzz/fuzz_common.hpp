// What every libFuzzer target shares: small LoadOptions limits, the "every written file reads
// back" check, a per-process scratch folder for targets that need files on disk, and the split of
// one input into several named files (docs/fuzzing.md).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/io.hpp"
#include "rigport/render.hpp"
#include "rigport/scene.hpp"

namespace fuzz {

namespace fs = std::filesystem;

// Limits that keep each run fast: the limit logic itself is tested elsewhere.
inline rigport::LoadOptions load_options() {
    rigport::LoadOptions options;
    options.max_file_bytes = 1u << 22;
    options.max_elements = 1u << 20;
    options.max_frames = 4096;
    options.max_depth = 64;
    return options;
}

// A finding: says what broke (the input is saved by libFuzzer) and aborts.
[[noreturn]] inline void fail(std::string_view what, const rigport::Error* error = nullptr) {
    std::fprintf(stderr, "fuzz finding: %.*s%s%s\n", int(what.size()), what.data(), error ? ": " : "",
                 error ? error->to_string().c_str() : "");
    std::abort();
}

// A reader that returns a scene breaking the invariants every writer relies on is a bug.
// Every scene a reader returns can be drawn (rigport render): a tiny picture of the first
// animation's pose (the bind pose without one), overlays on, which must succeed, except for a
// scene with neither a triangle nor a joint, which render refuses as nothing to draw
// (Unsupported; docs/render.md) and must refuse so.
inline void check_scene(const rigport::Scene& scene, std::string_view who) {
    if (auto st = rigport::check_invariants(scene); !st) fail(std::string(who) + ": scene breaks an invariant", &st.error());
    rigport::RenderOptions picture;
    picture.width = picture.height = 12;
    picture.supersample = 1;
    picture.wireframe = picture.skeleton = true;
    picture.animation = scene.animations.empty() ? -1 : 0;
    picture.time = 0.5f;
    const bool nothing = rigport::draws_skeleton_only(scene) && scene.skeleton.joints.empty();
    auto image = rigport::render(scene, picture);
    if (nothing && (image || image.error().code != rigport::ErrorCode::Unsupported))
        fail(std::string(who) + ": a scene with nothing to draw was not refused as Unsupported", image ? nullptr : &image.error());
    if (!nothing && !image) fail(std::string(who) + ": render failed", &image.error());
}

// Every error says what was wrong.
inline void check_error(const rigport::Error& error, std::string_view who) {
    if (error.message.empty()) fail(std::string(who) + ": error without a message", &error);
}

// A written file must read back, with the format forced, into a scene that keeps the invariants.
// A read-back beyond the small fuzz limits (a writer may legitimately expand keys into frames) is
// not a finding; any other error is.
inline void check_reads_back(std::span<const uint8_t> bytes, const std::string& path, const std::string& format,
                             const rigport::LoadOptions& options = load_options()) {
    rigport::LoadOptions again = options;
    again.format = format;
    again.read_resource = nullptr;  // a single-file output needs nothing beside it
    auto back = rigport::load_bytes(bytes, path, again);
    if (!back) {
        if (back.error().code == rigport::ErrorCode::LimitExceeded) return;
        fail("written " + format + " does not read back", &back.error());
    }
    check_scene(*back, "read back " + format);
}

// Writes scene as format (a registry name) in memory, single-file; a success must read back.
// Returns whether the writer produced a file (refusing a scene is not a finding).
inline bool write_and_read_back(const rigport::Scene& scene, const std::string& format, const std::string& path,
                                rigport::SaveOptions save = {}) {
    save.format = format;
    // Frame-based writers sample keys into frames x joints: keep that within the fuzz limits too.
    save.max_poses = std::min<uint64_t>(save.max_poses, 1u << 20);
    auto out = rigport::save_bytes(scene, path, save);
    if (!out) {
        check_error(out.error(), "writing " + format);
        return false;
    }
    check_reads_back(*out, path, format == "glb" ? "gltf" : format);
    return true;
}

// The Cal3D one-file targets (fuzz_cal3d_xml, fuzz_cal3d_binary): the file type comes from the
// content, as for a file on the command line; a read of the target's encoding (prefix "cal3d-x"
// for XML, "cal3d-c" for binary) is checked, written back as the same file type in a dialect the
// input picks (IMVU 919, classic 1100, trunk 1301) and read again.
inline void cal3d_one_file(std::span<const uint8_t> bytes, const char* prefix) {
    auto scene = rigport::load_bytes(bytes, "fuzz", load_options());
    if (!scene) {
        check_error(scene.error(), prefix);
        return;
    }
    const std::string format = scene->meta.source_format;
    if (format.rfind(prefix, 0) != 0) return;  // another format's magic: its own target covers it
    check_scene(*scene, format);
    rigport::SaveOptions save;
    save.cal3d.dialect = bytes.size() % 3 == 0   ? rigport::Cal3dOptions::Dialect::Imvu919
                         : bytes.size() % 3 == 1 ? rigport::Cal3dOptions::Dialect::Classic1100
                                                 : rigport::Cal3dOptions::Dialect::Trunk1301;
    write_and_read_back(*scene, format, "fuzz", save);
}

// One folder per process (libFuzzer's -jobs run separate processes), in /dev/shm when it is
// there, emptied by clear() at the start of each run and removed at exit.
class Scratch {
public:
    explicit Scratch(std::string_view target) {
        const char* tmp = std::getenv("TMPDIR");
        fs::path base = fs::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm")
                        : tmp && *tmp                                                  ? fs::path(tmp)
                                                                                       : fs::temp_directory_path();
        dir_ = base / ("rigport-" + std::string(target) + "-" + std::to_string(getpid()));
        std::error_code ec;
        fs::remove_all(dir_, ec);
        fs::create_directories(dir_, ec);
        if (ec) fail("cannot create the scratch folder " + dir_.string());
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    const fs::path& dir() const { return dir_; }

    // Empties the folder (a previous run's files must not feed this one).
    void clear() const {
        std::error_code ec;
        for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            fs::remove_all(it->path(), ec);
    }

    void write(const fs::path& path, std::span<const uint8_t> bytes) const {
        FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) fail("cannot write " + path.string());
        if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) fail("short write");
        std::fclose(f);
    }

private:
    fs::path dir_;
};

// One input as several files: the first part (up to the first marker) and then parts each
// introduced by a line "\n@file NAME\n". A name is kept only when it is a plain file name
// ([A-Za-z0-9_.-], at most 40 characters, not starting with '.'); otherwise the part is
// named "partK". scripts/fuzz.sh builds .cfg seeds in this shape.
struct Part {
    std::string name;
    std::span<const uint8_t> bytes;
};
inline constexpr std::string_view part_marker = "\n@file ";

inline std::vector<Part> split_parts(std::span<const uint8_t> data) {
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    std::vector<Part> parts;
    size_t start = 0;
    std::string name;
    for (;;) {
        const size_t marker = text.find(part_marker, start);
        const size_t end = marker == std::string_view::npos ? text.size() : marker;
        parts.push_back(Part{name, data.subspan(start, end - start)});
        if (marker == std::string_view::npos) break;
        const size_t name_start = marker + part_marker.size();
        size_t name_end = text.find('\n', name_start);
        if (name_end == std::string_view::npos) name_end = text.size();
        name = std::string(text.substr(name_start, name_end - name_start));
        bool plain = !name.empty() && name.size() <= 40 && name.front() != '.';
        for (char c : name)
            plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                              c == '.' || c == '-');
        if (!plain) name = "part" + std::to_string(parts.size());
        start = name_end == text.size() ? name_end : name_end + 1;
    }
    return parts;
}

}  // namespace fuzz

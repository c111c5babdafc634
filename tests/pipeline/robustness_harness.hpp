// One robustness routine for every registered reader (docs/reliability.md; after ufbx's
// test/testing_fuzz.h): the seed files of a format (rigport's sample scene
// through the format's own writer, small fixtures of our own, corpus files when present) and the
// ways to damage them: truncation, seeded mutations (bytes, words, text numbers, plus a format's
// own structural mutator), hostile counts. Used by test_robustness.cpp and, for the seeds, by the
// allocation-failure test (tests/alloc/).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "formats/fbx/fbx_fixtures.hpp"
#include "formats/hlmdl/hlmdl_builder.hpp"
#include "formats/joe/test_joe_builder.hpp"  // put_u32, put_u16, put_f32
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"

namespace rigport::test::robustness {

// ---- bytes --------------------------------------------------------------------------------------

inline uint32_t word_at(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
inline void set_word(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// Text formats are mutated as text (numbers, tokens), binary ones as bytes and words.
inline bool looks_text(const std::vector<uint8_t>& b) {
    const size_t n = std::min<size_t>(b.size(), 4096);
    if (n == 0) return false;
    size_t printable = 0;
    for (size_t i = 0; i < n; ++i) {
        if (b[i] == 0) return false;
        printable += b[i] >= 0x20 || b[i] == '\n' || b[i] == '\r' || b[i] == '\t';
    }
    return printable * 100 >= n * 98;
}

// ---- seeds --------------------------------------------------------------------------------------

struct Seed {
    std::string name;  // also the path given to load_bytes (its extension may pick a variant)
    std::vector<uint8_t> bytes;
    bool corpus = false;
};

// A file name for format f's output: "stem" + its first extension ("stem.glb" for glb).
inline std::string file_name(const FormatInfo& f, const std::string& stem) {
    if (!f.extensions.empty()) return stem + std::string(f.extensions.front());
    return stem + "." + std::string(f.name);
}

// A small VDrift JOE v3 (docs/joe.md §2) written byte by byte: a unit quad, two faces, in
// `frames` frames, each 1 higher in z.
inline std::vector<uint8_t> joe_quad(uint32_t frames) {
    std::vector<uint8_t> b;
    put_u32(b, 0x32504449u);  // "IDP2"
    put_u32(b, 3);
    put_u32(b, 2);
    put_u32(b, frames);
    const uint16_t faces[2][3] = {{0, 1, 2}, {0, 2, 3}};
    const float verts[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    const float uvs[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (uint32_t fr = 0; fr < frames; ++fr) {
        for (auto& face : faces) {
            for (uint16_t i : face) put_u16(b, i);  // vertex
            for (int k = 0; k < 3; ++k) put_u16(b, 0);  // normal
            for (uint16_t i : face) put_u16(b, i);  // texcoord
        }
        put_u32(b, 4);  // verts, texcoords, normals
        put_u32(b, 4);
        put_u32(b, 1);
        for (auto& v : verts) put_f32(b, v[0]), put_f32(b, v[1]), put_f32(b, v[2] + float(fr));
        put_f32(b, 0), put_f32(b, 0), put_f32(b, 1);
        for (auto& t : uvs) put_f32(b, t[0]), put_f32(b, t[1]);
    }
    return b;
}

// Fixtures of our own beyond the sample, by format: what the sample does not exercise.
inline std::vector<Seed> fixture_seeds(const FormatInfo& f) {
    std::vector<Seed> out;
    if (f.name == "iqe") {
        // The sample through the IQE writer, plus every command the writer never emits.
        SaveOptions o;
        o.format = "iqe";
        auto sample = save_bytes(make_sample_scene(), "commands.iqe", o);
        if (sample) {
            const std::string extra =
                "\nvertexarray custom2 half 3 \"x y\"\nmesh \"poly gon\"\nmaterial m\nsmoothgroup 2\nsmoothangle 40\nsmoothuv 1\n"
                "vp 0 0 0\nvs 1\nv2 1 2 3\nvc 1 0 0\nvp 1 0 0\nvp 1 1 0\nvp 0 1 -0\nfa -4 -3 -2 -1\nfs 1 0 1 0\nfm 0 1 2\n"
                "pm 0 0 0 1 0 0 0 1 0 0 0 1 2 2 2\npa 0 0 0 0.1 0.2 0.3\nanimation extra\nframe 0\npq 0 0 0 0 0 0\n"
                "comment\nthe end\n";
            sample->insert(sample->end(), extra.begin(), extra.end());
            out.push_back({"commands.iqe", std::move(*sample)});
        }
    } else if (f.name == "md5") {
        // The sample's .md5mesh and its .md5anim side files (the writer's output is several files).
        auto sample = save_output(make_sample_scene(), "sample.md5mesh", SaveOptions{});
        if (sample) {
            out.push_back({"sample.md5mesh", std::move(sample->bytes)});
            for (auto& side : sample->side_files) out.push_back({side.name, std::move(side.bytes)});
        }
        // What the writer never emits: comments of both kinds, an empty mesh, an unflagged joint.
        const std::string anim =
            "MD5Version 10 /* block\ncomment */ commandline \"\"\nnumFrames 2 numJoints 2 frameRate 24 numAnimatedComponents 1\n"
            "hierarchy {\n\"a\" -1 0 0 // root\n\"b\" 0 8 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
            "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 0 1 ) ( 0 0 0 )\n}\nframe 1 { 0.5 }\nframe 0 { 0 }\n";
        out.push_back({"quirks.md5anim", std::vector<uint8_t>(anim.begin(), anim.end())});
        const std::string mesh =
            "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 2\njoints {\n\"origin\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
            "mesh {\n// meshes: m\nshader \"s\"\nnumverts 3\nvert 2 ( 0 1 ) 2 1\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
            "numtris 1\ntri 0 0 1 2\nnumweights 3\nweight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n"
            "mesh {\nshader \"\"\nnumverts 0\nnumtris 0\nnumweights 0\n}\n";
        out.push_back({"quirks.md5mesh", std::vector<uint8_t>(mesh.begin(), mesh.end())});
    } else if (f.name == "smd") {
        // The sample's reference SMD and its animation SMDs (the writer's output is several files).
        auto sample = save_output(make_sample_scene(), "sample.smd", SaveOptions{});
        if (sample) {
            out.push_back({"sample.smd", std::move(sample->bytes)});
            // Its animation SMDs; the .qc beside them is no SMD (read as a model list, not a model).
            for (auto& side : sample->side_files)
                if (side.name.size() > 4 && side.name.compare(side.name.size() - 4, 4, ".smd") == 0) out.push_back({side.name, std::move(side.bytes)});
        }
        // What the writer never emits: comments, GoldSrc 9-field lines, a link to the parent
        // itself, nodes listed child first, a frame that leaves a node out, and a .vta.
        const std::string ref =
            "version 1\n// quirks\nnodes\n1 \"arm\" 0\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 2 3 0.3 -0.5 1.1\nend\n"
            "triangles\nskin.tga\n0 0 0 0 0 0 1 0.25 0.75\n0 1 0 0 0 0 1 1 0 2 1 0.25 0 0.5\n1 0 1 0 0 0 1 0 1 1 1 0.6 # c\nend\n";
        out.push_back({"quirks.smd", std::vector<uint8_t>(ref.begin(), ref.end())});
        const std::string anim = "version 1\nnodes\n0 \"root\" -1\n1 \"arm\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\n"
                                 "time 2\n1 2 0 0 0 0 1.5\nend\n";
        out.push_back({"quirks_anim.smd", std::vector<uint8_t>(anim.begin(), anim.end())});
        const std::string vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # Smile\nend\nvertexanimation\ntime 0\n"
                                "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\ntime 1\n1 1 0 0.5 0 0 1\nend\n";
        out.push_back({"quirks.vta", std::vector<uint8_t>(vta.begin(), vta.end())});
    } else if (f.name == "obj") {
        // The sample as OBJ (its .mtl is a side file the harness does not serve: a warning).
        auto sample = save_output(make_sample_scene(), "sample.obj", SaveOptions{});
        if (sample) out.push_back({"sample.obj", std::move(sample->bytes)});
        // What the writer never emits: the four corner forms, relative indices, a polygon, groups,
        // smoothing groups, colours, w, lines, points, free-form keywords and comments.
        const std::string quirks =
            "# quirks\nmtllib a.mtl\nv 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 1 1 0 0 0 1\nv 0 1 0 1 1 1\nv 0.5 2 0 1\nvt 0 0\nvt 1 0 0\nvt 1 1\n"
            "vn 0 0 1\no obj\ng a b\nusemtl m\ns 1\nf 1 2 3 4 5\nf 1/1 2/2 3/3\ns off\nf 1//1 2//1 3//1\ng c\nusemtl\n"
            "f -5/-3/-1 -4/-2/-1 -3/-1/-1 # c\nl 1 2 3\np 4\nvp 0.5\ncurv 0 1 1 2\nbogus\n";
        out.push_back({"quirks.obj", std::vector<uint8_t>(quirks.begin(), quirks.end())});
    } else if (f.name == "fbx") {
        // The hand-written skinned quad as ASCII, and as binary 32-bit and big-endian 64-bit zlib.
        const std::string text = fbx_skinned_quad_ascii();
        const std::vector<uint8_t> ascii(text.begin(), text.end());  // the tree's strings point into it
        out.push_back({"quad_ascii.fbx", ascii});
        if (auto doc = fbx::parse_ascii(ascii, {})) {
            out.push_back({"quad_7400.fbx", FbxBinaryWriter(7400, false, false).write(*doc)});
            out.push_back({"quad_7500_big_zlib.fbx", FbxBinaryWriter(7500, true, true).write(*doc)});
        }
        // The same quad in 3ds Max's FBX 5.x layout, as ASCII 5.8 and as binary 5.0 (header 3000).
        const std::string five = fbx_five_skinned_quad_ascii();
        const std::vector<uint8_t> five_ascii(five.begin(), five.end());
        out.push_back({"quad_five_ascii.fbx", five_ascii});
        if (auto doc = fbx::parse_ascii(five_ascii, {})) out.push_back({"quad_5000.fbx", FbxBinaryWriter(3000, false, false).five().write(*doc)});
    } else if (f.name == "joe") {
        out.push_back({"quad.joe", joe_quad(1)});
        out.push_back({"two_frames.joe", joe_quad(2)});
    } else if (f.name == "hlmdl") {
        out.push_back({"fixture.mdl", hlmdl_fixture::model()});
    }
    return out;
}

// Formats with a reader that need no seed of their own here, and why.
inline const char* seedless_reason(const FormatInfo& f) {
    if (f.name == "cal3d") return "a .cfg names other files: its reader from bytes is always an error (load_cal3d_character reads it)";
    return nullptr;
}

// The sample with a morph target on its first mesh and an animation of its weight, for the
// formats that hold morphs (Cal3D .cpf/.xpf hold nothing else).
inline Scene make_morph_scene() {
    Scene s = make_sample_scene();
    Mesh& m = s.meshes.front();
    MorphTarget t;
    t.name = "smile";
    t.position_deltas.assign(m.vertex_count(), Vec3{0, 0.1f, 0});
    m.morph_targets.push_back(std::move(t));
    Animation a;
    a.name = "smile";
    MorphWeightTrack w;
    w.times = {0.0f, 0.5f, 1.0f};
    w.weights = {0.0f, 1.0f, 0.0f};
    a.morph_tracks.push_back(std::move(w));
    s.animations.push_back(std::move(a));
    return s;
}

// rigport's sample scenes through f's writer (one file, buffers embedded), plus our fixtures.
inline std::vector<Seed> own_seeds(const FormatInfo& f) {
    std::vector<Seed> out;
    if (f.write) {
        SaveOptions o;
        o.format = std::string(f.name);
        o.gltf.embed_buffer = true;
        const std::pair<const char*, Scene> scenes[] = {{"sample", make_sample_scene()}, {"morph", make_morph_scene()}};
        for (auto& [stem, scene] : scenes) {
            const std::string name = file_name(f, stem);
            auto written = save_output(scene, name, o);
            if (!written || !written->side_files.empty()) continue;
            bool seen = false;  // a format that drops the morphs writes the sample again
            for (auto& s : out) seen = seen || s.bytes == written->bytes;
            if (!seen) out.push_back({name, std::move(written->bytes)});
        }
    }
    for (auto& s : fixture_seeds(f)) out.push_back(std::move(s));
    return out;
}

// Corpus files (anywhere under dir) whose extension is one of f's, smallest first.
inline std::vector<Seed> corpus_seeds(const FormatInfo& f, const std::filesystem::path& dir) {
    std::vector<std::pair<uintmax_t, std::filesystem::path>> found;
    if (dir.empty() || f.extensions.empty()) return {};
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        std::string ext = it->path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (std::find(f.extensions.begin(), f.extensions.end(), ext) != f.extensions.end())
            found.emplace_back(it->file_size(), it->path());
    }
    std::sort(found.begin(), found.end());
    std::vector<Seed> out;
    for (auto& [size, path] : found) {
        Seed s;
        s.name = std::filesystem::relative(path, dir).string();
        s.bytes.resize(size_t(size));
        if (FILE* fp = std::fopen(path.c_str(), "rb")) {
            s.bytes.resize(std::fread(s.bytes.data(), 1, s.bytes.size(), fp));
            std::fclose(fp);
        }
        s.corpus = true;
        out.push_back(std::move(s));
    }
    return out;
}

// ---- mutations ----------------------------------------------------------------------------------

// Values hostile counts, offsets and indices like to take (the union of the old per-format lists).
inline uint32_t hostile_word(std::mt19937& rng, uint32_t size) {
    const uint32_t values[] = {0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000u,
                               0xFFFFFFFFu, 0xFFFFFFFEu, size, size - 1, size + 1, size / 2, size / 12, 32000, 32001,
                               0x3F800000u /* 1.0f */, 0x7FC00000u /* NaN */, 0x7F800000u /* inf */, 0xFF800000u /* -inf */,
                               0x00000001u /* denormal */, 0x7F7FFFFFu /* FLT_MAX */};
    return values[rng() % std::size(values)];
}

// The values every word is set to in turn by the hostile-count pass.
inline std::vector<uint32_t> hostile_words(uint32_t size) {
    return {0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, size - 1, size, size + 1};
}

// The numbers every number of a text file is set to in turn by the hostile-count pass.
inline const std::vector<std::string>& hostile_numbers() {
    static const std::vector<std::string> values = {"-1", "0", "65536", "2147483648", "4294967295", "4294967296",
                                                    "-2147483649", "1e999", "-1e39", "nan", "inf", "1e-999",
                                                    "18446744073709551616"};
    return values;
}

inline const char* hostile_number(std::mt19937& rng) {
    static const char* values[] = {"-1", "0", "1", "2", "3", "4", "255", "256", "65535", "65536", "99999", "-99999", "2147483647",
                                   "2147483648", "4294967295", "4294967296", "1e9", "1e300", "1e999", "-1e999", "-1e39", "1.5",
                                   "-0", "0.000001", "1e-999", "nan", "inf", "18446744073709551615", "18446744073709551616",
                                   "9007199254740993", "4.0", "1E2"};
    return values[rng() % std::size(values)];
}

inline bool number_char(uint8_t c) { return std::isdigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// [begin, end) of every number in a text (a digit run with its sign, point and exponent).
inline std::vector<std::pair<size_t, size_t>> number_spans(const std::vector<uint8_t>& b) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i < b.size();) {
        if (!std::isdigit(b[i])) {
            ++i;
            continue;
        }
        size_t s = i, e = i;
        while (s > 0 && (b[s - 1] == '-' || b[s - 1] == '+' || b[s - 1] == '.') && (s < 2 || !std::isalnum(b[s - 2]))) --s;
        if (s > 0 && std::isalpha(b[s - 1])) {  // part of a name ("v2", "JOINTS_0"): skip the word
            while (i < b.size() && std::isalnum(b[i])) ++i;
            continue;
        }
        while (e < b.size() && number_char(b[e])) ++e;
        out.emplace_back(s, e);
        i = e;
    }
    return out;
}

// One to four raw edits: a bit flip, a random byte, a 4-aligned word set hostile, a run copied
// elsewhere, a byte deleted or inserted.
inline void mutate_binary(std::vector<uint8_t>& b, std::mt19937& rng) {
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        if (b.empty()) b.push_back(0);
        const size_t at = rng() % b.size();
        switch (rng() % 7) {
            case 0: b[at] ^= uint8_t(1u << (rng() % 8)); break;
            case 1: b[at] = uint8_t(rng()); break;
            case 2:
            case 3:
                if (b.size() >= 4) set_word(b, (rng() % (b.size() / 4)) * 4, hostile_word(rng, uint32_t(b.size())));
                break;
            case 4: {
                const size_t to = rng() % b.size();
                const size_t n = std::min<size_t>(1 + rng() % 32, std::min(b.size() - at, b.size() - to));
                std::memmove(b.data() + to, b.data() + at, n);
                break;
            }
            case 5: b.erase(b.begin() + long(at)); break;
            default: b.insert(b.begin() + long(at), uint8_t(rng())); break;
        }
    }
}

// One to three text edits: a digit changed, a number replaced by a hostile one, a '-' inserted,
// a token or a run deleted, a byte flipped, a bracket or quote inserted.
inline void mutate_text(std::vector<uint8_t>& b, std::mt19937& rng) {
    const int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits && !b.empty(); ++e) {
        const size_t at = rng() % b.size();
        switch (rng() % 8) {
            case 0: {
                size_t i = at;
                while (i < b.size() && !std::isdigit(b[i])) ++i;
                if (i < b.size()) b[i] = uint8_t('0' + rng() % 10);
                break;
            }
            case 1:
            case 2: {
                size_t i = at;
                while (i < b.size() && !std::isdigit(b[i])) ++i;
                if (i >= b.size()) break;
                size_t s = i, t = i;
                while (s > 0 && number_char(b[s - 1])) --s;
                while (t < b.size() && number_char(b[t])) ++t;
                const std::string_view h = hostile_number(rng);
                b.erase(b.begin() + long(s), b.begin() + long(t));
                b.insert(b.begin() + long(s), h.begin(), h.end());
                break;
            }
            case 3: b.insert(b.begin() + long(at), '-'); break;
            case 4: {  // a token deleted
                size_t i = at;
                while (i < b.size() && b[i] != ' ') ++i;
                size_t j = i + 1;
                while (j < b.size() && b[j] != ' ' && b[j] != '\n') ++j;
                if (i < b.size()) b.erase(b.begin() + long(i), b.begin() + long(std::min(j, b.size())));
                break;
            }
            case 5: b[at] ^= uint8_t(1u << (rng() % 8)); break;
            case 6: b.erase(b.begin() + long(at), b.begin() + long(std::min(b.size(), at + 1 + rng() % 8))); break;
            default: b.insert(b.begin() + long(at), uint8_t("[]{}\",:<>/\n"[rng() % 11])); break;
        }
    }
}

// A format's own structural mutator (headers it knows, a container to keep consistent); returns
// false when it does not apply to these bytes, and the generic mutators run instead.
using FormatMutator = std::function<bool(const Seed& seed, std::vector<uint8_t>& bytes, std::mt19937& rng)>;

}  // namespace rigport::test::robustness

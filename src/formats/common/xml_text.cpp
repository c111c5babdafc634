// The Cal3D XML writers' guard: XML 1.0 cannot hold control characters other than tab, line feed
// and carriage return, not even as character references, so a name holding one (a NUL from a
// binary source) is refused before writing, as an input problem, never a file no reader parses.
#include <fmt/format.h>

#include "formats/common/xml_text.hpp"

namespace rigport::detail {

namespace {

// The first byte XML 1.0 cannot hold, or -1.
int forbidden_byte(std::string_view text) {
    for (unsigned char c : text)
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return c;
    return -1;
}

}  // namespace

Status check_xml_text_for_writing(const Scene& scene) {
    auto check = [](std::string_view text, auto&& where) -> Status {
        if (int c = forbidden_byte(text); c >= 0)
            return make_error(ErrorCode::Malformed,
                              fmt::format("{} holds byte 0x{:02x}, which XML cannot hold; write binary Cal3D instead (--cal3d-binary, "
                                          ".c?f)", where(), c));
        return Ok{};
    };
    for (size_t j = 0; j < scene.skeleton.joints.size(); ++j)
        if (auto st = check(scene.skeleton.joints[j].name, [&] { return fmt::format("joint {}'s name", j); }); !st) return st;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        if (auto st = check(scene.meshes[m].name, [&] { return fmt::format("mesh {}'s name", m); }); !st) return st;
        for (size_t t = 0; t < scene.meshes[m].morph_targets.size(); ++t)
            if (auto st = check(scene.meshes[m].morph_targets[t].name, [&] { return fmt::format("mesh {} morph target {}'s name", m, t); }); !st)
                return st;
    }
    for (size_t i = 0; i < scene.materials.size(); ++i) {
        if (auto st = check(scene.materials[i].name, [&] { return fmt::format("material {}'s name", i); }); !st) return st;
        for (auto& map : scene.materials[i].maps) {
            if (auto st = check(map.uri, [&] { return fmt::format("material {}'s texture", i); }); !st) return st;
            if (auto st = check(map.type_name, [&] { return fmt::format("material {}'s map type", i); }); !st) return st;
        }
    }
    for (size_t a = 0; a < scene.animations.size(); ++a)
        if (auto st = check(scene.animations[a].name, [&] { return fmt::format("animation {}'s name", a); }); !st) return st;
    return Ok{};
}

}  // namespace rigport::detail

// What a Half-Life model holds for the game rather than for drawing (docs/hlmdl.md "Kept for the
// .qc"): bone controllers, hit boxes and attachments, kept as the studiomdl .qc lines that make
// them, in a preserved extension an SMD writer adds to the .qc it writes.
#include <fmt/format.h>

#include <cmath>

#include "formats/common/studiomdl_qc.hpp"
#include "formats/hlmdl/hlmdl_parts.hpp"

namespace rigport::hlmdl::detail {

namespace {

// The .qc number form the scene's transforms keep too (src/process/studiomdl_qc.hpp).
std::string qc_number(float v) { return ::rigport::detail::qc_number(v); }

// A bone's name as one quoted token (studiomdl's tokens end at a quote; a line break ends a line).
std::string qc_bone(const Reader& r, int32_t bone) {
    std::string name = r.bones[size_t(bone)].name;
    for (char& c : name)
        if (c == '"' || c == '\n' || c == '\r') c = '_';
    return '"' + name + '"';
}

// The motion type word studiomdl's $controller takes for the stored type bits (STUDIO_X ...
// STUDIO_AZR); the looping bit (0x8000) studiomdl sets itself from the range. Null when none.
const char* controller_type(uint32_t type) {
    static constexpr std::pair<uint32_t, const char*> words[] = {{0x1, "X"},     {0x2, "Y"},     {0x4, "Z"},     {0x8, "XR"},   {0x10, "YR"},
                                                                 {0x20, "ZR"},   {0x40, "LX"},   {0x80, "LY"},   {0x100, "LZ"}, {0x200, "AX"},
                                                                 {0x400, "AY"},  {0x800, "AZ"},  {0x1000, "AXR"}, {0x2000, "AYR"}, {0x4000, "AZR"}};
    for (auto& [bit, word] : words)
        if ((type & 0x7fff) == bit) return word;
    return nullptr;
}

}  // namespace

void keep_qc_lines(Reader& r) {
    const auto b = r.bytes;
    const int32_t bones = int32_t(r.bones.size());
    std::string lines;
    uint64_t unusable = 0;  // records naming no bone of the model, or a type studiomdl has no word for
    auto table = [&](uint32_t count_at, const char* what, uint32_t record_size, auto&& line) {
        const int32_t count = i32_at(b, count_at), index = i32_at(b, count_at + 4);
        if (count == 0) return;
        if (!check_table(b, r.options, what, count_at, count, index, record_size)) {
            r.warn(WarningCode::Ignored, fmt::format("{} {}: the table runs past the end of the file, not kept", count, what), count_at);
            return;
        }
        for (int32_t i = 0; i < count; ++i) line(uint64_t(index) + uint64_t(i) * record_size);
    };
    // mstudiobonecontroller_t: bone, type, start, end, rest, index (the game's input: 4 = mouth).
    table(at_numbonecontrollers, "bone controllers", bonecontroller_size, [&](uint64_t at) {
        const int32_t bone = i32_at(b, at), input = i32_at(b, at + 20);
        const char* type = controller_type(u32_at(b, at + 4));
        if (bone < 0 || bone >= bones || !type || input < 0 || input > 4) return void(++unusable);
        lines += fmt::format("$controller {} {} {} {} {}\n", input == 4 ? std::string("mouth") : std::to_string(input), qc_bone(r, bone), type,
                             qc_number(f32_at(b, at + 8)), qc_number(f32_at(b, at + 12)));
    });
    // mstudiobbox_t: bone, group, bbmin[3], bbmax[3], in the bone's space.
    table(at_numhitboxes, "hit boxes", hitbox_size, [&](uint64_t at) {
        const int32_t bone = i32_at(b, at);
        if (bone < 0 || bone >= bones) return void(++unusable);
        lines += fmt::format("$hbox {} {}", i32_at(b, at + 4), qc_bone(r, bone));
        for (int k = 0; k < 6; ++k) lines += ' ' + qc_number(f32_at(b, at + 8 + 4 * uint64_t(k)));
        lines += '\n';
    });
    // mstudioattachment_t: name[32], type, bone, org[3] (in the bone's space), vectors[3][3].
    int32_t attachment = 0;
    table(at_numattachments, "attachments", attachment_size, [&](uint64_t at) {
        const int32_t bone = i32_at(b, at + 36);
        if (bone < 0 || bone >= bones) return void(++unusable);
        lines += fmt::format("$attachment {} {} {} {} {}\n", attachment++, qc_bone(r, bone), qc_number(f32_at(b, at + 40)),
                             qc_number(f32_at(b, at + 44)), qc_number(f32_at(b, at + 48)));
    });
    if (unusable)
        r.warn(WarningCode::Ignored, fmt::format("{} bone controllers, hit boxes or attachments name no bone of the model (or a controller type "
                                                 "studiomdl has no word for): not kept",
                                                 unusable));
    if (!lines.empty())
        r.scene.meta.extensions.push_back(PreservedExtension{std::string(::rigport::detail::studiomdl_qc_extension),
                                                             std::vector<uint8_t>(lines.begin(), lines.end())});
    if (const int32_t n = i32_at(b, at_numtransitions); n > 0)
        r.warn(WarningCode::Ignored, fmt::format("{} sequence transition nodes (studiomdl makes them again from the sequences' $sequence nodes)", n),
               at_numtransitions);
}

}  // namespace rigport::hlmdl::detail

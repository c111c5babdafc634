// What the Half-Life studio model reader's files share (docs/hlmdl.md): bounded field reads, the
// table check, the bones as stored, and the side files (NAMEt.mdl, NAME01.mdl) by name.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/hlmdl/hlmdl.hpp"

namespace rigport::hlmdl::detail {

// Little-endian fields at an offset the caller has checked.
inline uint32_t u32_at(std::span<const uint8_t> b, uint64_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
inline int32_t i32_at(std::span<const uint8_t> b, uint64_t at) { return int32_t(u32_at(b, at)); }
inline uint16_t u16_at(std::span<const uint8_t> b, uint64_t at) { return uint16_t(b[at] | b[at + 1] << 8); }
inline int16_t i16_at(std::span<const uint8_t> b, uint64_t at) { return int16_t(u16_at(b, at)); }
float f32_at(std::span<const uint8_t> b, uint64_t at);
// A fixed-size name field up to its first NUL.
std::string name_at(std::span<const uint8_t> b, uint64_t at, uint32_t size);

inline Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

// A table the header (or a record) states as a count at count_at and an offset after it: the count
// not negative and within options.max_elements, the records inside the bytes.
Status check_table(std::span<const uint8_t> bytes, const LoadOptions& options, const char* what, uint64_t count_at, int32_t count,
                   int32_t index, uint32_t record_size);

struct Bone {
    std::string name;
    int32_t parent = -1;
    std::array<float, 6> value{};  // default position x y z, rotation x y z (radians)
    std::array<float, 6> scale{};  // what one step of an animation value is worth, per channel
};

struct Reader {
    std::span<const uint8_t> bytes;
    const LoadOptions& options;
    Scene& scene;
    std::vector<Bone> bones;
    // Stems side files are named after: the file name stored in the header, its folder dropped
    // (a reader sees bytes, not the path they came from).
    std::vector<std::string> stems;
    uint64_t non_finite = 0;  // vertex and normal components replaced by 0

    void warn(WarningCode code, std::string message, std::optional<uint64_t> offset = {}) { scene.warnings.add(code, std::move(message), offset); }
    // The first side file of these names that options.read_resource gives, with its name;
    // nothing (and `why` saying what was tried) when none.
    std::optional<std::pair<std::string, std::vector<uint8_t>>> side_file(const std::vector<std::string>& names, std::string& why) const;
};

// Textures and skins: the file's own, or NAMEt.mdl's when it has none. Gives each texture's size
// (0 x 0 when unknown) and fills scene.materials (one per texture) and scene.images.
struct TextureSet {
    std::vector<std::array<uint32_t, 2>> sizes;  // width, height per texture
    std::vector<uint32_t> flags;
    std::vector<int32_t> skin;  // family 0: skinref -> texture
};
Expected<TextureSet> read_textures(Reader& r);

// Bone controllers, hit boxes and attachments as studiomdl .qc lines in the scene's preserved
// extension studiomdl_qc_extension (docs/hlmdl.md "Kept for the .qc"); what cannot be kept is
// warned about, never an error.
void keep_qc_lines(Reader& r);

// Every sequence as an Animation (blend 0), NAME01.mdl ... read for groups after the first.
Status read_sequences(Reader& r);

}  // namespace rigport::hlmdl::detail

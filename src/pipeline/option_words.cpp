// The words convert's options take, read once for the CLI and the Python module (rigport/options.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "rigport/options.hpp"

namespace rigport {

namespace {

Error refused(std::string_view name, std::string_view word, std::string_view expected) {
    return make_error(ErrorCode::InvalidArgument, fmt::format("{} '{}': expected {}", name, word, expected));
}

}  // namespace

Expected<GltfOptions::AxisMode> parse_axis_word(std::string_view word, std::string_view name) {
    if (word == "bake") return GltfOptions::AxisMode::Bake;
    if (word == "root") return GltfOptions::AxisMode::Root;
    return refused(name, word, "bake or root");
}

Expected<std::string> parse_unit_word(std::string_view word, std::string_view name) {
    if (word.empty() || word == "keep" || unit_metres(word)) return std::string(word);
    return refused(name, word, fmt::format("keep or a unit ({})", unit_names()));
}

Expected<ImageOptions::Mode> parse_image_mode_word(std::string_view word, std::string_view name) {
    if (word == "auto") return ImageOptions::Mode::Auto;
    if (word == "reference") return ImageOptions::Mode::Reference;
    if (word == "embed") return ImageOptions::Mode::Embed;
    if (word == "none") return ImageOptions::Mode::None;
    return refused(name, word, "auto, reference, embed or none");
}

Expected<std::optional<ClipEnd>> parse_clip_end_word(std::string_view word, std::string_view name) {
    if (word.empty()) return std::optional<ClipEnd>{};
    if (word == "clamp") return std::optional<ClipEnd>{ClipEnd::Clamp};
    if (word == "extrapolate") return std::optional<ClipEnd>{ClipEnd::Extrapolate};
    if (word == "none") return std::optional<ClipEnd>{ClipEnd::None};
    return refused(name, word, "clamp, extrapolate or none");
}

Expected<Cal3dOptions::Dialect> parse_cal3d_dialect_word(std::string_view word, std::string_view name) {
    if (word == "imvu" || word == "919") return Cal3dOptions::Dialect::Imvu919;
    if (word == "1100") return Cal3dOptions::Dialect::Classic1100;
    if (word == "1301") return Cal3dOptions::Dialect::Trunk1301;
    return refused(name, word, "imvu, 1100 or 1301");
}

Expected<std::vector<std::string>> parse_md3_tags_word(std::string_view word, std::string_view name) {
    std::vector<std::string> tags;
    if (word.empty()) return tags;
    for (size_t from = 0; from <= word.size();) {
        size_t comma = word.find(',', from);
        if (comma == std::string_view::npos) comma = word.size();
        const std::string_view tag = word.substr(from, comma - from);
        if (tag.empty()) return refused(name, word, "joint names separated by commas, none empty");
        if (std::find(tags.begin(), tags.end(), tag) != tags.end())
            return make_error(ErrorCode::InvalidArgument, fmt::format("{} '{}': joint '{}' is named twice", name, word, tag));
        tags.emplace_back(tag);
        from = comma + 1;
    }
    return tags;
}

Expected<uint32_t> parse_fbx_version_word(std::string_view word, std::string_view name) {
    if (word == "7400") return 7400u;
    if (word == "7500") return 7500u;
    if (word == "7700") return 7700u;
    return refused(name, word, "7400, 7500 or 7700");
}

// "X,Y,Z" (or a single number when single_means_z: the reference compiler's -t Z) -> finite floats.
std::optional<Vec3> parse_vec3_word(std::string_view text, bool single_means_z) {
    std::vector<float> values;
    const char* p = text.data();
    const char* end = p + text.size();
    while (true) {
        float v = 0;
        if (p < end && *p == '+') ++p;  // from_chars refuses a leading '+'
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
        values.push_back(v);
        p = next;
        if (p == end) break;
        if (*p != ',') return std::nullopt;
        ++p;
    }
    if (values.size() == 3) return Vec3{values[0], values[1], values[2]};
    if (values.size() == 1 && single_means_z) return Vec3{0, 0, values[0]};
    return std::nullopt;
}

}  // namespace rigport

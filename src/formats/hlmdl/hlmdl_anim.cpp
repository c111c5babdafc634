// Half-Life studio model sequences (docs/hlmdl.md "Sequences", "Animation values"): each sequence's
// first blend decoded from its run-length channels into joint tracks, the data of groups after the
// first read from NAME01.mdl ... beside the model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "formats/hlmdl/hlmdl_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::hlmdl {

Expected<std::vector<int16_t>> decode_anim_values(std::span<const uint8_t> bytes, uint64_t offset, uint32_t frame_count) {
    std::vector<int16_t> values;
    values.reserve(frame_count);
    uint64_t at = offset;
    while (values.size() < frame_count) {
        // A run: valid (u8) values stored, total (u8) frames covered; the last value stored
        // repeats over the frames past `valid`.
        if (at > bytes.size() || bytes.size() - at < 2)
            return detail::malformed(at, fmt::format("animation values run past the end of the data ({} bytes) at frame {}", bytes.size(), values.size()));
        const uint32_t valid = bytes[at], total = bytes[at + 1];
        if (total == 0) return detail::malformed(at, fmt::format("an animation run covers 0 frames (at frame {})", values.size()));
        if (valid == 0) return detail::malformed(at, fmt::format("an animation run stores no value (at frame {})", values.size()));
        if (bytes.size() - at - 2 < uint64_t(valid) * 2)
            return detail::malformed(at, fmt::format("an animation run's {} values run past the end of the data ({} bytes)", valid, bytes.size()));
        for (uint32_t k = 0; k < total && values.size() < frame_count; ++k)
            values.push_back(detail::i16_at(bytes, at + 2 + 2 * uint64_t(std::min(k, valid - 1))));
        at += 2 + 2 * uint64_t(valid);
    }
    return values;
}

namespace detail {

namespace {

struct Sequence {
    uint64_t at = 0;  // the record's offset
    std::string label;
    float fps = 0;
    uint32_t flags = 0;
    int32_t numframes = 0, numevents = 0, numblends = 0, animindex = 0, seqgroup = 0;
    std::array<float, 3> linearmovement{};
};

Sequence read_sequence(std::span<const uint8_t> b, uint64_t at) {
    Sequence s;
    s.at = at;
    s.label = name_at(b, at, 32);
    s.fps = f32_at(b, at + 32);
    s.flags = u32_at(b, at + 36);
    s.numevents = i32_at(b, at + 48);
    s.numframes = i32_at(b, at + 56);
    for (int c = 0; c < 3; ++c) s.linearmovement[size_t(c)] = f32_at(b, at + 76 + 4 * uint64_t(c));
    s.numblends = i32_at(b, at + 120);
    s.animindex = i32_at(b, at + 124);
    s.seqgroup = i32_at(b, at + 156);
    return s;
}

// The side file names a sequence group may have: NAME01.mdl after the model's own stem, then the
// file name the group records (its folder, a path from the game's root, dropped).
std::vector<std::string> group_names(const Reader& r, std::span<const uint8_t> b, uint64_t record, int32_t group) {
    std::vector<std::string> names;
    for (auto& stem : r.stems) names.push_back(fmt::format("{}{:02}.mdl", stem, group));
    std::string stored = name_at(b, record + 32, 64);
    std::replace(stored.begin(), stored.end(), '\\', '/');
    if (const size_t slash = stored.rfind('/'); slash != std::string::npos) stored = stored.substr(slash + 1);
    if (!stored.empty() && std::find(names.begin(), names.end(), stored) == names.end()) names.push_back(stored);
    return names;
}

}  // namespace

Status read_sequences(Reader& r) {
    const auto b = r.bytes;
    const int32_t numseq = i32_at(b, at_numseq), seqindex = i32_at(b, at_numseq + 4);
    const int32_t numgroups = i32_at(b, at_numseqgroups), groupindex = i32_at(b, at_numseqgroups + 4);
    if (auto st = check_table(b, r.options, "sequences", at_numseq, numseq, seqindex, seqdesc_size); !st) return st;
    if (auto st = check_table(b, r.options, "sequence groups", at_numseqgroups, numgroups, groupindex, seqgroup_size); !st) return st;
    if (numseq > 0 && r.bones.empty()) return malformed(at_numseq, fmt::format("{} sequences but no bones to animate", numseq));

    // Budgets before anything is decoded: frames in all (LoadOptions::max_frames) and floats of
    // the tracks in all (max_elements), so a small file cannot ask for gigabytes.
    uint64_t frames_in_all = 0;
    for (int32_t i = 0; i < numseq; ++i) {
        const uint64_t at = uint64_t(seqindex) + uint64_t(i) * seqdesc_size;
        const int32_t n = i32_at(b, at + 56);
        if (n < 0) return malformed(at + 56, fmt::format("sequence {}: {} frames", i, n));
        frames_in_all += uint64_t(n);
        if (frames_in_all > r.options.max_frames)
            return make_error(ErrorCode::LimitExceeded, fmt::format("the sequences hold more than {} frames in all", r.options.max_frames), at + 56);
        if (frames_in_all * r.bones.size() * 8 > r.options.max_elements)
            return make_error(ErrorCode::LimitExceeded,
                              fmt::format("the sequences' frames times {} bones exceed the limit of {} values", r.bones.size(), r.options.max_elements), at + 56);
    }

    // Group files, read once each when a sequence uses them; nullopt = not found (warned).
    std::map<int32_t, std::optional<std::vector<uint8_t>>> groups;
    std::vector<std::string> multi_blend;
    uint64_t with_events = 0, non_finite = 0;
    for (int32_t i = 0; i < numseq; ++i) {
        const Sequence s = read_sequence(b, uint64_t(seqindex) + uint64_t(i) * seqdesc_size);
        const std::string name = s.label.empty() ? fmt::format("sequence{}", i) : s.label;
        if (s.seqgroup < 0 || (s.seqgroup > 0 && s.seqgroup >= numgroups))
            return malformed(s.at + 156, fmt::format("sequence '{}': group {} of {}", name, s.seqgroup, numgroups));
        if (s.numblends < 1) return malformed(s.at + 120, fmt::format("sequence '{}': {} blends", name, s.numblends));
        if (s.numblends > 1) multi_blend.push_back(name);
        if (s.numevents > 0) ++with_events;

        // Where the channels' records are: this file (group 0, at the group's data offset plus
        // animindex), or the group file from its start.
        std::span<const uint8_t> data = b;
        uint64_t base = 0;
        std::string where = "the model";
        if (s.seqgroup == 0) {
            const int32_t group_data = numgroups > 0 ? i32_at(b, uint64_t(groupindex) + 100) : 0;
            if (group_data < 0) return malformed(uint64_t(groupindex) + 100, fmt::format("sequence group 0: data offset {}", group_data));
            base = uint64_t(group_data);
        } else {
            auto [it, fresh] = groups.try_emplace(s.seqgroup);
            if (fresh) {
                const uint64_t record = uint64_t(groupindex) + uint64_t(s.seqgroup) * seqgroup_size;
                std::string why;
                auto file = r.side_file(group_names(r, b, record, s.seqgroup), why);
                if (!file) {
                    r.warn(WarningCode::PartMissing, fmt::format("sequence group {}: {}; its sequences are left out", s.seqgroup, why));
                } else if (file->second.size() < seqgroup_header_size || u32_at(file->second, 0) != magic_idsq ||
                           u32_at(file->second, 4) != studio_version) {
                    r.warn(WarningCode::PartMissing, fmt::format("sequence group {}: '{}' is not an IDSQ version 10 file; its sequences are left out",
                                                                 s.seqgroup, file->first));
                } else {
                    it->second = std::move(file->second);
                }
            }
            if (!it->second) continue;
            data = *it->second;
            where = fmt::format("sequence group file {}", s.seqgroup);
        }
        base += uint64_t(uint32_t(s.animindex));
        if (s.animindex < 0 || !io::range_fits(base, r.bones.size(), anim_size, data.size()))
            return malformed(s.at + 124, fmt::format("sequence '{}': {} channel records at {} run past the end of {} ({} bytes)", name, r.bones.size(),
                                                    base, where, data.size()));

        Animation a;
        a.name = name;
        a.frame_count = uint32_t(s.numframes);
        a.loop = (s.flags & seq_looping) != 0;
        float rate = s.fps;
        // The last key's time must be a float too (a denormal rate would put it at infinity).
        if (std::isfinite(s.fps) && s.fps > 0 && std::isfinite(float(double(std::max(1, s.numframes) - 1) / double(s.fps)))) {
            a.frame_rate = s.fps;
        } else {
            r.warn(WarningCode::ZeroFrameRate, fmt::format("sequence '{}': frame rate {}; {} used", name, s.fps, default_frame_rate), s.at + 32);
            rate = default_frame_rate;
        }
        if (s.linearmovement != std::array<float, 3>{0, 0, 0})
            r.warn(WarningCode::Ignored, fmt::format("sequence '{}': linear movement ({} {} {}) left to the game (it moves the entity)", name,
                                                     s.linearmovement[0], s.linearmovement[1], s.linearmovement[2]), s.at + 76);
        const uint32_t frames = std::max<uint32_t>(1, a.frame_count);
        std::vector<float> times(frames);
        for (uint32_t f = 0; f < frames; ++f) times[f] = float(double(f) / double(rate));

        for (size_t j = 0; j < r.bones.size(); ++j) {
            const Bone& bone = r.bones[j];
            const uint64_t record = base + j * anim_size;
            // Six channels: frame values, default + value * scale; a channel without data keeps the default.
            std::array<std::vector<double>, 6> channel;
            bool moves[2] = {false, false};
            for (int c = 0; c < 6; ++c) {
                const uint16_t offset = u16_at(data, record + 2 * uint64_t(c));
                if (offset == 0) {
                    channel[size_t(c)].assign(1, bone.value[size_t(c)]);
                    continue;
                }
                auto values = decode_anim_values(data, record + offset, frames);
                if (!values) {
                    Error e = values.error();
                    e.message = fmt::format("sequence '{}', bone '{}', channel {}: {}{}", name, bone.name, c, e.message,
                                            s.seqgroup == 0 ? "" : fmt::format(" (in {})", where));
                    if (s.seqgroup != 0) e.offset = s.at + 124;  // the place in this file that leads there
                    return e;
                }
                channel[size_t(c)].resize(frames);
                for (uint32_t f = 0; f < frames; ++f) {
                    double v = double(bone.value[size_t(c)]) + double((*values)[f]) * double(bone.scale[size_t(c)]);
                    if (!std::isfinite(float(v))) v = bone.value[size_t(c)], ++non_finite;
                    channel[size_t(c)][f] = v;
                }
                moves[c / 3] = true;
            }
            auto at = [&](int c, uint32_t f) { return channel[size_t(c)].size() == 1 ? channel[size_t(c)][0] : channel[size_t(c)][f]; };
            for (int kind = 0; kind < 2; ++kind) {
                JointTrack t;
                t.joint = uint32_t(j);
                t.channel = kind == 0 ? Channel::Translation : Channel::Rotation;
                const uint32_t keys = moves[kind] ? frames : 1;  // a channel that does not move: one key
                t.times.assign(times.begin(), times.begin() + keys);
                t.values.reserve(size_t(keys) * t.components());
                for (uint32_t f = 0; f < keys; ++f) {
                    if (kind == 0) {
                        for (int c = 0; c < 3; ++c) t.values.push_back(float(at(c, f)));
                    } else {
                        const auto q = angle_quaternion(at(3, f), at(4, f), at(5, f));
                        for (double v : q) t.values.push_back(float(v));
                    }
                }
                a.tracks.push_back(std::move(t));
            }
        }
        r.scene.animations.push_back(std::move(a));
    }
    if (!multi_blend.empty())
        r.warn(WarningCode::Ignored, fmt::format("{} sequence(s) with blends ('{}' ...): only the first blend read", multi_blend.size(), multi_blend.front()));
    if (non_finite)
        r.warn(WarningCode::NonFiniteValue, fmt::format("{} animation values beyond a float's range replaced by the bone's default", non_finite));
    if (with_events) r.warn(WarningCode::Ignored, fmt::format("animation events (sounds, effects) of {} sequence(s)", with_events));
    return Ok{};
}

}  // namespace detail
}  // namespace rigport::hlmdl

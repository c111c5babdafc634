// IQM validation: the docs/iqm.md §9 rules 1-12 that parse() tolerates, checked on the decoded records.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>
#include <string_view>

#include "support/excerpt.hpp"
#include "formats/iqm/iqm.hpp"
#include "process/adjacency.hpp"
#include "rigport/process.hpp"

namespace rigport::iqm {

namespace {

using Report = ValidationReport;

struct Section {
    const char* name;
    uint64_t count;
    uint32_t ofs;
    uint64_t size;  // bytes per element
};

std::vector<Section> sections(const Header& h) {
    const bool v1 = h.version == 1;
    return {
        {"text", h.num_text, h.ofs_text, 1},
        {"meshes", h.num_meshes, h.ofs_meshes, mesh_size},
        {"vertexarrays", h.num_vertexarrays, h.ofs_vertexarrays, vertexarray_size},
        {"triangles", h.num_triangles, h.ofs_triangles, triangle_size},
        {"adjacency", h.num_triangles, h.ofs_adjacency, triangle_size},
        {"joints", h.num_joints, h.ofs_joints, v1 ? joint_size_v1 : joint_size_v2},
        {"poses", h.num_poses, h.ofs_poses, v1 ? pose_size_v1 : pose_size_v2},
        {"anims", h.num_anims, h.ofs_anims, anim_size},
        {"frames", uint64_t(h.num_frames) * h.num_framechannels, h.ofs_frames, 2},
        {"bounds", h.num_frames, h.ofs_bounds, bounds_size},
        {"comment", h.num_comment, h.ofs_comment, 1},
        {"extensions", h.num_extensions, h.ofs_extensions, extension_size},
    };
}

constexpr const char* type_names[7] = {"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights", "color"};

std::string array_name(const IqmFile& f, uint32_t type) {
    if (type < 7) return type_names[type];
    if (type < IQM_CUSTOM) return fmt::format("reserved type {}", type);
    return fmt::format("custom '{}'", detail::excerpt(f.string_at(type - IQM_CUSTOM)));
}

void check_header(std::span<const uint8_t> bytes, const IqmFile& f, Report& r) {
    const Header& h = f.header;
    if (h.version == 1)
        r.add(Severity::Info, "header.version1", "IQM version 1: joint and pose rotations have no stored w (it is reconstructed)", 16);
    if (h.filesize < bytes.size())
        r.add(Severity::Warning, "header.filesize",
              fmt::format("filesize is {} but the file has {} bytes (FTEQW rejects such files)", h.filesize, bytes.size()), 20);
    if (h.flags != 0) r.add(Severity::Warning, "header.flags", fmt::format("header flags {:#x}: no flag is defined", h.flags), 24);
}

void check_ranges(const IqmFile& f, Report& r) {
    const Header& h = f.header;
    struct Span {
        uint64_t begin, end;
        std::string what;
    };
    std::vector<Span> spans{{0, header_size, "header"}};
    for (auto& s : sections(h)) {
        if (s.count == 0 && s.ofs != 0)
            r.add(Severity::Warning, "range.offset_without_data",
                  fmt::format("{}: offset {} given for an empty section (must be 0)", s.name, s.ofs));
        if (s.ofs != 0 && s.ofs % 4 != 0)
            r.add(Severity::Warning, "range.unaligned", fmt::format("{}: offset {} is not 4-byte aligned", s.name, s.ofs), s.ofs);
        // The extension list is a chain; only its records and payloads (below) occupy bytes.
        if (s.count > 0 && s.ofs != 0 && std::string_view(s.name) != "extensions")
            spans.push_back({s.ofs, s.ofs + s.count * s.size, s.name});
    }
    for (auto& va : f.vertexarrays) {
        if (va.format > max_format) continue;
        const uint64_t comp = component_size(static_cast<ComponentType>(va.format));
        const uint64_t align = std::max<uint64_t>(comp, 4);
        if (h.num_vertexes > 0 && va.offset % align != 0)
            r.add(Severity::Warning, "range.unaligned",
                  fmt::format("vertex array {}: data offset {} is not {}-byte aligned", array_name(f, va.type), va.offset, align),
                  va.offset);
        if (h.num_vertexes > 0)
            spans.push_back({va.offset, va.offset + uint64_t(h.num_vertexes) * va.size * comp,
                             fmt::format("vertex array {}", array_name(f, va.type))});
    }
    for (auto& e : f.extensions) {
        spans.push_back({e.record_offset, e.record_offset + extension_size, "extension record"});
        if (e.num_data > 0) spans.push_back({e.ofs_data, uint64_t(e.ofs_data) + e.num_data, "extension data"});
    }
    std::sort(spans.begin(), spans.end(), [](auto& a, auto& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    // Each span is compared with the furthest-reaching span before it, so every overlap with a
    // predecessor is seen without a quadratic scan.
    size_t reach = 0;
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].begin < spans[reach].end)
            r.add(Severity::Warning, "range.overlap",
                  fmt::format("{} [{}, {}) overlaps {} [{}, {})", spans[i].what, spans[i].begin, spans[i].end,
                              spans[reach].what, spans[reach].begin, spans[reach].end),
                  spans[i].begin);
        if (spans[i].end > spans[reach].end) reach = i;
    }
}

void check_text(const IqmFile& f, Report& r) {
    const Header& h = f.header;
    if (!f.text.empty() && f.text[0] != 0)
        r.add(Severity::Warning, "text.first_not_empty", "the text table does not start with the empty string (text[0] != 0)", h.ofs_text);
    uint64_t inside = 0;
    std::optional<uint32_t> first;
    auto name = [&](uint32_t ofs) {
        if (ofs == 0 || ofs >= f.text.size()) return;  // parse() rejected out-of-range names
        if (f.text[ofs - 1] != 0) {
            ++inside;
            if (!first) first = ofs;
        }
    };
    for (auto& m : f.meshes) name(m.name), name(m.material);
    for (auto& va : f.vertexarrays)
        if (va.type >= IQM_CUSTOM) name(va.type - IQM_CUSTOM);
    for (auto& j : f.joints) name(j.name);
    for (auto& a : f.anims) name(a.name);
    for (auto& e : f.extensions) name(e.name);
    if (inside)
        r.add(Severity::Warning, "text.inside_string",
              fmt::format("{} names point into the middle of a string (first at text offset {})", inside, *first), {}, inside);
}

void check_arrays(const IqmFile& f, Report& r) {
    std::set<uint32_t> seen;
    uint32_t previous = 0;
    bool ordered = true;
    for (size_t i = 0; i < f.vertexarrays.size(); ++i) {
        const auto& va = f.vertexarrays[i];
        const std::string what = array_name(f, va.type);
        if (va.type >= 7 && va.type < IQM_CUSTOM)
            r.add(Severity::Warning, "array.reserved_type", fmt::format("vertex array {} uses reserved type {}", i, va.type));
        if (!seen.insert(va.type).second)
            r.add(Severity::Warning, "array.duplicate", fmt::format("vertex array {}: a second {} array (ignored)", i, what));
        if (i > 0 && va.type < previous) ordered = false;
        previous = va.type;
        if (va.flags != 0)
            r.add(Severity::Warning, "array.flags", fmt::format("vertex array {} ({}): flags {:#x}: no flag is defined", i, what, va.flags));
        if (va.type < 7 && va.format <= max_format) {
            const RecommendedFormat& rec = recommended_format[va.type];
            if (static_cast<ComponentType>(va.format) != rec.format || va.size != rec.size)
                r.add(Severity::Warning, "array.format",
                      fmt::format("{} stored as {} x{}; the recommended format is {} x{} (some readers refuse others)", what,
                                  to_string(static_cast<ComponentType>(va.format)), va.size, to_string(rec.format), rec.size));
        }
    }
    if (!ordered) r.add(Severity::Warning, "array.order", "vertex arrays are not in ascending type order");
}

const VertexArray* find_array(const IqmFile& f, uint32_t type) {
    for (auto& va : f.vertexarrays)
        if (va.type == type) return &va;
    return nullptr;
}

void check_meshes(const IqmFile& f, Report& r) {
    const VertexArray* pos = find_array(f, IQM_POSITION);
    auto position = [&](uint32_t v) {
        std::array<double, 3> p{0, 0, 0};
        if (!pos) return p;
        for (uint32_t k = 0; k < std::min<uint32_t>(pos->size, 3); ++k) {
            uint64_t i = uint64_t(v) * pos->size + k;
            if (i < pos->values.size()) p[k] = pos->values[i];
        }
        return p;
    };
    uint64_t outside = 0, degenerate = 0;
    for (size_t m = 0; m < f.meshes.size(); ++m) {
        const auto& mesh = f.meshes[m];
        const uint64_t lo = mesh.first_vertex, hi = uint64_t(mesh.first_vertex) + mesh.num_vertexes;
        if (mesh.num_vertexes > 65535)
            r.add(Severity::Info, "mesh.large",
                  fmt::format("mesh {} has {} vertices: more than 16-bit indices reach (raylib)", m, mesh.num_vertexes));
        for (uint64_t t = mesh.first_triangle; t < uint64_t(mesh.first_triangle) + mesh.num_triangles && t < f.triangles.size(); ++t) {
            const Triangle& tri = f.triangles[t];
            bool out = false;
            for (uint32_t v : tri) out |= v < lo || v >= hi;
            outside += out;
            if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) {
                ++degenerate;
                continue;
            }
            auto a = position(tri[0]), b = position(tri[1]), c = position(tri[2]);
            std::array<double, 3> e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
            if (pos && x == 0 && y == 0 && z == 0) ++degenerate;
        }
    }
    if (outside)
        r.add(Severity::Warning, "mesh.index_outside",
              fmt::format("{} triangles use vertices outside their mesh's own range", outside), {}, outside);
    if (degenerate)
        r.add(Severity::Info, "mesh.degenerate", fmt::format("{} triangles are degenerate (repeated vertex or zero area)", degenerate),
              {}, degenerate);
}

// Compared with the adjacency the writer stores, keyed on the same stored numbers, so a file
// rigport wrote always matches.
void check_adjacency(const IqmFile& f, Report& r) {
    if (!f.has_adjacency) return;
    const uint64_t n = f.triangles.size();
    uint64_t bad = 0;
    for (auto& a : f.adjacency)
        for (uint32_t t : a) bad += t != no_neighbor && t >= n;
    if (bad) {
        r.add(Severity::Error, "adjacency.range", fmt::format("{} adjacency entries name a triangle >= {}", bad, n), f.header.ofs_adjacency, bad);
        return;
    }
    const AdjacencyComparison c = compare_adjacency(f.adjacency, compute_adjacency(f));
    r.tallies.push_back(Tally{"adjacency", {{"valid", c.valid}, {"wrong", c.wrong + c.extra}, {"missing", c.missing}, {"open", c.open}}});
    const uint64_t wrong = c.wrong + c.extra;
    if (wrong == 0 && c.missing == 0) {
        r.add(Severity::Info, "adjacency.correct",
              fmt::format("stored adjacency matches a correct computation: {} neighbours, {} open edges", c.valid, c.open));
        return;
    }
    r.add(wrong ? Severity::Warning : Severity::Info, "adjacency.incomplete",
          fmt::format("stored adjacency differs from a correct computation: {} valid, {} wrong, {} missing where a "
                      "neighbour exists, {} open edges ({} of {} entries store no neighbour); a writer recomputes it",
                      c.valid, wrong, c.missing, c.open, c.missing + c.open, 3 * n),
          f.header.ofs_adjacency, wrong + c.missing);
}

void check_joints(const IqmFile& f, Report& r) {
    const auto& joints = f.joints;
    uint64_t order = 0, non_unit = 0, bad_scale = 0, positive_w = 0, nonuniform = 0, roots = 0;
    std::vector<bool> rotated(joints.size(), false);
    for (size_t j = 0; j < joints.size(); ++j) {
        const auto& jt = joints[j];
        roots += jt.parent < 0;
        if (jt.parent >= static_cast<int64_t>(j)) ++order;
        const auto& q = jt.rotate;
        double len = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
        if (std::abs(1.0 - len) > 1e-3) ++non_unit;
        // Identity rotations are exempt: the compiler itself writes them with w = +1.
        if (q[3] > 0 && !(q[0] == 0 && q[1] == 0 && q[2] == 0)) ++positive_w;
        rotated[j] = std::abs(std::abs(q[3]) - 1.0f) > 1e-6f;
        for (float s : jt.scale) bad_scale += !(s > 0);
    }
    for (size_t j = 0; j < joints.size(); ++j) {
        const int32_t p = joints[j].parent;
        if (p < 0 || size_t(p) >= joints.size() || !rotated[j]) continue;
        const auto& s = joints[size_t(p)].scale;
        if (std::abs(s[0] - s[1]) > 1e-5f * std::abs(s[0]) || std::abs(s[0] - s[2]) > 1e-5f * std::abs(s[0])) ++nonuniform;
    }
    if (order) r.add(Severity::Warning, "joint.parent_order", fmt::format("{} joints have a parent that is not an earlier joint", order), {}, order);
    if (non_unit)
        r.add(Severity::Warning, "joint.quaternion", fmt::format("{} joint rotations are not unit quaternions (|1-|q|| > 1e-3)", non_unit), {}, non_unit);
    if (bad_scale) r.add(Severity::Warning, "joint.scale", fmt::format("{} joint scale components are <= 0", bad_scale), {}, bad_scale);
    if (nonuniform)
        r.add(Severity::Warning, "joint.nonuniform_scale",
              fmt::format("{} rotated joints have a parent with non-uniform scale (no exact TRS decomposition)", nonuniform), {}, nonuniform);
    if (positive_w)
        r.add(Severity::Info, "joint.positive_w", fmt::format("{} joint rotations have w > 0 (the compiler writes w <= 0)", positive_w), {}, positive_w);
    if (roots > 1) r.add(Severity::Info, "joint.several_roots", fmt::format("{} root joints", roots), {}, roots);
}

void check_poses(const IqmFile& f, Report& r) {
    const Header& h = f.header;
    if (h.num_joints > 0 && h.num_poses > 0 && h.num_poses != h.num_joints)
        r.add(Severity::Error, "pose.count", fmt::format("num_poses {} != num_joints {}", h.num_poses, h.num_joints), 76);
    if (h.num_joints == 0 && h.num_poses > 0)
        r.add(Severity::Info, "pose.animation_only",
              fmt::format("animation only: {} poses without joints (no names, no bind pose; binds by index)", h.num_poses));
    const uint32_t channels = h.version == 1 ? 9 : 10;
    uint64_t sum = 0, bad_mask = 0, parent_mismatch = 0;
    for (size_t p = 0; p < f.poses.size(); ++p) {
        const auto& pose = f.poses[p];
        if (pose.channelmask >> channels) ++bad_mask;
        sum += std::popcount(pose.channelmask & ((1u << channels) - 1));
        if (p < f.joints.size() && pose.parent != f.joints[p].parent) ++parent_mismatch;
    }
    if (bad_mask)
        r.add(Severity::Error, "pose.mask", fmt::format("{} poses set channel mask bits >= {}", bad_mask, channels), h.ofs_poses, bad_mask);
    if (sum != h.num_framechannels)
        r.add(Severity::Error, "pose.framechannels",
              fmt::format("num_framechannels is {} but the channel masks set {} bits", h.num_framechannels, sum), 96);
    if (parent_mismatch)
        r.add(Severity::Warning, "pose.parent", fmt::format("{} poses have a parent different from their joint's", parent_mismatch),
              h.ofs_poses, parent_mismatch);
}

void check_anims(const IqmFile& f, Report& r) {
    const Header& h = f.header;
    std::set<std::string> names;
    for (size_t i = 0; i < f.anims.size(); ++i) {
        const auto& a = f.anims[i];
        const std::string name = f.string_at(a.name);
        const uint64_t at = h.ofs_anims + i * anim_size;
        if (uint64_t(a.first_frame) + a.num_frames > h.num_frames)
            r.add(Severity::Error, "anim.range",
                  fmt::format("animation '{}': frames [{}, {}) beyond num_frames {}", detail::excerpt(name), a.first_frame,
                              uint64_t(a.first_frame) + a.num_frames, h.num_frames), at);
        if (!(a.framerate > 0) || !std::isfinite(a.framerate))
            r.add(Severity::Warning, "anim.framerate",
                  fmt::format("animation '{}': framerate {} (the compiler writes 0 when none was given)", detail::excerpt(name), a.framerate), at + 12);
        if (a.flags & ~IQM_LOOP)
            r.add(Severity::Warning, "anim.flags", fmt::format("animation '{}': unknown flags {:#x}", detail::excerpt(name), a.flags & ~IQM_LOOP), at + 16);
        if (!names.insert(name).second)
            r.add(Severity::Warning, "anim.duplicate_name", fmt::format("animation name '{}' is used twice", detail::excerpt(name)), at);
        if (a.num_frames == 1) r.add(Severity::Info, "anim.single_frame", fmt::format("animation '{}' has one frame", detail::excerpt(name)), at);
    }
}

void check_blends(const IqmFile& f, Report& r) {
    const VertexArray* idx = find_array(f, IQM_BLENDINDEXES);
    const VertexArray* wgt = find_array(f, IQM_BLENDWEIGHTS);
    if (!idx && !wgt) return;
    const Header& h = f.header;
    if (h.num_joints == 0 && h.num_poses == 0) {
        r.add(Severity::Warning, "blend.without_joints", "blend arrays without joints or poses");
        return;
    }
    if (!idx || !wgt) {
        r.add(Severity::Warning, "blend.incomplete", idx ? "blend indexes without blend weights" : "blend weights without blend indexes");
        return;
    }
    const uint32_t skeleton = h.num_joints ? h.num_joints : h.num_poses;
    const bool ubyte = wgt->format == uint32_t(ComponentType::UInt8);
    const uint32_t n = std::min(idx->size, wgt->size);
    uint64_t bad_sum = 0, out_of_range = 0, unsorted = 0;
    for (uint64_t v = 0; v < h.num_vertexes; ++v) {
        double sum = 0, previous = INFINITY;
        bool sorted = true;
        for (uint32_t k = 0; k < n; ++k) {
            const uint64_t ii = v * idx->size + k, wi = v * wgt->size + k;
            if (ii >= idx->values.size() || wi >= wgt->values.size()) break;
            const double w = wgt->values[wi];
            sum += w;
            if (w > previous) sorted = false;
            previous = w;
            if (w > 0 && idx->values[ii] >= skeleton) ++out_of_range;
        }
        if (ubyte && sum != 255) ++bad_sum;
        unsorted += !sorted;
    }
    if (out_of_range)
        r.add(Severity::Error, "blend.index_range", fmt::format("{} weighted blend indexes name a joint >= {}", out_of_range, skeleton),
              idx->offset, out_of_range);
    if (bad_sum)
        r.add(Severity::Warning, "blend.ubyte_sum", fmt::format("{} vertices have ubyte blend weights not summing to 255", bad_sum),
              wgt->offset, bad_sum);
    if (unsorted)
        r.add(Severity::Info, "blend.unsorted", fmt::format("{} vertices have blend weights not in descending order", unsorted),
              wgt->offset, unsorted);
}

// Stored bounds against a skinning recomputation; the tolerance is 1e-3 of the recomputed
// box's diagonal per frame (the compiler's double skinning vs ours).
void check_bounds(const IqmFile& f, const Scene* scene, Report& r) {
    if (f.bounds.empty()) return;
    uint64_t inverted = 0;
    for (auto& b : f.bounds)
        for (int k = 0; k < 3; ++k) inverted += b.bbmins[k] > b.bbmaxs[k];
    if (inverted) r.add(Severity::Warning, "bounds.inverted", fmt::format("{} bounds components have min > max", inverted), f.header.ofs_bounds, inverted);
    if (!scene || scene->meshes.empty()) return;
    // compute_frame_bounds() walks animations in order; that is the file's frame order when the
    // animations tile the frames.
    uint64_t next = 0;
    for (auto& a : f.anims) {
        if (a.first_frame != next) return;
        next += a.num_frames;
    }
    if (next != f.bounds.size()) return;
    const std::vector<FrameBounds> computed = compute_frame_bounds(*scene);
    if (computed.size() != f.bounds.size()) return;
    uint64_t off = 0;
    double worst = 0;
    std::optional<uint64_t> first;
    for (size_t i = 0; i < computed.size(); ++i) {
        const FrameBounds& c = computed[i];
        const BoundsRecord& s = f.bounds[i];
        double diag = 0, dev = 0;
        for (int k = 0; k < 3; ++k) {
            diag += double(c.max[k] - c.min[k]) * (c.max[k] - c.min[k]);
            dev = std::max({dev, std::abs(double(s.bbmins[k]) - c.min[k]), std::abs(double(s.bbmaxs[k]) - c.max[k])});
        }
        dev = std::max({dev, std::abs(double(s.xyradius) - c.xy_radius), std::abs(double(s.radius) - c.radius)});
        diag = std::sqrt(diag);
        const double rel = diag > 0 ? dev / diag : dev;
        if (rel > 1e-3) {
            ++off;
            worst = std::max(worst, rel);
            if (!first) first = i;
        }
    }
    if (off)
        r.add(Severity::Warning, "bounds.mismatch",
              fmt::format("{} of {} frames' stored bounds differ from the skinned vertices by more than 1e-3 of the diagonal "
                          "(first frame {}, worst {:.3g} of the diagonal)", off, computed.size(), *first, worst),
              f.header.ofs_bounds + *first * bounds_size, off);
}

void check_comment_and_extensions(const IqmFile& f, Report& r) {
    const Header& h = f.header;
    if (!f.comment.empty() && f.comment.back() != 0) {
        if (h.num_comment == 1)
            r.add(Severity::Info, "comment.exm", "num_comment = 1 with an unterminated comment: the iqm-exm exporter's convention", h.ofs_comment);
        else
            r.add(Severity::Warning, "comment.not_terminated", "the comment does not end in NUL", h.ofs_comment);
    }
    if (f.extensions.size() != h.num_extensions)
        r.add(Severity::Warning, "extension.count",
              fmt::format("num_extensions is {} but the list has {} records", h.num_extensions, f.extensions.size()), 116);
    for (auto& e : f.extensions) {
        const std::string name = f.string_at(e.name);
        if (name.rfind("FTE_", 0) == 0)
            r.add(Severity::Info, "extension.fte", fmt::format("FTEQW extension {} ({} bytes), kept byte for byte", detail::excerpt(name), e.num_data),
                  e.record_offset);
    }
}

}  // namespace

void validate(std::span<const uint8_t> bytes, const LoadOptions& options, ValidationReport& report) {
    Warnings warnings;
    auto file = parse(bytes, options, warnings);
    if (!file) {
        report.add(Severity::Error, "structure", file.error().message, file.error().offset);
        return;
    }
    const IqmFile& f = *file;
    // The scene is needed for the recomputation of bounds; if it cannot be built the
    // loader reports why, and the record-level checks still run.
    auto scene = to_scene(f, warnings);
    const Scene* s = scene ? &*scene : nullptr;

    check_header(bytes, f, report);
    check_ranges(f, report);
    check_text(f, report);
    check_arrays(f, report);
    check_meshes(f, report);
    check_adjacency(f, report);
    check_joints(f, report);
    check_poses(f, report);
    check_anims(f, report);
    check_blends(f, report);
    check_bounds(f, s, report);
    check_comment_and_extensions(f, report);
}

}  // namespace rigport::iqm

// JOE validation: VDrift's limits as compatibility findings, winding against stored normals, the
// normal-swap heuristic and the value checks of docs/joe.md §9 rules 5-6.
#include <fmt/format.h>

#include <cmath>
#include <unordered_set>

#include "formats/joe/joe.hpp"

namespace rigport::joe {

namespace {

using Report = ValidationReport;

void check_header(const JoeFile& f, Report& r) {
    if (f.magic == 0)
        r.add(Severity::Info, "joe.magic_zero", "magic 0: written by trackeditor's dof2joe, whose normals may be in DOF axes (see vdrift.normal_swap)", 0);
    if (f.num_faces > vdrift_max_faces)
        r.add(Severity::Error, "vdrift.face_limit",
              fmt::format("{} faces: VDrift refuses a JOE with more than {} (\"{} faces (max {})\")", f.num_faces, vdrift_max_faces,
                          f.num_faces, vdrift_max_faces),
              8);
    if (f.num_faces == 0) r.add(Severity::Warning, "joe.empty", "num_faces is 0: VDrift asserts on an empty mesh", 8);
    if (f.frames.size() > 1)
        r.add(Severity::Info, "joe.frames", fmt::format("{} frames: VDrift reads them all but renders frame 0 only", f.frames.size()), 12);
}

void check_indices(const JoeFile& f, Report& r) {
    for (size_t fi = 0; fi < f.frames.size(); ++fi) {
        const Frame& fr = f.frames[fi];
        uint64_t high = 0;
        std::optional<uint64_t> first;
        for (size_t i = 0; i < fr.faces.size(); ++i) {
            const Face& face = fr.faces[i];
            for (auto* idx : {&face.vertex, &face.normal, &face.texcoord})
                for (int k = 0; k < 3; ++k)
                    if ((*idx)[k] > signed_index_max && !high++) first = face_offset(fr, i);
        }
        if (high)
            r.add(Severity::Warning, "compat.signed_index",
                  fmt::format("frame {}: {} indices above {}: current VDrift reads them unsigned, but old VDrift, Stunt Rally and the "
                              "Blender importer read signed shorts and go negative", fi, high, signed_index_max),
                  first, high);
        if (fr.num_texcoords == 0)
            r.add(Severity::Info, "joe.no_texcoords",
                  fmt::format("frame {}: no texcoords; VDrift (and rigport) substitute (0,0) for texture index 0", fi), fr.counts_offset + 4);
        // Unused entries of each array.
        std::vector<bool> used_v(fr.num_verts), used_n(fr.num_normals), used_t(fr.num_texcoords);
        for (auto& face : fr.faces)
            for (int k = 0; k < 3; ++k) {
                used_v[face.vertex[k]] = true;
                used_n[face.normal[k]] = true;
                if (!used_t.empty()) used_t[face.texcoord[k]] = true;
            }
        const uint64_t unused_v = std::count(used_v.begin(), used_v.end(), false);
        const uint64_t unused_n = std::count(used_n.begin(), used_n.end(), false);
        const uint64_t unused_t = std::count(used_t.begin(), used_t.end(), false);
        if (unused_v + unused_n + unused_t)
            r.add(Severity::Info, "joe.unused",
                  fmt::format("frame {}: unused entries: {} of {} verts, {} of {} normals, {} of {} texcoords", fi, unused_v, fr.num_verts,
                              unused_n, fr.num_normals, unused_t, fr.num_texcoords),
                  fr.counts_offset, unused_v + unused_n + unused_t);
        std::unordered_set<uint64_t> corners;
        for (auto& face : fr.faces)
            for (int k = 0; k < 3; ++k)
                corners.insert(uint64_t(face.vertex[k]) | uint64_t(face.texcoord[k]) << 16 | uint64_t(face.normal[k]) << 32);
        if (corners.size() > 65535)
            r.add(Severity::Info, "joe.corners",
                  fmt::format("frame {}: {} unique (vertex, texcoord, normal) corners: more than 16-bit indices address (VDrift uses 32-bit)",
                              fi, corners.size()));
    }
}

void check_values(const JoeFile& f, Report& r) {
    for (size_t fi = 0; fi < f.frames.size(); ++fi) {
        const Frame& fr = f.frames[fi];
        uint64_t nonfinite = 0, zero = 0, degenerate = 0;
        std::optional<uint64_t> first_nonfinite, first_zero, first_degenerate;
        auto scan = [&](const float* v, size_t n, uint64_t at) {
            for (size_t k = 0; k < n; ++k)
                if (!std::isfinite(v[k])) {
                    if (!nonfinite++) first_nonfinite = at + 4 * k;
                }
        };
        for (size_t i = 0; i < fr.verts.size(); ++i) scan(fr.verts[i].data(), 3, fr.verts_offset + 12 * i);
        for (size_t i = 0; i < fr.normals.size(); ++i) {
            scan(fr.normals[i].data(), 3, fr.normals_offset + 12 * i);
            const Vec3& n = fr.normals[i];
            if (n[0] == 0 && n[1] == 0 && n[2] == 0 && !zero++) first_zero = fr.normals_offset + 12 * i;
        }
        for (size_t i = 0; i < fr.texcoords.size(); ++i) scan(fr.texcoords[i].data(), 2, fr.texcoords_offset + 8 * i);
        for (size_t i = 0; i < fr.faces.size(); ++i) {
            auto& v = fr.faces[i].vertex;
            if ((v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) && !degenerate++) first_degenerate = face_offset(fr, i);
        }
        if (nonfinite)
            r.add(Severity::Warning, "joe.non_finite", fmt::format("frame {}: {} NaN or infinite values (read as 0)", fi, nonfinite),
                  first_nonfinite, nonfinite);
        if (zero)
            r.add(Severity::Warning, "joe.zero_normal", fmt::format("frame {}: {} zero-length normals", fi, zero), first_zero, zero);
        if (degenerate)
            r.add(Severity::Warning, "joe.degenerate",
                  fmt::format("frame {}: {} degenerate faces (a repeated vertex index)", fi, degenerate), first_degenerate, degenerate);
    }
}

// Winding per frame with the 90% majority rule of docs/joe.md §5, and VDrift's heuristic.
void check_winding_and_swap(const JoeFile& f, Report& r) {
    const Frame& f0 = f.frames.front();
    const WindingCounts w = count_winding(f0, false);
    const uint64_t decided = w.agree + w.disagree;
    const std::string counts = fmt::format("{} agree / {} disagree / {} perpendicular", w.agree, w.disagree, w.perpendicular);
    if (decided == 0) {
        r.add(Severity::Info, "winding.undetermined", fmt::format("frame 0: winding against the stored normals is undetermined ({})", counts));
    } else if (w.disagree * 10 >= decided * 9) {
        r.add(Severity::Warning, "winding.cw",
              fmt::format("frame 0: clockwise relative to the stored normals ({}): culled with VDrift's CCW front a track object "
                          "shows its back faces (car parts are never culled)", counts),
              {}, w.disagree);
    } else if (w.agree * 10 >= decided * 9) {
        r.add(Severity::Info, "winding.ccw", fmt::format("frame 0: counter-clockwise relative to the stored normals ({})", counts));
    } else {
        r.add(Severity::Warning, "winding.mixed", fmt::format("frame 0: mixed winding against the stored normals ({})", counts), {},
              std::min(w.agree, w.disagree));
    }
    for (size_t fi = 0; fi < f.frames.size(); ++fi) {
        const Frame& fr = f.frames[fi];
        const uint64_t perpendicular = count_perpendicular(fr);
        const uint64_t limit = fr.faces.size() / 4;
        if (perpendicular <= limit) continue;
        const WindingCounts before = count_winding(fr, false), after = count_winding(fr, true);
        const bool helps = after.agree + after.disagree > before.agree + before.disagree &&
                           std::max(after.agree, after.disagree) > 2 * std::min(after.agree, after.disagree);
        r.add(Severity::Warning, "vdrift.normal_swap",
              fmt::format("frame {}: VDrift's normal-swap heuristic fires ({} of {} faces perpendicular to their normals, limit {}): "
                          "VDrift turns every normal into (x, -z, y). Before: {} / {} / {}, after: {} / {} / {} "
                          "(agree / disagree / perpendicular): {}. 'rigport convert --fix-normals' applies the swap",
                          fi, perpendicular, fr.faces.size(), limit, before.agree, before.disagree, before.perpendicular, after.agree,
                          after.disagree, after.perpendicular,
                          helps ? "the swap fixes the normals" : "the swap does not help (a misfire)"),
              fr.offset, perpendicular);
        break;  // VDrift swaps once, for every frame, when any frame fires
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
    for (auto& w : warnings.items) report.add(Severity::Warning, "joe.magic", w.message, w.offset, w.count);
    check_header(*file, report);
    check_indices(*file, report);
    check_values(*file, report);
    check_winding_and_swap(*file, report);
}

}  // namespace rigport::joe

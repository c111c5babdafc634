// IQM v2 writer: Scene -> IqmFile -> bytes in the reference compiler's order and alignment
// (iqm.txt v2 2011-05-31; docs/iqm.md §1 and §3.2 steps 5-11). The parts: iqm_write_arrays.cpp,
// iqm_write_anim.cpp and iqm_serialize.cpp.
#include <algorithm>
#include <cmath>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/format.h>

#include "formats/common/embedded_images.hpp"
#include "formats/common/frame_budget.hpp"
#include "support/huge_pages.hpp"
#include "support/thread_pool.hpp"
#include "formats/iqm/iqm_write_parts.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::iqm {

namespace {

// IQM names a material by its texture, so a material whose only map is a diffuse texture of
// the same name (or one the scene holds, whose file name is written), with default colours,
// loses nothing when written as its name.
bool material_is_its_name(const Material& m) {
    const Material plain;
    const bool maps_ok = m.maps.empty() || (m.maps.size() == 1 && m.maps[0].type == TextureType::Diffuse &&
                                            (m.maps[0].uri == m.name || m.maps[0].image >= 0));
    return maps_ok && m.diffuse == plain.diffuse && m.ambient == plain.ambient && m.specular == plain.specular &&
           m.emissive == plain.emissive && m.shininess == plain.shininess;
}

}  // namespace

using namespace write_detail;

// ---- the writer ------------------------------------------------------------------------------------

// from_scene(), or with `lean` the records without vertex-array values (write()'s path).
static Expected<IqmFile> build_file(const Scene& input, const SaveOptions& options, LeanArrays* lean) {
    // IQM is Z up with clockwise front faces: a scene in other conventions is written from a copy
    // converted to them (a glTF scene is Y up and counter-clockwise).
    const std::optional<Scene> converted = iqm_conventions_copy(input);
    const Scene& scene = converted ? *converted : input;
    if (auto st = check_invariants(scene); !st) return st.error();
    if (auto st = detail::check_frame_budget(scene, options, "IQM"); !st) return st.error();
    if (scene.vertex_count() > uint32_limit || scene.triangle_count() > uint32_limit)
        return make_error(ErrorCode::LimitExceeded, fmt::format("{} vertices and {} triangles do not fit IQM's uint32 counts",
                                                                scene.vertex_count(), scene.triangle_count()));
    Warnings* warnings = options.warnings;
    const auto& joints = scene.skeleton.joints;
    IqmFile file;
    TextTable text;

    // Text order as the compiler's: per mesh its name and material, then custom arrays, joints,
    // animations, extensions.
    uint32_t first_vertex = 0, first_triangle = 0;
    detail::reserve_huge(file.triangles, scene.triangle_count());
    for (auto& m : scene.meshes) {
        MeshRecord rec;
        rec.name = text.add(m.name);
        rec.material = text.add(m.material >= 0 ? detail::material_text(scene.materials[m.material]) : std::string());
        rec.first_vertex = first_vertex;
        rec.num_vertexes = m.vertex_count();
        rec.first_triangle = first_triangle;
        rec.num_triangles = uint32_t(m.triangles.size());
        for (auto& t : m.triangles) file.triangles.push_back({first_vertex + t[0], first_vertex + t[1], first_vertex + t[2]});
        first_vertex += rec.num_vertexes;
        first_triangle += rec.num_triangles;
        file.meshes.push_back(rec);
    }
    if (warnings)
        for (auto& mat : scene.materials)
            if (!material_is_its_name(mat))
                warnings->add(WarningCode::DroppedData, "IQM materials are names only; texture maps and colours were not written");
    file.header.num_vertexes = first_vertex;

    std::vector<ArrayPlan> plans = plan_arrays(scene);
    for (auto& p : plans)
        if (p.type == IQM_CUSTOM) p.type = IQM_CUSTOM + text.add(p.name);
    // Custom types must ascend; a name shared with an earlier string has a smaller offset.
    std::stable_sort(plans.begin(), plans.end(), [](auto& a, auto& b) { return a.type < b.type; });
    fill_arrays(scene, plans, file, warnings, options.threads, lean);

    // The adjacency (from the stored arrays and triangles) runs beside the joints, animations and
    // bounds, which touch neither: two independent results, the same whichever finishes first.
    // The adjacency's large temporaries stay on this thread (parallel_invoke's first task).
    auto adjacency = [&] {
        if (file.triangles.empty()) return;
        file.has_adjacency = true;
        if (!lean) {
            file.adjacency = compute_adjacency(file);  // keyed on the stored arrays, as validate() is
            return;
        }
        // The same keys, from the raw numbers; freed before the edges are matched.
        uint32_t endpoints = 0;
        const std::vector<uint32_t> endpoint = number_endpoints(lean->keys, endpoints);
        lean->keys = EndpointKeys{};
        file.adjacency = rigport::compute_adjacency(file.triangles, endpoint, endpoints);
    };
    Status animated = Ok{};
    auto animation = [&] {
        if (!joints.empty() && (!scene.skeleton.animation_only || options.force_joints))
            for (auto& j : joints) {
                JointRecord rec;
                rec.name = text.add(j.name);
                rec.parent = j.parent;
                rec.translate = j.bind.translate;
                rec.rotate = j.bind.rotate;
                rec.scale = j.bind.scale;
                file.joints.push_back(rec);
            }

        if (!scene.animations.empty() && !joints.empty()) {
            auto decoded = build_animations(scene, text, file);
            if (!decoded) {
                animated = decoded.error();
                return;
            }
            std::vector<FrameBounds> bounds = decoded_bounds(scene, *decoded, options.threads);
            if (bounds.size() == file.header.num_frames)
                for (auto& b : bounds) file.bounds.push_back({b.min, b.max, b.xy_radius, b.radius});
        } else if (!scene.animations.empty() && warnings) {
            warnings->add(WarningCode::DroppedData, fmt::format("{} animations were not written: IQM animates joints and the scene has none",
                                                                scene.animations.size()));
        }
    };
    // A small model stays on this thread: waking another costs more than it saves.
    const bool large = detail::chunk_count(file.triangles.size(), 1 << 14) > 1;
    detail::parallel_invoke(large ? options.threads : 1, adjacency, animation);
    if (!animated) return animated.error();

    if (!scene.meta.comment.empty()) {
        file.comment.assign(scene.meta.comment.begin(), scene.meta.comment.end());
        file.comment.push_back(0);
        file.comment.resize(round_up(file.comment.size(), 4), 0);
    }
    if (scene.meta.source_format == "iqm")
        for (auto& e : scene.meta.extensions) {
            ExtensionRecord rec;
            rec.name = text.add(e.name);
            rec.num_data = uint32_t(e.data.size());
            rec.data = e.data;
            if (e.data.size() > uint32_limit) return make_error(ErrorCode::LimitExceeded, fmt::format("extension '{}' is too large", e.name));
            file.extensions.push_back(std::move(rec));
        }
    file.text = text.finish();

    Layout layout = plan_layout(file);
    if (layout.filesize > uint32_limit)
        return make_error(ErrorCode::LimitExceeded, fmt::format("the IQM file would be {} bytes; its offsets are 32-bit", layout.filesize));
    file.header = layout.header;
    for (size_t a = 0; a < file.vertexarrays.size(); ++a) file.vertexarrays[a].offset = layout.array_offsets[a];
    for (size_t e = 0; e < file.extensions.size(); ++e) {
        ExtensionRecord& rec = file.extensions[e];
        rec.record_offset = layout.extension_offsets[e];
        rec.ofs_data = rec.num_data ? uint32_t(rec.record_offset + extension_size) : 0;
        rec.ofs_extensions = e + 1 < file.extensions.size() ? layout.extension_offsets[e + 1] : 0;
    }
    return file;
}

Expected<IqmFile> from_scene(const Scene& scene, const SaveOptions& options) { return build_file(scene, options, nullptr); }

// Lays the records out in the compiler's order (§3.2 step 11). Offsets and counts come from the
// records themselves, except num_vertexes, num_frames and num_framechannels from the header;
// short value lists are padded with zeros so the layout always matches the header.

// The records without raw vertex numbers, then the bytes: the same as serialize(from_scene()).
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options) {
    LeanArrays lean;
    auto file = build_file(scene, options, &lean);
    if (!file) return file.error();
#if defined(__GLIBC__)
    // The steps before leave tens of MB freed inside the heap (after a large file was read,
    // glibc serves even large blocks from it), which stay resident; given back before the
    // output, the largest block, is built: peak RSS 111 -> 94 MB on the 500k-triangle compile.
    // Small models (a batch's) keep theirs for the next one to reuse.
    if (file->header.num_vertexes >= (1u << 16)) malloc_trim(0);
#endif
    return write_detail::serialize(*file, options.threads, &lean.bytes);
}

}  // namespace rigport::iqm

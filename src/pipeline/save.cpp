// save(): the writer chosen by format or extension, its files written together by write_output (write.cpp).
#include <fmt/format.h>

#include "pipeline/cannot_hold.hpp"

#include <filesystem>
#include <optional>

#include "formats/common/embedded_images.hpp"
#include "support/excerpt.hpp"
#include "formats/common/finite.hpp"
#include "formats/common/xml_text.hpp"
#include "model/guarded.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"

namespace rigport {

namespace {

Error with_path(Error e, const std::string& path) {
    if (e.path.empty()) e.path = path;
    return e;
}

// The images an output names as its materials' texture files, as files beside it, as its row
// says (FormatInfo::texture_files): IQM, IQE and JOE name one texture per material a mesh uses; a
// .cfg writes every material, a .crf/.xrf material 0, an .obj's .mtl every material. Skeleton,
// mesh and animation files name none, and glTF writes its images itself.
std::vector<OutputFile> embedded_image_files(const Scene& scene, TextureFiles policy) {
    if (scene.images.empty() || policy == TextureFiles::none) return {};
    std::vector<bool> written(scene.materials.size(), false);
    const bool one_texture = policy == TextureFiles::diffuse_of_used;
    if (one_texture)
        for (auto& mesh : scene.meshes)
            if (mesh.material >= 0 && size_t(mesh.material) < written.size()) written[size_t(mesh.material)] = true;
    if (policy == TextureFiles::every_material) written.assign(written.size(), true);
    if (policy == TextureFiles::first_material && !written.empty()) written[0] = true;
    return detail::embedded_image_files(scene, written, one_texture);
}

}  // namespace

static Expected<Output> save_scene(const Scene& scene, const std::string& path, const FormatInfo* f, const SaveOptions& options);

static Expected<Output> save_output_unguarded(const Scene& scene, const std::string& path, const SaveOptions& options) {
    const FormatInfo* f = options.format.empty() ? find_format_by_extension(path) : find_format(options.format);
    if (!f)
        return with_path(make_error(options.format.empty() ? ErrorCode::UnknownFormat : ErrorCode::InvalidArgument,
                                    options.format.empty() ? "cannot tell the output format from the extension"
                                                           : fmt::format("unknown format '{}'", options.format)),
                         path);
    if (!f->write) return with_path(make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", f->name)), path);
    // The output's unit (docs/units.md): the format's own (glTF and IQM are in metres), unless the
    // caller keeps the source's numbers or names another. A scene that needs scaling is copied.
    double target = f->metres_per_unit;
    if (options.unit == "keep") target = 0;
    else if (!options.unit.empty()) {
        const auto metres = unit_metres(options.unit);
        if (!metres)
            return with_path(make_error(ErrorCode::InvalidArgument, fmt::format("unknown unit '{}' (expected keep, {})", detail::excerpt(options.unit), unit_names())), path);
        target = *metres;
    }
    std::optional<Scene> scaled;
    if (target > 0 && scene.meta.unit_scale > 0 && scene.meta.unit_scale != target) {
        scaled = scene;
        convert_units(*scaled, target);
    }
    return save_scene(scaled ? *scaled : scene, path, f, options);
}

static Expected<Output> save_scene(const Scene& scene, const std::string& path, const FormatInfo* f, const SaveOptions& options) {
    // Every writer is handed a scene that holds together (docs/python.md, "Editing a scene"):
    // indices in range, arrays sized to their vertices, offsets that cover the influences. A scene
    // built or edited by a caller (the Python module's NumPy views are writable) is checked here,
    // once, so no writer reads past an array or copies memory into a file.
    if (auto st = check_invariants(scene); !st) return with_path(st.error(), path);
    // No format holds NaN or infinity: refused before any writer runs, as an input problem.
    if (auto st = detail::check_finite_for_writing(scene, f->repairs_normals); !st) return with_path(st.error(), path);
    // An output storing names as XML text (Cal3D XML) cannot hold every byte a name may have.
    if (f->writes_xml_text && f->writes_xml_text(options))
        if (auto st = detail::check_xml_text_for_writing(scene); !st) return with_path(st.error(), path);
    // The writer reports into a list of its own: the Output carries it whether or not the caller
    // gave one, so no warning is lost.
    Warnings warnings;
    // What the output cannot hold, from the row: said the same way for every format.
    detail::warn_what_cannot_be_held(scene, *f, warnings);
    SaveOptions reporting = options;
    reporting.warnings = &warnings;
    auto out = f->write(scene, path, reporting);
    if (!out) return with_path(out.error(), path);
    if (!f->embeds_images || !f->embeds_images(options))
        for (auto& file : embedded_image_files(scene, f->texture_files)) out->side_files.push_back(std::move(file));
    if (out->format.empty()) out->format = f->name;
    for (auto& w : warnings.items) {
        if (w.path.empty()) w.path = path;
        if (options.warnings) options.warnings->add_warning(w);
    }
    out->warnings = std::move(warnings);
    return out;
}

Expected<Output> save_output(const Scene& scene, const std::string& path, const SaveOptions& options) {
    return detail::guarded(path, "writing", [&] { return save_output_unguarded(scene, path, options); });
}

static Expected<std::vector<uint8_t>> save_bytes_unguarded(const Scene& scene, const std::string& path, const SaveOptions& options) {
    SaveOptions one_file = options;
    one_file.gltf.embed_buffer = true;
    auto out = save_output(scene, path, one_file);
    if (!out) return out.error();
    if (!out->side_files.empty())
        return with_path(make_error(ErrorCode::Unsupported, fmt::format("this output needs a side file ('{}'); use save()",
                                                                        out->side_files.front().name)),
                         path);
    return std::move(out->bytes);
}

Expected<std::vector<uint8_t>> save_bytes(const Scene& scene, const std::string& path, const SaveOptions& options) {
    return detail::guarded(path, "writing", [&] { return save_bytes_unguarded(scene, path, options); });
}

static Status save_unguarded(const Scene& scene, const std::string& path, const SaveOptions& options) {
    auto out = save_output(scene, path, options);
    if (!out) return out.error();
    return write_output(path, *out);
}

Status save(const Scene& scene, const std::string& path, const SaveOptions& options) {
    return detail::guarded(path, "writing", [&] { return save_unguarded(scene, path, options); });
}

}  // namespace rigport

// The registry as JSON (`rigport formats --json`): what each row declares, for the Blender add-on's
// menus and other programs that must not keep a list of formats of their own (docs/formats.md).
#include <nlohmann/json.hpp>

#include "rigport/formats.hpp"

namespace rigport {

namespace {

using Json = nlohmann::ordered_json;

Json strings(const std::vector<std::string_view>& list) {
    Json out = Json::array();
    for (auto s : list) out.push_back(std::string(s));
    return out;
}

const char* texture_files_name(TextureFiles t) {
    switch (t) {
        case TextureFiles::none: return "none";
        case TextureFiles::diffuse_of_used: return "diffuse_of_used";
        case TextureFiles::every_material: return "every_material";
        case TextureFiles::first_material: return "first_material";
    }
    return "none";
}

}  // namespace

std::string formats_json() {
    Json rows = Json::array();
    for (const FormatInfo& f : formats()) {
        const FormatHolds& h = f.holds;
        Json holds = {{"meshes", h.meshes},   {"skeleton", h.skeleton},   {"animation", h.animation},
                      {"morphs", h.morphs},   {"morph_animation", h.morph_animation},
                      {"colours", h.colours}, {"materials", h.materials}, {"images", f.holds_images},
                      {"max_influences", f.max_influences}};
        holds["uv_sets"] = h.uv_sets == FormatHolds::any_uv_sets ? Json("any") : Json(h.uv_sets);
        holds["colour_sets"] = !h.colours ? Json(0) : h.colour_sets == FormatHolds::any_uv_sets ? Json("any") : Json(h.colour_sets);
        for (auto [key, value] : {std::pair{"skin", h.skin}, {"normals", h.normals}, {"tangents", h.tangents}, {"custom_arrays", h.custom_arrays},
                                  {"joint_scales", h.joint_scales}, {"cloth", h.cloth}, {"one_part", h.one_part},
                                  {"vertex_frames", h.vertex_frames}})
            holds[key] = value;
        rows.push_back(Json{{"name", std::string(f.name)},
                            {"description", std::string(f.description)},
                            {"extensions", strings(f.extensions)},
                            {"read", f.read != nullptr},
                            {"write", f.write != nullptr},
                            {"validate", !f.read ? "no" : f.validate ? "bytes+scene" : "scene"},
                            {"detect", f.detect != nullptr},
                            {"holds", holds},
                            {"texture_files", texture_files_name(f.texture_files)},
                            {"member_extensions", strings(f.member_extensions)},
                            {"animation_only_extensions", strings(f.animation_only_extensions)},
                            {"single_file_extension", std::string(f.single_file_extension)},
                            {"writer_options", strings(f.writer_options)}});
    }
    // Archives of models (a VDrift JPK pack): no format row, but callers that list files by
    // extension (the Blender add-on's import menu) take them from here too.
    Json packs = Json::array();
    for (const ArchiveInfo& a : archives())
        packs.push_back(Json{{"name", std::string(a.name)}, {"description", std::string(a.description)}, {"extensions", strings(a.extensions)}});
    return Json{{"formats", rows}, {"archives", packs}}.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rigport

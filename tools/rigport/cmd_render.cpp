// `rigport render MODEL... -o preview.png`: a picture of a model (docs/cli.md, docs/render.md).
#include <charconv>
#include <filesystem>
#include <memory>

#include "convert_model.hpp"
#include "rigport/render.hpp"

namespace rigport::cli {

namespace {

struct RenderArgs {
    std::vector<std::string> inputs;
    std::string output, anim, view, background = "2c3038";
    std::optional<std::string> size;
    std::optional<float> yaw, pitch, time;
    uint32_t frames = 6;
    std::optional<uint64_t> texture_budget;  // MiB
    bool wireframe = false, skeleton = false, no_textures = false, force = false, sheet = false;
    LoadFlags load;
    TextureFlags textures;  // --texture-path DIR...
};

// "WxH" with each side 1..max_render_side.
bool parse_size(const std::string& text, uint32_t& w, uint32_t& h) {
    const auto x = text.find('x');
    if (x == std::string::npos) return false;
    auto number = [](std::string_view s, uint32_t& v) {
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return ec == std::errc() && end == s.data() + s.size() && v >= 1 && v <= max_render_side;
    };
    return number(std::string_view(text).substr(0, x), w) && number(std::string_view(text).substr(x + 1), h);
}

// "RRGGBB" or "RRGGBBAA", an optional leading '#'.
bool parse_colour(std::string text, std::array<uint8_t, 4>& rgba) {
    if (!text.empty() && text[0] == '#') text.erase(0, 1);
    if (text.size() != 6 && text.size() != 8) return false;
    rgba[3] = 255;
    for (size_t k = 0; k < text.size() / 2; ++k) {
        auto [end, ec] = std::from_chars(text.data() + 2 * k, text.data() + 2 * k + 2, rgba[k], 16);
        if (ec != std::errc() || end != text.data() + 2 * k + 2) return false;
    }
    return true;
}

// --texture-budget's ceiling: 64 GiB of decoded textures, more than the machine would hold.
constexpr uint64_t max_texture_budget_mib = 64 << 10;

int run_render(const RenderArgs& a) {
    RenderOptions options;
    // A sheet's --size is each cell's; its cells are smaller by default.
    const std::string size = a.size ? *a.size : a.sheet ? "192x192" : "512x512";
    if (!parse_size(size, options.width, options.height))
        return fail(usage_error(fmt::format("--size '{}': expected WIDTHxHEIGHT, each 1 to {}", size, max_render_side)), exit_usage, false);
    if (a.sheet && a.time)
        return fail(usage_error("--time has no meaning with --sheet: its cells are evenly spaced over each animation (--frames)"), exit_usage,
                    false);
    if (a.time && a.anim.empty())
        return fail(usage_error("--time needs --anim: it is seconds into that animation, and the bind pose has no time"), exit_usage,
                    false);
    if (!a.sheet && a.frames != 6) return fail(usage_error("--frames is for --sheet"), exit_usage, false);
    if (a.texture_budget && *a.texture_budget > max_texture_budget_mib)
        return fail(usage_error(fmt::format("--texture-budget {}: must be 0 to {} (MiB)", *a.texture_budget, max_texture_budget_mib)),
                    exit_usage, false);
    if (a.no_textures && a.texture_budget) return fail(usage_error("--texture-budget has no meaning with --no-textures"), exit_usage, false);
    if (a.no_textures && !a.textures.paths.empty()) return fail(usage_error("--texture-path has no meaning with --no-textures"), exit_usage, false);
    if (auto st = a.textures.check(); !st) return fail(st.error(), exit_usage, false);
    if (a.texture_budget) options.max_texture_bytes = *a.texture_budget << 20;
    if (a.frames == 0 || a.frames > 64)
        return fail(usage_error(fmt::format("--frames {}: must be 1 to 64", a.frames)), exit_usage, false);
    if (!parse_colour(a.background, options.background))
        return fail(usage_error(fmt::format("--background '{}': expected RRGGBB or RRGGBBAA in hexadecimal", a.background)), exit_usage, false);
    if (!a.view.empty() && !view_angles(a.view, options.yaw, options.pitch))
        return fail(usage_error(fmt::format("--view '{}': expected front, side, top, iso or three-quarter", a.view)), exit_usage, false);
    if (a.yaw) options.yaw = *a.yaw;
    if (a.pitch) options.pitch = *a.pitch;
    options.time = a.time.value_or(0.0f);
    options.wireframe = a.wireframe;
    options.skeleton = a.skeleton;

    // The picture may replace none of the inputs, nor any file they read.
    WriteOptions write_options;
    write_options.force = a.force;
    for (auto& p : a.inputs) write_options.protect.push_back(input_file(p));
    if (auto st = check_output(a.output, write_options); !st) return fail(st.error(), write_exit_code(st.error()), false);

    std::vector<CompileInput> inputs;
    for (auto& p : a.inputs) inputs.push_back(CompileInput{{p}, {}});
    CompileOptions compile_options;
    compile_options.load = a.load.load_options();
    compile_options.load.on_read = [&write_options](const std::string& path) { write_options.protect.push_back(path); };
    print_companions(a.inputs.front(), add_companions(inputs, compile_options.load));
    auto scene = compile(inputs, compile_options);
    if (!scene) return fail(scene.error(), read_exit_code(scene.error()), false);
    Warnings warnings = std::move(scene->warnings);

    if (!a.anim.empty()) {
        for (size_t i = 0; i < scene->animations.size() && options.animation < 0; ++i)
            if (scene->animations[i].name == a.anim) options.animation = int32_t(i);
        if (options.animation < 0) {
            std::string names;
            for (auto& an : scene->animations) names += (names.empty() ? "'" : ", '") + an.name + "'";
            return fail(usage_error(fmt::format("--anim '{}': the model has no such animation ({})", a.anim,
                                                names.empty() ? "it has none" : "it has " + names)),
                        exit_usage, false);
        }
    }
    if (!a.no_textures) {
        ImageOptions images;
        images.search_dir = std::filesystem::path(input_file(a.inputs.front())).parent_path().string();
        images.model_path = a.inputs.front();
        images.allow_outside = a.load.allow_outside;
        images.texture_paths = a.textures.paths;
        images.on_read = compile_options.load.on_read;
        auto textures = load_render_textures(*scene, images, options.max_texture_bytes, warnings);
        if (!textures) return fail(textures.error(), read_exit_code(textures.error()), false);
        options.textures = std::move(*textures);
    }
    if (draws_skeleton_only(*scene) && !scene->skeleton.joints.empty())
        warnings.add(WarningCode::Interpreted, "the model has no mesh: its skeleton is drawn");
    Expected<RenderImage> image = RenderImage{};
    if (a.sheet) {
        SheetOptions sheet;
        sheet.only = options.animation;
        options.animation = -1;
        sheet.cell = std::move(options);
        sheet.frames = a.frames;
        Warnings sheet_warnings;
        image = render_sheet(*scene, sheet, &sheet_warnings);
        sheet_warnings.set_path(a.inputs.front());
        for (auto& w : sheet_warnings.items) warnings.add_warning(w);
    } else {
        image = render(*scene, options);
    }
    // A bad option value is a usage error (1); a model too costly to draw is an input problem (2).
    if (!image) return fail(image.error(), read_exit_code(image.error()), false);
    print_warnings(warnings);
    const auto png = encode_png(*image);
    if (auto st = write_file_atomic(a.output, png, write_options); !st) return fail(st.error(), write_exit_code(st.error()), false);
    return exit_ok;
}

}  // namespace

Verb add_render(CLI::App& app) {
    auto a = std::make_shared<RenderArgs>();
    CLI::App* sub = app.add_subcommand("render", "Draw a picture of a model (PNG): shaded and textured, framed from its bounds, on the CPU");
    sub->add_option("MODEL", a->inputs, "Model file; several files (a mesh and its animations, a Cal3D set) are one model, as in 'convert'")
        ->required();
    sub->add_option("-o,--output", a->output, "The PNG to write")->required();
    sub->add_option("--anim", a->anim, "Draw this animation's pose (by name) instead of the bind pose; with --sheet, its row only");
    sub->add_option("--time", a->time, "Seconds into --anim (clamped to its keys; default 0); needs --anim");
    sub->add_flag("--sheet", a->sheet, "A contact sheet: a row of evenly spaced poses per animation, labelled with its name and times");
    sub->add_option("--frames", a->frames, "Poses per row of --sheet, its start to its end (default 6, at most 64)");
    sub->add_option("--view", a->view, "front, side, top, iso or three-quarter (the default)");
    sub->add_option("--yaw", a->yaw, "Degrees about the up axis the camera sits at (0 = front, 90 = the model's +X side)");
    sub->add_option("--pitch", a->pitch, "Degrees above the horizon the camera sits at (90 = from the top)");
    sub->add_option("--size", a->size, "Image size WIDTHxHEIGHT (default 512x512); with --sheet, each cell's (default 192x192)");
    sub->add_option("--background", a->background, "Background colour RRGGBB or RRGGBBAA (default 2c3038)");
    sub->add_flag("--wireframe", a->wireframe, "Draw triangle edges over the shading");
    sub->add_flag("--skeleton", a->skeleton, "Draw bones and joints over the model");
    sub->add_flag("--no-textures", a->no_textures, "Material colours only: no texture is looked for");
    sub->add_option("--texture-budget", a->texture_budget,
                    "MiB of decoded texture pixels (RGBA) at most, all textures together (default 256); a texture past it is drawn "
                    "without, with a warning");
    sub->add_flag("--force", a->force, "Replace a read-only output");
    a->load.add_to(sub);
    a->textures.add_to(sub);
    return {sub, [a]() { return run_render(*a); }};
}

}  // namespace rigport::cli

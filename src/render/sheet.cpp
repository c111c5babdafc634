// render_sheet(): every animation as a row of evenly spaced poses, labelled (render.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "render/picture.hpp"
#include "rigport/process.hpp"
#include "rigport/render.hpp"

// stb's ASCII font made of quads (Debian's libstb): its functions are static in the header.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace rigport {

namespace {

// Bytes the font cannot draw (outside printable ASCII) become '?'.
std::string printable_ascii(const std::string& text) {
    std::string out = text;
    for (char& c : out)
        if (c < 32 || c > 126) c = '?';
    return out;
}

// Draws text with its top-left at (x, y), each font unit `scale` pixels, clipped to the image.
void draw_text(RenderImage& image, int32_t x, int32_t y, std::string text, uint32_t scale, const std::array<uint8_t, 4>& colour) {
    text = printable_ascii(text);
    std::vector<char> buffer(text.size() * 300 + 64);  // the font's own estimate: ~270 bytes a character
    struct Vertex {
        float x, y, z;
        uint8_t c[4];
    };
    const int quads = stb_easy_font_print(0, 0, text.data(), nullptr, buffer.data(), int(buffer.size()));
    const auto* v = reinterpret_cast<const Vertex*>(buffer.data());
    for (int q = 0; q < quads; ++q) {
        // Axis-aligned quads: the box of their four corners.
        float x0 = v[4 * q].x, y0 = v[4 * q].y, x1 = x0, y1 = y0;
        for (int k = 1; k < 4; ++k) {
            x0 = std::min(x0, v[4 * q + k].x), x1 = std::max(x1, v[4 * q + k].x);
            y0 = std::min(y0, v[4 * q + k].y), y1 = std::max(y1, v[4 * q + k].y);
        }
        for (int64_t py = int64_t(std::lround(y0 * scale)) + y; py < int64_t(std::lround(y1 * scale)) + y; ++py)
            for (int64_t px = int64_t(std::lround(x0 * scale)) + x; px < int64_t(std::lround(x1 * scale)) + x; ++px)
                if (px >= 0 && py >= 0 && px < int64_t(image.width) && py < int64_t(image.height))
                    std::copy(colour.begin(), colour.end(), image.rgba.begin() + (py * int64_t(image.width) + px) * 4);
    }
}

// Light text on a dark background, dark on a light one.
std::array<uint8_t, 4> text_colour(const std::array<uint8_t, 4>& background) {
    const int luma = (background[0] * 299 + background[1] * 587 + background[2] * 114) / 1000;
    return luma < 128 ? std::array<uint8_t, 4>{230, 232, 236, 255} : std::array<uint8_t, 4>{24, 26, 30, 255};
}

// The work of one cell (render.hpp, SheetOptions::max_work): posing its joints and vertices (a
// vertex once more per morph target of its mesh), drawing its triangles.
uint64_t cell_work_of(const Scene& scene) {
    uint64_t work = scene.skeleton.joints.size();
    for (auto& mesh : scene.meshes) work += uint64_t(mesh.vertex_count()) * (1 + mesh.morph_targets.size()) + mesh.triangles.size();
    return std::max<uint64_t>(work, 1);
}

}  // namespace

Expected<RenderImage> render_sheet(const Scene& input, const SheetOptions& options, Warnings* warnings, SheetStats* stats) {
    // Each cell's bounds and picture would turn a Z- or X-up scene on a copy of their own: turned
    // once here, render() takes the Y-up scene as it is.
    std::optional<Scene> turned;
    if (input.meta.up == UpAxis::Z || input.meta.up == UpAxis::X) {
        turned = input;
        convert_to_y_up(*turned);
    }
    const Scene& scene = turned ? *turned : input;
    if (options.frames == 0 || options.frames > 64)
        return make_error(ErrorCode::InvalidArgument, fmt::format("{} frames a row: must be 1 to 64", options.frames));
    if (options.only >= int32_t(scene.animations.size()))
        return make_error(ErrorCode::InvalidArgument, fmt::format("animation {} does not exist (the model has {})", options.only,
                                                                  scene.animations.size()));
    if (auto st = render_detail::check_options(scene, options.cell); !st) return st.error();
    if (auto st = render_detail::check_drawable(scene); !st) return st.error();
    // Rows: the animations asked for; a scene without any shows its bind pose alone.
    std::vector<int32_t> rows;
    if (options.only >= 0) rows.push_back(options.only);
    else
        for (size_t a = 0; a < scene.animations.size(); ++a) rows.push_back(int32_t(a));
    const bool bind_only = rows.empty();
    if (bind_only) rows.push_back(-1);
    const uint32_t columns = bind_only ? 1 : options.frames;

    // The work bound: whole rows while their cells fit, the rest named in a warning.
    const uint64_t cell_work = cell_work_of(scene), row_work = cell_work * columns;
    if (row_work > options.max_work)
        return make_error(ErrorCode::LimitExceeded,
                          fmt::format("a sheet row of {} cells of this model ({} joints, {} vertices, {} triangles, morph targets "
                                      "counted) costs {}, beyond the sheet's work budget of {}; fewer --frames, or one picture (no --sheet)",
                                      columns, scene.skeleton.joints.size(), scene.vertex_count(), scene.triangle_count(), row_work,
                                      options.max_work));
    if (const uint64_t fit = options.max_work / row_work; fit < rows.size()) {
        std::string names;
        for (size_t r = size_t(fit); r < rows.size(); ++r) {
            const Animation& a = scene.animations[size_t(rows[r])];
            if (names.size() > 400) {
                names += fmt::format(" and {} more", rows.size() - r);
                break;
            }
            names += (names.empty() ? "'" : ", '") + (a.name.empty() ? fmt::format("animation {}", rows[r]) : a.name) + "'";
        }
        if (warnings)
            warnings->add(WarningCode::DroppedData,
                          fmt::format("the sheet shows the first {} of {} animations: a row of {} cells of this model costs {}, the "
                                      "sheet's work budget is {}; not drawn: {} (--anim draws one of them)",
                                      fit, rows.size(), columns, row_work, options.max_work, names));
        rows.resize(size_t(fit));
    }

    const RenderOptions& cell = options.cell;
    const uint32_t scale = std::clamp<uint32_t>(cell.width / 160, 1, 4);
    char probe[] = "Ag";
    const uint32_t text_height = uint32_t(stb_easy_font_height(probe)) * scale;
    const uint32_t title = text_height + 8 * scale;
    const uint64_t width = uint64_t(cell.width) * columns, height = uint64_t(cell.height + title) * rows.size();
    if (width > max_render_side || height > max_render_side || width * height > max_render_samples)
        return make_error(ErrorCode::InvalidArgument,
                          fmt::format("a sheet of {} rows of {} cells of {}x{} is {}x{} pixels, beyond {} a side or {} in all; "
                                      "a smaller size or fewer frames",
                                      rows.size(), columns, cell.width, cell.height, width, height, max_render_side, max_render_samples));

    // Each cell posed once, kept until it is drawn; one framing for all of them: the union of
    // their bounds.
    auto time_of = [&](int32_t anim, uint32_t k) {
        if (anim < 0 || columns == 1) return 0.0f;
        return scene.animations[size_t(anim)].duration() * float(k) / float(columns - 1);
    };
    SheetStats counted;
    counted.rows = uint32_t(rows.size());
    std::vector<render_detail::Prepared> poses;
    poses.reserve(rows.size() * columns);
    std::array<double, 4> frame{INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int32_t anim : rows)
        for (uint32_t k = 0; k < columns; ++k) {
            RenderOptions o = cell;
            o.animation = anim;
            o.time = time_of(anim, k);
            if (auto st = render_detail::check_options(scene, o); !st) return st.error();  // a length that is no number
            poses.push_back(render_detail::prepare(scene, o));
            ++counted.cells;
            counted.work += cell_work;
            const auto& b = poses.back().bounds;
            frame = {std::min(frame[0], b[0]), std::min(frame[1], b[1]), std::max(frame[2], b[2]), std::max(frame[3], b[3])};
            if (!cell.skeleton) poses.back().world.clear();  // only the bounds needed the joints
        }
    if (stats) *stats = counted;

    RenderImage sheet;
    sheet.width = uint32_t(width);
    sheet.height = uint32_t(height);
    sheet.rgba.resize(size_t(width) * height * 4);
    for (size_t i = 0; i < sheet.rgba.size(); i += 4) std::copy(cell.background.begin(), cell.background.end(), sheet.rgba.begin() + i);
    const auto ink = text_colour(cell.background);
    for (size_t r = 0; r < rows.size(); ++r) {
        const int32_t anim = rows[r];
        const uint32_t top = uint32_t(r) * (cell.height + title);
        std::string heading = "bind pose";
        if (anim >= 0) {
            const Animation& a = scene.animations[size_t(anim)];
            heading = fmt::format("{}   {:.2f} s", a.name.empty() ? fmt::format("animation {}", anim) : a.name, a.duration());
            if (a.frame_rate > 0) heading += fmt::format(", {:g} fps", a.frame_rate);
            if (a.loop) heading += ", loop";
        }
        draw_text(sheet, int32_t(4 * scale), int32_t(top + 4 * scale), heading, scale, ink);
        for (uint32_t k = 0; k < columns; ++k) {
            RenderOptions o = cell;
            o.animation = anim;
            o.time = time_of(anim, k);
            o.frame = frame;
            render_detail::Prepared& pose = poses[r * columns + k];
            auto image = render_detail::draw(pose, o);
            pose = {};  // drawn: its memory back
            if (!image) return image.error();
            for (uint32_t y = 0; y < cell.height; ++y)
                std::copy_n(image->rgba.begin() + size_t(y) * cell.width * 4, size_t(cell.width) * 4,
                            sheet.rgba.begin() + ((size_t(top) + title + y) * width + size_t(k) * cell.width) * 4);
            if (anim >= 0)
                draw_text(sheet, int32_t(k * cell.width + 4 * scale), int32_t(top + title + cell.height - text_height - 4 * scale),
                          fmt::format("t = {:.2f} s", o.time), scale, ink);
        }
    }
    return sheet;
}

}  // namespace rigport

// OBJ reader, material libraries (.mtl, "Material Library File" of the Advanced Visualizer
// manual; docs/obj.md): newmtl, Ka Kd Ks Ke as RGB, Ns, d / Tr opacity, and the map_* texture
// statements. A .mtl is a side file: what is wrong in it is a warning naming it, never an error
// that loses the geometry.
#include <cfloat>
#include <cmath>

#include "support/excerpt.hpp"
#include "formats/obj/obj_parser.hpp"

namespace rigport::obj::detail {

namespace {

// The map statements read, by the texture type they give.
std::optional<TextureType> map_type(std::string_view k) {
    if (k == "map_Kd") return TextureType::Diffuse;
    if (k == "map_Ks") return TextureType::Specular;
    if (k == "map_Ka") return TextureType::Ambient;
    if (k == "map_Ke") return TextureType::Emissive;
    if (k == "map_d") return TextureType::Opacity;
    if (k == "map_bump" || k == "map_Bump" || k == "bump" || k == "norm" || k == "map_Norm") return TextureType::Normal;
    if (k == "map_Ns" || k == "refl" || k == "disp" || k == "decal" || k == "map_Pr" || k == "map_Pm") return TextureType::Other;
    return std::nullopt;
}

// Option arguments of a map statement (-o 1 2 3 ...): how many numbers or words each takes at most.
int option_arguments(std::string_view o) {
    if (o == "-o" || o == "-s" || o == "-t") return 3;
    if (o == "-mm") return 2;
    if (o == "-blendu" || o == "-blendv" || o == "-bm" || o == "-boost" || o == "-cc" || o == "-clamp" || o == "-imfchan" || o == "-texres" ||
        o == "-type")
        return 1;
    return -1;
}

}  // namespace

void Parser::read_mtl(const std::string& uri, std::span<const uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    io::TextCursor cur(text);
    Material* m = nullptr;
    auto warn_at = [&](WarningCode code, std::string message) {
        scene_.warnings.add(code, fmt::format("{}: {}", rigport::detail::excerpt(uri, 60), message), cur.line_offset());
    };
    auto rest = [&]() {
        cur.at_line_end();
        std::string_view r = cur.line_text().substr(cur.column() - 1);
        while (!r.empty() && io::TextCursor::is_blank(r.back())) r.remove_suffix(1);
        return r;
    };
    uint64_t count = 0;
    while (cur.next_line()) {
        const std::string_view k = cur.token();
        if (k.empty() || k[0] == '#') continue;
        if (k == "newmtl") {
            if (++count > options_.max_elements) {
                warn_at(WarningCode::Ignored, "more materials than LoadOptions::max_elements: the rest ignored");
                return;
            }
            const std::string name(rest());
            Material fresh;
            fresh.name = name;
            // OBJ's own default for an undefined Kd is 0.8 grey in many tools; the spec gives none,
            // so a material keeps the scene's defaults (white) until the file says otherwise.
            m = &(defined_[name] = std::move(fresh));
            continue;
        }
        if (!m) {
            warn_at(WarningCode::Ignored, fmt::format("'{}' before any newmtl ignored", rigport::detail::excerpt(k)));
            continue;
        }
        if (k == "Ka" || k == "Kd" || k == "Ks" || k == "Ke") {
            double c[3] = {};
            int n = 0;
            bool bad = false;
            for (std::string_view t = cur.token(); !t.empty() && t[0] != '#'; t = cur.token()) {
                double v = 0;
                if (n == 3 || io::TextCursor::parse_number(t, v) != Result::Ok || std::fabs(v) > FLT_MAX) {
                    bad = true;
                    break;
                }
                c[n++] = v;
            }
            // "Kd 0.5" is grey; "Kd spectral file.rfl" and "Kd xyz ..." are not RGB.
            if (bad || n == 0) {
                warn_at(WarningCode::Ignored, fmt::format("'{}' not three numbers (spectral and xyz colours are not read); ignored", k));
                continue;
            }
            if (n == 1) c[1] = c[2] = c[0];
            else if (n == 2) c[2] = c[1];
            Vec4& out = k == "Ka" ? m->ambient : k == "Kd" ? m->diffuse : k == "Ks" ? m->specular : m->emissive;
            for (int i = 0; i < 3; ++i) out[size_t(i)] = float(c[i]);
        } else if (k == "Ns" || k == "d" || k == "Tr") {
            std::string_view t = cur.token();
            if (k == "d" && t == "-halo") t = cur.token();  // the halo variant: its factor is read as plain d
            double v = 0;
            if (io::TextCursor::parse_number(t, v) != Result::Ok || std::fabs(v) > FLT_MAX) {
                warn_at(WarningCode::Ignored, fmt::format("'{}' without a number; ignored", k));
                continue;
            }
            if (k == "Ns") {
                m->shininess = float(v);
            } else {
                // d is opacity, Tr its complement (transparency), both 0..1.
                const double opacity = k == "d" ? v : 1.0 - v;
                if (opacity < 0 || opacity > 1) warn_at(WarningCode::ValueClamped, fmt::format("'{}' {} outside 0..1 clamped", k, v));
                m->diffuse[3] = float(std::clamp(opacity, 0.0, 1.0));
            }
        } else if (auto type = map_type(k)) {
            // map_Kd [-option args ...] file: the options are skipped; the file name is the rest of
            // the line, so names with blanks are kept.
            std::string_view r = rest();
            for (;;) {
                const size_t e = std::min(r.size(), r.find_first_of(" \t"));
                const std::string_view t = r.substr(0, e);
                const int args = option_arguments(t);
                if (args < 0) break;
                warn_at(WarningCode::Ignored, fmt::format("'{}' option '{}' ignored", k, t));
                auto skip = [&r](size_t n) {
                    r.remove_prefix(std::min(n, r.size()));
                    while (!r.empty() && io::TextCursor::is_blank(r.front())) r.remove_prefix(1);
                };
                skip(e);
                // Its arguments: words for the word options, else the numbers that follow (-o takes 1 to 3).
                const bool word = t == "-imfchan" || t == "-type" || t == "-blendu" || t == "-blendv" || t == "-clamp" || t == "-cc";
                for (int a = 0; a < args && !r.empty(); ++a) {
                    const size_t ae = std::min(r.size(), r.find_first_of(" \t"));
                    double v = 0;
                    if (!word && io::TextCursor::parse_number(r.substr(0, ae), v) != Result::Ok) break;
                    skip(ae);
                }
            }
            if (r.empty()) {
                warn_at(WarningCode::Ignored, fmt::format("'{}' without a file name; ignored", k));
                continue;
            }
            m->maps.push_back(TextureMap{*type, std::string(r), std::string(k), -1});
        } else if (k == "illum" || k == "Ni" || k == "Tf" || k == "sharpness" || k == "Pr" || k == "Pm" || k == "Ps" || k == "Pc" || k == "Pcr" ||
                   k == "aniso" || k == "anisor") {
            warn_at(WarningCode::Ignored, fmt::format("'{}' ignored (no place in rigport's material)", k));
        } else {
            warn_at(WarningCode::UnknownCommand, fmt::format("unknown keyword '{}' ignored", rigport::detail::excerpt(k)));
        }
    }
}

}  // namespace rigport::obj::detail

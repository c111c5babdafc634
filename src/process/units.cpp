// Units of length (docs/units.md): the names an output unit may be given, and the scaling from the
// scene's unit (Meta::unit_scale, metres per unit) to another.
#include <array>
#include <cmath>
#include <utility>

#include "rigport/process.hpp"

namespace rigport {

namespace {

// Each unit by its names, in metres. The FBX SDK's own units (UnitScaleFactor is centimetres per
// unit) and the ones modelling tools offer.
constexpr std::array<std::pair<std::string_view, double>, 17> units = {{
    {"m", 1.0},       {"metre", 1.0},      {"meter", 1.0},   {"dm", 0.1},     {"cm", 0.01},
    {"mm", 0.001},    {"km", 1000.0},      {"in", 0.0254},   {"inch", 0.0254}, {"ft", 0.3048},
    {"foot", 0.3048}, {"feet", 0.3048},    {"yd", 0.9144},   {"yard", 0.9144}, {"mi", 1609.344},
    {"mile", 1609.344}, {"centimetre", 0.01},
}};

}  // namespace

std::optional<double> unit_metres(std::string_view name) {
    for (const auto& [unit, metres] : units)
        if (unit == name) return metres;
    return std::nullopt;
}

std::string unit_names() {
    return "m, dm, cm, mm, km, inch, ft, yd, mile";
}

bool convert_units(Scene& scene, double metres_per_unit) {
    const double from = scene.meta.unit_scale;
    if (!(from > 0) || !std::isfinite(from) || !(metres_per_unit > 0) || !std::isfinite(metres_per_unit)) return false;
    const double factor = from / metres_per_unit;
    if (factor == 1.0) return false;
    TransformOptions scale;
    scale.scale = float(factor);
    apply_transform(scene, scale);
    scene.meta.unit_scale = float(metres_per_unit);
    scene.meta.stored_bounds.clear();  // measured in the old unit
    return true;
}

}  // namespace rigport

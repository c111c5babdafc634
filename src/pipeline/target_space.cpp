// convert --target: the engine's unit of length and the way its models face (docs/targets.md
// "Units, axes and names"). Axes themselves (Z up or Y up, the winding) are each output format's
// writer's job; what only the engine knows is how long a unit is and which way is the front.
#include <fmt/format.h>

#include "pipeline/target_fix.hpp"
#include "rigport/formats.hpp"
#include "rigport/process.hpp"

namespace rigport::detail {

bool fit_space(Scene& scene, const TargetProfile& profile, bool unit_given, std::vector<std::string>& fixes) {
    const FormatInfo* source = find_format(scene.meta.source_format);
    bool in_engine_unit = false;
    // Only a unit the source states is converted: a format that does not say (SMD, MD5, OBJ ...)
    // is usually already in its engine's units, and scaling a guess would break it.
    if (profile.metres_per_unit > 0 && !unit_given && source && source->states_unit) {
        const double from = scene.meta.unit_scale;
        if (convert_units(scene, profile.metres_per_unit))
            fixes.push_back(fmt::format("unit: scaled by {:.6g}, from the source's unit of {:.6g} m to {}'s of {:.6g} m ({}); a change of unit, "
                                        "not counted as displacement",
                                        from / profile.metres_per_unit, from, profile.name, profile.metres_per_unit, profile.unit_source));
        in_engine_unit = true;
    }
    // glTF's front is +Z with Y up; the Z-up writers keep X, so a quarter turn about Y (+Z to +X)
    // makes the written model face +X.
    if (profile.faces_plus_x && source && source->faces_plus_z && scene.meta.up == UpAxis::Y) {
        TransformOptions turn;
        turn.rotate_degrees = {0, 90, 0};
        apply_transform(scene, turn);
        fixes.push_back(fmt::format("facing: turned a quarter turn about the up axis, from +Z (the front of a {} model) to +X ({}); a turn of "
                                    "the whole model, not counted as displacement",
                                    source->name, profile.facing_source));
    }
    return in_engine_unit;
}

}  // namespace rigport::detail

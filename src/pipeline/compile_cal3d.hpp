// The compile front end's Cal3D part (compile_cal3d.cpp): the Cal3D inputs as one character.
#pragma once

#include <string>
#include <vector>

#include "rigport/compile.hpp"

namespace rigport::detail {

// Per-file animation options aimed at one animation of the character.
struct AnimationOptionsTarget {
    size_t animation = 0;
    AnimationInputOptions options;
};

struct Cal3dGroup {
    Scene scene;
    std::vector<AnimationOptionsTarget> targets;
};

// Loads every path of the inputs with load_cal3d_character (in the order given) and finds the
// animation each input's options aim at: the animation of a .caf/.xaf/.cpf/.xpf input, or the
// only animation of the character for a .cfg; options that aim at none are warned about.
Expected<Cal3dGroup> load_cal3d_group(const std::vector<CompileInput>& inputs, const LoadOptions& options);

}  // namespace rigport::detail

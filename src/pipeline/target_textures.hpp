// Textures against an engine profile (docs/targets.md "Textures"): the diffuse texture of each
// material a mesh uses, measured (check_target) and converted to what the engine loads
// (convert --target).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rigport/io.hpp"
#include "rigport/scene.hpp"
#include "rigport/targets.hpp"
#include "rigport/validate.hpp"

namespace rigport::detail {

// Adds one Error finding per texture rule broken ("target.texture_type", "target.texture_palette",
// "target.texture_power_of_two", "target.texture_size"), naming the first texture that breaks it,
// with the count of those that do.
void check_target_textures(const Scene& scene, const TargetProfile& profile, const std::vector<GltfImage>& found, ValidationReport& report);

// Converts each measured texture that breaks a rule into what the profile wants: its first image
// type that rigport writes (or its own type when the profile lists it), resized to fit the
// largest side and texel count, then up to powers of two where required, quantised to a
// palette of 256 where required. The new image is held by the scene (Scene::images) and every map
// that named the old texture names the new file: its base name with the new type's extension,
// unique among the scene's texture names and not a name `taken` refuses (an input beside the
// output). One message per texture in `fixes`. Returns the files to write beside the output
// (empty when the profile names no image types: the skin goes inside the model). Unsupported
// when a texture cannot be decoded or the profile lists no type rigport writes.
Expected<std::vector<OutputFile>> fit_textures_to_target(Scene& scene, const TargetProfile& profile, const std::vector<GltfImage>& found,
                                                         const std::function<bool(const std::string& name)>& taken,
                                                         std::vector<std::string>& fixes);

}  // namespace rigport::detail

// The canonical joint names of a whole skeleton (docs/retarget.md "Canonical names"): what the
// bone map and the motion's frames (hips, head, legs) look joints up by.
#pragma once

#include <string>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport {

// True when the skeleton is a Blender Rigify one (a joint named spine.NNN): its "spine" is the hips.
bool is_rigify(const Skeleton& skeleton);
// canonical_joint_name of every joint, knowing the whole skeleton (Rigify's spine); "" = unknown.
std::vector<std::string> canonical_names(const Skeleton& skeleton);

}  // namespace rigport

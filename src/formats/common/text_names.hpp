// Names for the text formats that quote them and bind animations to meshes by them (MD5, SMD):
// one writer rule, so both formats name the same skeleton the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::detail {

// "name" in double quotes, with the quotes and line breaks these formats cannot escape replaced
// (" -> ', line breaks -> space); changed is set when something was replaced.
std::string quoted(std::string_view name, bool& changed);

// Every joint's quoted name, unique and non-empty ("joint<i>" for an empty one, "<name>_<k>" for a
// repeat); changed is set when any differs from the joint's own name.
std::vector<std::string> unique_quoted_joint_names(const Skeleton& skeleton, bool& changed);

// True when a joint's bind pose or any animation key scales (formats whose poses hold none).
bool has_joint_scale(const Scene& scene);

}  // namespace rigport::detail

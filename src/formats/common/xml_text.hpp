// Names a Cal3D XML writer can hold (xml_text.cpp).
#pragma once

#include "rigport/scene.hpp"

namespace rigport::detail {

// Ok, or a Malformed error naming the first name (joint, mesh, morph target, material, texture,
// animation) holding a control character XML 1.0 cannot represent.
Status check_xml_text_for_writing(const Scene& scene);

}  // namespace rigport::detail

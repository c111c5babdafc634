// The studiomdl .qc lines a model read from a compiled studio model keeps for the .qc an SMD
// writer makes (docs/hlmdl.md "Kept for the .qc", docs/smd.md "The .qc the writer writes").
#pragma once

#include <string_view>

namespace rigport::detail {

// Scene::meta.extensions entry whose data is .qc command lines ($controller, $hbox,
// $attachment), one per line, each ending in '\n', bone names quoted.
constexpr std::string_view studiomdl_qc_extension = "studiomdl:qc";

}  // namespace rigport::detail

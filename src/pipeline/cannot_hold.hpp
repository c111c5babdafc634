// The warnings every output gets about what it cannot hold, from its registry row.
#pragma once

#include "rigport/formats.hpp"

namespace rigport::detail {

// One DroppedData warning per thing the scene has that the row's FormatHolds says a written file
// does not keep (docs/architecture.md "What the front door does for every row"), worded alike for every format.
void warn_what_cannot_be_held(const Scene& scene, const FormatInfo& format, Warnings& warnings);

}  // namespace rigport::detail

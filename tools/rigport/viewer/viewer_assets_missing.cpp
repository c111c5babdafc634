// The viewer's assets when the build found no three.js package (tests/js/node_modules/three,
// installed by scripts/setup.sh): `rigport view` then says so (exit 3) instead of writing a page
// that cannot show anything.
#include "viewer/viewer_assets.hpp"

namespace rigport::cli::viewer {

const std::string_view three_version = "";
const std::string_view three_licence = "";
const std::string_view page_template = "";
const std::string_view modules_json = "";

}  // namespace rigport::cli::viewer

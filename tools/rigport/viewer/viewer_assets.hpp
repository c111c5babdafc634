// What `rigport view` puts in a page: the viewer's HTML and the three.js modules, embedded at build
// time by embed_three.py from the pinned npm package (tests/js), so the CLI needs no network and no
// node at run time.
#pragma once

#include <string_view>

namespace rigport::cli::viewer {

extern const std::string_view three_version;  // the package's version, e.g. "0.187.0"
extern const std::string_view three_licence;  // its MIT licence text, repeated in every page
extern const std::string_view page_template;  // viewer.html, with @PLACEHOLDERS@
extern const std::string_view modules_json;   // {"three": base64, "three/core": base64, ...}

}  // namespace rigport::cli::viewer

// Input text quoted in an error or warning message: short, and with every byte that could act on
// a terminal written out (docs/cli.md "Messages").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rigport::detail {

// At most max bytes of text as it may appear in a message, followed by "..." when cut. Valid
// UTF-8 is kept as it is ("é" stays "é"); control characters (C0, DEL and the C1 range, raw or
// encoded), and bytes that are not valid UTF-8 are written as \xNN (\n, \r and \t by name).
// A character or escape is never split by the cut.
std::string excerpt(std::string_view text, size_t max = 40);

}  // namespace rigport::detail

// Base64 (RFC 4648) text to bytes: glTF data: URIs and FBX's ASCII embedded media.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rigport::detail {

// Appends the bytes of base64 `text` (standard or URL-safe alphabet, '=' padding optional) to
// `out`; the position of the first character that is not base64, if any.
std::optional<size_t> decode_base64(std::string_view text, std::vector<uint8_t>& out);

}  // namespace rigport::detail

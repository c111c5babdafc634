// The format registry: one entry per format family member, detection by magic first.
#include <algorithm>
#include <cctype>
#include <string>

#include "formats/iqe/iqe_layout.hpp"
#include "formats/iqm/iqm_layout.hpp"
#include "rigport/formats.hpp"

namespace rigport {

const std::vector<FormatInfo>& formats() {
    static const std::vector<FormatInfo> list = {
        FormatInfo{"iqm", "Inter-Quake Model (binary), v1 and v2", {".iqm"}, &iqm::detect, &iqm::read, &iqm::write, &iqm::validate},
        FormatInfo{"iqe", "Inter-Quake Export (text)", {".iqe"}, &iqe::detect, &iqe::read, &iqe::write, nullptr},
    };
    return list;
}

const FormatInfo* find_format(std::string_view name) {
    for (auto& f : formats())
        if (f.name == name) return &f;
    return nullptr;
}

const FormatInfo* find_format_by_extension(std::string_view path) {
    std::string p(path);
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
    for (auto& f : formats())
        for (auto ext : f.extensions)
            if (p.size() >= ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0) return &f;
    return nullptr;
}

const FormatInfo* detect_format(std::span<const uint8_t> bytes, std::string_view path) {
    for (auto& f : formats())
        if (f.detect && f.detect(bytes)) return &f;
    return find_format_by_extension(path);
}

}  // namespace rigport

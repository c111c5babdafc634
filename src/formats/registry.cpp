// The format registry: one entry per format family member, detection by magic first.
#include <algorithm>
#include <cctype>
#include <string>

#include "formats/gltf/gltf_layout.hpp"
#include "formats/iqe/iqe_layout.hpp"
#include "formats/iqm/iqm_layout.hpp"
#include "rigport/formats.hpp"

namespace rigport {

namespace {

// A single-file writer as a registry writer: no side files, the path is not needed.
template <Expected<std::vector<uint8_t>> (*Write)(const Scene&, const SaveOptions&)>
Expected<Output> single_file(const Scene& scene, const std::string&, const SaveOptions& options) {
    auto bytes = Write(scene, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}};
}

}  // namespace

const std::vector<FormatInfo>& formats() {
    static const std::vector<FormatInfo> list = {
        FormatInfo{"iqm", "Inter-Quake Model (binary), v1 and v2", {".iqm"}, &iqm::detect, &iqm::read, &single_file<&iqm::write>, &iqm::validate},
        FormatInfo{"iqe", "Inter-Quake Export (text)", {".iqe"}, &iqe::detect, &iqe::read, &single_file<&iqe::write>, nullptr},
        // Write: .glb -> binary container; anything else -> JSON with a <stem>.bin buffer. Read:
        // either container. Detected by the GLB header only: JSON is claimed by extension, never
        // by content (a .json file is not assumed to be glTF).
        FormatInfo{"gltf", "glTF 2.0 (.gltf JSON + .bin, or .glb binary)", {".gltf", ".glb"}, &gltf::detect, &gltf::read, &gltf::write, nullptr},
        // The same writer forced to GLB whatever the output is called (--format glb); reads either.
        FormatInfo{"glb", "glTF 2.0 binary container (writes GLB whatever the extension)", {}, nullptr, &gltf::read, &gltf::write_glb, nullptr},
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

// Cal3D families, names, detection and scene conventions (docs/cal3d.md §1, §3.1, §4.3, §9 rule 1).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "formats/cal3d/cal3d.hpp"

namespace rigport::cal3d {

Family family_of(int32_t v) {
    if ((v >= 699 && v <= 910) || (v >= 1000 && v <= 1200)) return Family::Classic;
    if (v >= 911 && v <= 919) return Family::Imvu;
    if (v >= 1300 && v <= 1301) return Family::Trunk;
    return Family::Unknown;
}

const char* dialect_name(Family family) {
    switch (family) {
        case Family::Classic: return "classic";
        case Family::Imvu: return "imvu";
        case Family::Trunk: return "trunk";
        case Family::Unknown: break;
    }
    return "unknown";
}

std::string_view binary_magic(FileType type) {
    static constexpr std::string_view m[] = {{"CSF\0", 4}, {"CMF\0", 4}, {"CAF\0", 4}, {"CRF\0", 4}, {"CPF\0", 4}};
    return m[size_t(type)];
}
std::string_view xml_magic(FileType type) {
    static constexpr std::string_view m[] = {"XSF", "XMF", "XAF", "XRF", "XPF"};
    return m[size_t(type)];
}
std::string_view format_name(FileType type, bool binary) {
    static constexpr std::string_view b[] = {"cal3d-csf", "cal3d-cmf", "cal3d-caf", "cal3d-crf", "cal3d-cpf"};
    static constexpr std::string_view x[] = {"cal3d-xsf", "cal3d-xmf", "cal3d-xaf", "cal3d-xrf", "cal3d-xpf"};
    return binary ? b[size_t(type)] : x[size_t(type)];
}

void set_colors(Material& m, const uint8_t ambient[4], const uint8_t diffuse[4], const uint8_t specular[4]) {
    const bool opaque = ambient[3] == 0 && diffuse[3] == 0 && specular[3] == 0;
    auto color = [&](const uint8_t c[4]) {
        return Vec4{c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, opaque ? 1.0f : c[3] / 255.0f};
    };
    m.ambient = color(ambient);
    m.diffuse = color(diffuse);
    m.specular = color(specular);
}

TextureType texture_type(std::string_view name) {
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (n.empty() || n.starts_with("diffuse")) return TextureType::Diffuse;
    if (n.starts_with("opacity")) return TextureType::Opacity;
    if (n.starts_with("specular")) return TextureType::Specular;
    if (n.starts_with("bump") || n.starts_with("normal")) return TextureType::Normal;
    if (n.starts_with("self-illumination") || n.starts_with("emissive")) return TextureType::Emissive;
    if (n.starts_with("ambient")) return TextureType::Ambient;
    return TextureType::Other;
}

void set_meta(Scene& scene, FileType type, bool binary, int32_t version) {
    scene.meta.source_format = std::string(format_name(type, binary));
    scene.meta.source_version = version > 0 ? uint32_t(version) : 0;
    scene.meta.dialect = dialect_name(family_of(version));
    // §4.3: nothing is declared; 3ds Max exports are right-handed, Z up, and the exported meshes
    // are counter-clockwise relative to their normals (the binary winding heuristic never flips).
    scene.meta.up = UpAxis::Z;
    scene.meta.handedness = Handedness::Right;
    scene.meta.front_face = Winding::CounterClockwise;
}

bool detect_binary(std::span<const uint8_t> bytes, FileType type) {
    if (bytes.size() < 8 || std::memcmp(bytes.data(), binary_magic(type).data(), 4) != 0) return false;
    const int32_t v = int32_t(uint32_t(bytes[4]) | uint32_t(bytes[5]) << 8 | uint32_t(bytes[6]) << 16 | uint32_t(bytes[7]) << 24);
    return family_of(v) != Family::Unknown;
}

namespace {

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::toupper((unsigned char)x) == std::toupper((unsigned char)y); });
}

// The first element's name and its tag text, skipping a BOM, <?...?>, comments and junk lines.
bool first_tag(std::string_view s, std::string_view& name, std::string_view& tag, size_t& end) {
    size_t i = 0;
    while (i < s.size()) {
        i = s.find('<', i);
        if (i == std::string_view::npos || i + 1 >= s.size()) return false;
        if (s[i + 1] == '?' || s[i + 1] == '!') {
            i = s.find('>', i);
            if (i == std::string_view::npos) return false;
            continue;
        }
        size_t j = i + 1;
        while (j < s.size() && (std::isalnum((unsigned char)s[j]) || s[j] == '_')) ++j;
        name = s.substr(i + 1, j - i - 1);
        end = s.find('>', j);
        if (end == std::string_view::npos) return false;
        tag = s.substr(i, end - i + 1);
        return !name.empty();
    }
    return false;
}

std::optional<FileType> by_magic(std::string_view tag) {
    std::string t(tag);
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    size_t m = t.find("MAGIC");
    if (m == std::string::npos) return std::nullopt;
    for (FileType type : {FileType::Skeleton, FileType::Mesh, FileType::Animation, FileType::Material, FileType::MorphAnimation})
        if (t.find(xml_magic(type), m) != std::string::npos && t.find(xml_magic(type), m) < m + 12) return type;
    return std::nullopt;
}

}  // namespace

std::optional<FileType> detect_xml(std::span<const uint8_t> bytes) {
    std::string_view s(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 8192));
    std::string_view name, tag;
    size_t end = 0;
    if (!first_tag(s, name, tag, end)) return std::nullopt;
    if (iequal(name, "HEADER")) return by_magic(tag);
    if (iequal(name, "SKELETON")) return FileType::Skeleton;
    if (iequal(name, "MESH")) return FileType::Mesh;
    if (iequal(name, "MATERIAL")) return FileType::Material;
    if (iequal(name, "ANIMATION")) {
        if (auto t = by_magic(tag)) return t;
        std::string rest(s.substr(end));
        std::transform(rest.begin(), rest.end(), rest.begin(), [](unsigned char c) { return char(std::toupper(c)); });
        return rest.find("MORPH") != std::string::npos ? FileType::MorphAnimation : FileType::Animation;
    }
    return std::nullopt;
}

bool detect_csf(std::span<const uint8_t> b) { return detect_binary(b, FileType::Skeleton); }
bool detect_cmf(std::span<const uint8_t> b) { return detect_binary(b, FileType::Mesh); }
bool detect_caf(std::span<const uint8_t> b) { return detect_binary(b, FileType::Animation); }
bool detect_crf(std::span<const uint8_t> b) { return detect_binary(b, FileType::Material); }
bool detect_cpf(std::span<const uint8_t> b) { return detect_binary(b, FileType::MorphAnimation); }
bool detect_xsf(std::span<const uint8_t> b) { return detect_xml(b) == FileType::Skeleton; }
bool detect_xmf(std::span<const uint8_t> b) { return detect_xml(b) == FileType::Mesh; }
bool detect_xaf(std::span<const uint8_t> b) { return detect_xml(b) == FileType::Animation; }
bool detect_xrf(std::span<const uint8_t> b) { return detect_xml(b) == FileType::Material; }
bool detect_xpf(std::span<const uint8_t> b) { return detect_xml(b) == FileType::MorphAnimation; }

}  // namespace rigport::cal3d

// Cal3D writer sinks: little-endian bytes, XML text with shortest round-trip floats, bone ids (docs/cal3d.md §2, §3.1, §3.8).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "formats/cal3d/cal3d_write.hpp"

namespace rigport::cal3d {

int32_t version_of(Dialect dialect) {
    switch (dialect) {
        case Dialect::Imvu919: return 919;
        case Dialect::Classic1100: return 1100;
        case Dialect::Trunk1301: return 1301;
    }
    return 919;
}

Family family_of(Dialect dialect) { return family_of(version_of(dialect)); }

void ByteWriter::magic(FileType type) {
    const std::string_view m = binary_magic(type);
    bytes.insert(bytes.end(), m.begin(), m.end());
}

void ByteWriter::i32(int32_t v) {
    const uint32_t u = uint32_t(v);
    for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(u >> (8 * i)));
}

void ByteWriter::f32(float v) { i32(int32_t(std::bit_cast<uint32_t>(v))); }

void ByteWriter::string(std::string_view s) {
    i32(int32_t(s.size() + 1));
    bytes.insert(bytes.end(), s.begin(), s.end());
    bytes.push_back(0);
}

std::string XmlWriter::header(FileType type, Dialect dialect) {
    const int32_t version = version_of(dialect);
    if (dialect == Dialect::Imvu919) {
        text += fmt::format("<HEADER MAGIC=\"{}\" VERSION=\"{}\" />\n", xml_magic(type), version);
        return {};
    }
    text += "<?xml version=\"1.0\"?>\n";
    return fmt::format(" MAGIC=\"{}\" VERSION=\"{}\"", xml_magic(type), version);
}

void XmlWriter::indent() { text.append(size_t(depth_) * 4, ' '); }

void XmlWriter::open(std::string_view name, std::string_view attributes) {
    indent();
    text += fmt::format("<{}{}>\n", name, attributes);
    ++depth_;
}

void XmlWriter::close(std::string_view name) {
    --depth_;
    indent();
    text += fmt::format("</{}>\n", name);
}

void XmlWriter::leaf(std::string_view name, std::string_view attributes, std::string_view body) {
    indent();
    text += fmt::format("<{}{}>{}</{}>\n", name, attributes, body, name);
}

void XmlWriter::empty(std::string_view name, std::string_view attributes) {
    indent();
    text += fmt::format("<{}{} />\n", name, attributes);
}

std::string xml_float(float v) { return fmt::format("{}", v); }  // "-0" stays: binary -> XML -> binary is exact

std::string xml_floats(const float* v, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        if (i) out += ' ';
        out += xml_float(v[i]);
    }
    return out;
}

std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string xml_attr(std::string_view name, std::string_view value) { return fmt::format(" {}=\"{}\"", name, xml_escape(value)); }

std::vector<int32_t> bone_ids(const Skeleton& skeleton) {
    const size_t n = skeleton.joints.size();
    std::vector<int32_t> ids(n);
    if (skeleton.source_ids.size() == n) {
        std::vector<bool> seen(n, false);
        bool permutation = true;
        for (int32_t id : skeleton.source_ids) {
            if (id < 0 || size_t(id) >= n || seen[size_t(id)]) {
                permutation = false;
                break;
            }
            seen[size_t(id)] = true;
        }
        if (permutation) return skeleton.source_ids;
    }
    for (size_t j = 0; j < n; ++j) ids[j] = int32_t(j);
    return ids;
}

Expected<size_t> choose_animation(const Scene& scene, bool (*has_tracks)(const Animation&), const AnimationChoice& text,
                                  const SaveOptions& options) {
    size_t chosen = scene.animations.size(), others = 0;
    for (size_t a = 0; a < scene.animations.size(); ++a) {
        if (!has_tracks(scene.animations[a])) continue;
        if (chosen == scene.animations.size()) chosen = a;
        else ++others;
    }
    if (chosen == scene.animations.size())
        return make_error(ErrorCode::InvalidArgument, fmt::format("the scene has no animation with {}", text.missing));
    if (others && options.warnings)
        options.warnings->add(WarningCode::DroppedData, fmt::format("{} holds one animation: {} {} not written", text.file, others, text.others));
    return chosen;
}

}  // namespace rigport::cal3d

// Cal3D XML reading helpers over pugixml: both header forms, any letter case, junk text (docs/cal3d.md §3.1, §9 rule 3).
#include "formats/cal3d/cal3d_xml.hpp"

#include <fast_float/fast_float.h>
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <cmath>
#include <vector>

#include "support/excerpt.hpp"

namespace rigport::cal3d::xml {

namespace {

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::toupper((unsigned char)a[i]) != std::toupper((unsigned char)b[i])) return false;
    return true;
}

// IMVU content has attribute values without quotes (§3.1): quote them inside tags.
std::string quote_attributes(std::string_view s, uint64_t& fixed) {
    std::string out;
    out.reserve(s.size() + 64);
    bool in_tag = false;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char ch = s[i];
        out += ch;
        if (quote) {
            if (ch == quote) quote = 0;
        } else if (!in_tag) {
            in_tag = ch == '<' && i + 1 < s.size() && (std::isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_');
        } else if (ch == '>') {
            in_tag = false;
        } else if (ch == '"' || ch == '\'') {
            quote = ch;
        } else if (ch == '=') {
            size_t j = i + 1;
            while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) out += s[j++];
            if (j < s.size() && s[j] != '"' && s[j] != '\'') {
                size_t k = j;
                while (k < s.size() && !std::isspace((unsigned char)s[k]) && s[k] != '>' && !(s[k] == '/' && k + 1 < s.size() && s[k + 1] == '>')) ++k;
                out += '"';
                out.append(s.substr(j, k - j));
                out += '"';
                ++fixed;
                i = k - 1;
            } else {
                i = j - 1;
            }
        }
    }
    return out;
}

std::pair<uint32_t, uint32_t> line_col(std::span<const uint8_t> bytes, ptrdiff_t offset) {
    uint32_t line = 1, col = 1;
    for (ptrdiff_t i = 0; i < offset && size_t(i) < bytes.size(); ++i) {
        if (bytes[size_t(i)] == '\n') ++line, col = 1;
        else ++col;
    }
    return {line, col};
}

// Runs of text beside elements, and the deepest element, in one walk without recursion (60,000
// nested elements overflowed the stack of the recursive walk). Returns the first element deeper
// than max_depth, or an empty node.
pugi::xml_node scan(pugi::xml_node document, uint32_t max_depth, uint64_t& junk) {
    junk = 0;
    uint32_t depth = 0;
    pugi::xml_node node = document;
    while (node) {
        bool has_elements = false;
        for (auto c = node.first_child(); c; c = c.next_sibling()) has_elements |= c.type() == pugi::node_element;
        for (auto c = node.first_child(); c; c = c.next_sibling())
            if (c.type() == pugi::node_pcdata && (has_elements || node.type() == pugi::node_document)) ++junk;
        // Next element in document order: the first child element, else the next sibling element
        // of this node or of the nearest ancestor that has one.
        pugi::xml_node next;
        for (auto c = node.first_child(); c && !next; c = c.next_sibling())
            if (c.type() == pugi::node_element) next = c;
        if (next) {
            if (++depth > max_depth) return next;
            node = next;
            continue;
        }
        for (; node != document && !next; node = node.parent(), --depth)
            for (auto s = node.next_sibling(); s && !next; s = s.next_sibling())
                if (s.type() == pugi::node_element) next = s;
        if (!next) break;
        ++depth;  // the loop stepped up one level too many before finding the sibling
        node = next;
    }
    return {};
}

const char* body_name(FileType type) {
    static const char* names[] = {"SKELETON", "MESH", "ANIMATION", "MATERIAL", "ANIMATION"};
    return names[size_t(type)];
}

}  // namespace

bool is(pugi::xml_node node, std::string_view name) { return node.type() == pugi::node_element && iequal(node.name(), name); }

pugi::xml_node child(pugi::xml_node node, std::string_view name) {
    for (auto c = node.first_child(); c; c = c.next_sibling())
        if (is(c, name)) return c;
    return {};
}

pugi::xml_node next(pugi::xml_node node, std::string_view name) {
    for (auto c = node.next_sibling(); c; c = c.next_sibling())
        if (is(c, name)) return c;
    return {};
}

const char* attribute(pugi::xml_node node, std::string_view name) {
    for (auto a = node.first_attribute(); a; a = a.next_attribute())
        if (iequal(a.name(), name)) return a.value();
    return nullptr;
}

Error error_at(const Document& d, pugi::xml_node node, std::string message) {
    std::string path;
    for (auto n = node; n && n.type() == pugi::node_element; n = n.parent()) {
        uint32_t index = 0;
        for (auto s = n.previous_sibling(); s; s = s.previous_sibling())
            if (iequal(s.name(), n.name())) ++index;
        std::string part = index ? fmt::format("{}[{}]", detail::excerpt(n.name()), index) : detail::excerpt(n.name());
        path = path.empty() ? part : part + "/" + path;
    }
    const ptrdiff_t offset = node ? node.offset_debug() : 0;
    Error e = make_error(ErrorCode::Malformed, fmt::format("{} (byte {}): {}", path, offset, message), uint64_t(std::max<ptrdiff_t>(offset, 0)));
    auto [line, col] = line_col(d.bytes, offset);
    e.line = line;
    e.column = col;
    return e;
}

bool floats(const char* text, float* out, int n, bool& non_finite) {
    if (!text) return false;
    const char* p = text;
    const char* end = p + std::strlen(p);
    for (int i = 0; i < n; ++i) {
        while (p < end && std::isspace((unsigned char)*p)) ++p;
        if (p < end && *p == '+') ++p;
        auto r = fast_float::from_chars(p, end, out[i]);
        if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) return false;
        if (!std::isfinite(out[i])) {
            out[i] = 0.0f;
            non_finite = true;
        }
        p = r.ptr;
    }
    return true;
}

bool integer(const char* text, int32_t& out) {
    if (!text) return false;
    const char* p = text;
    const char* end = p + std::strlen(p);
    while (p < end && std::isspace((unsigned char)*p)) ++p;
    if (p < end && *p == '+') ++p;
    auto r = std::from_chars(p, end, out);
    return r.ec == std::errc();
}

std::optional<Error> int_attribute(const Document& d, pugi::xml_node node, std::string_view name, int32_t& out, bool required) {
    const char* v = attribute(node, name);
    if (!v && !required) return std::nullopt;
    if (!integer(v, out))
        return error_at(d, node, v ? fmt::format("{}=\"{}\" is not an integer", name, detail::excerpt(v))
                                   : fmt::format("missing {} attribute", name));
    return std::nullopt;
}

std::optional<Error> float_attribute(const Document& d, pugi::xml_node node, std::string_view name, float& out, Warnings& w) {
    const char* v = attribute(node, name);
    bool non_finite = false;
    if (!floats(v, &out, 1, non_finite))
        return error_at(d, node, v ? fmt::format("{}=\"{}\" is not a number", name, detail::excerpt(v))
                                   : fmt::format("missing {} attribute", name));
    if (non_finite) w.add(WarningCode::NonFiniteValue, "non-finite numbers replaced by 0", uint64_t(node.offset_debug()));
    return std::nullopt;
}

std::optional<Error> element_floats(const Document& d, pugi::xml_node parent, std::string_view name, float* out, int n,
                                    Warnings& w, bool required, bool* found) {
    pugi::xml_node e = child(parent, name);
    if (found) *found = bool(e);
    if (!e) {
        if (!required) return std::nullopt;
        return error_at(d, parent, fmt::format("missing <{}>", name));
    }
    bool non_finite = false;
    if (!floats(e.child_value(), out, n, non_finite)) return error_at(d, e, fmt::format("expected {} numbers", n));
    if (non_finite) w.add(WarningCode::NonFiniteValue, "non-finite numbers replaced by 0", uint64_t(e.offset_debug()));
    return std::nullopt;
}

std::optional<Error> parse(std::span<const uint8_t> bytes, FileType type, Document& d, Warnings& warnings, uint32_t max_depth) {
    d.bytes = bytes;
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const unsigned options = pugi::parse_default | pugi::parse_fragment;
    d.buffer.assign(text);
    auto result = d.doc.load_buffer_inplace(d.buffer.data(), d.buffer.size(), options, pugi::encoding_utf8);
    if (result.status == pugi::status_bad_attribute) {
        uint64_t fixed = 0;
        d.buffer = quote_attributes(text, fixed);
        result = d.doc.load_buffer_inplace(d.buffer.data(), d.buffer.size(), options, pugi::encoding_utf8);
        if (result && fixed) warnings.add(WarningCode::Tolerated, fmt::format("{} attribute values without quotes (IMVU-tolerated)", fixed));
    }
    if (!result) {
        Error e = make_error(ErrorCode::Malformed, fmt::format("XML (byte {}): {}", result.offset, result.description()), uint64_t(result.offset));
        auto [line, col] = line_col(bytes, result.offset);
        e.line = line;
        e.column = col;
        return e;
    }
    // pugixml parses and frees without recursion; the readers after it walk by depth, so the
    // nesting is bounded here (LoadOptions::max_depth).
    uint64_t junk = 0;
    if (pugi::xml_node deep = scan(d.doc, max_depth, junk)) {
        // Not error_at: its path would name every one of the levels.
        const ptrdiff_t offset = deep.offset_debug();
        Error e = make_error(ErrorCode::LimitExceeded,
                             fmt::format("<{}> (byte {}): elements nested deeper than {} levels (LoadOptions::max_depth)",
                                         detail::excerpt(deep.name()), offset, max_depth),
                             uint64_t(std::max<ptrdiff_t>(offset, 0)));
        auto [line, col] = line_col(bytes, offset);
        e.line = line;
        e.column = col;
        return e;
    }
    if (junk)
        warnings.add(WarningCode::Ignored, fmt::format("{} runs of text between elements ignored (IMVU-tolerated junk)", junk));
    pugi::xml_node first;
    for (auto c : d.doc.children())
        if (c.type() == pugi::node_element) {
            first = c;
            break;
        }
    if (!first) return make_error(ErrorCode::Malformed, "no XML element");
    pugi::xml_node body = first;
    const char* version = nullptr;
    if (is(first, "HEADER")) {
        d.header_form = true;
        const char* magic = attribute(first, "MAGIC");
        if (!magic || !iequal(magic, xml_magic(type)))
            return error_at(d, first, fmt::format("MAGIC \"{}\" is not {}", detail::excerpt(magic ? magic : ""), xml_magic(type)));
        version = attribute(first, "VERSION");
        body = first.next_sibling();
        while (body && body.type() != pugi::node_element) body = body.next_sibling();
        if (!body) return error_at(d, first, fmt::format("no <{}> after the header", body_name(type)));
    } else {
        version = attribute(body, "VERSION");
        if (const char* magic = attribute(body, "MAGIC"); magic && !iequal(magic, xml_magic(type)))
            return error_at(d, body, fmt::format("MAGIC \"{}\" is not {}", detail::excerpt(magic), xml_magic(type)));
    }
    if (!is(body, body_name(type))) return error_at(d, body, fmt::format("expected <{}>", body_name(type)));
    if (version) {
        if (!integer(version, d.version)) return error_at(d, d.header_form ? first : body, "VERSION is not an integer");
        if (d.version < earliest_version)
            return error_at(d, d.header_form ? first : body, fmt::format("VERSION {} < {}", d.version, earliest_version));
    } else {
        warnings.add(WarningCode::Tolerated, "no VERSION attribute");
    }
    d.body = body;
    return std::nullopt;
}

}  // namespace rigport::cal3d::xml

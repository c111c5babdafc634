// ASCII FBX 7.x output (docs/fbx.md §1.2 for the syntax, "Writing FBX" for what is written):
// `Name: value, value {` with tabs, arrays as `*N { a: ... }`, numbers in their shortest exact
// decimal form (std::to_chars), so reading the text gives back the same bits.
#include <bit>
#include <charconv>
#include <string>

#include "formats/fbx/fbx_write_tree.hpp"

namespace rigport::fbx::out {

namespace {

void number(std::string& out, double v) {
    char buf[32];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void number(std::string& out, float v) {
    char buf[32];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void number(std::string& out, int64_t v) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// FBX has no escape for '&' itself; the FBX SDK writes a quote and line breaks so (docs/fbx.md §1.2).
void quoted(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        if (c == '"') out += "&quot;";
        else if (c == '\n') out += "&lf;";
        else if (c == '\r') out += "&cr;";
        else out += c;
    }
    out += '"';
}

void base64(std::string& out, std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out += '"';
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) v |= uint8_t(bytes[i + 2]);
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? alphabet[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? alphabet[v & 63] : '=';
    }
    out += '"';
}

class AsciiEncoder {
public:
    std::string run(const std::vector<Node>& top, const Encoding& e) {
        out_ = "; FBX " + std::to_string(e.version / 1000) + "." + std::to_string(e.version / 100 % 10) + ".0 project file\n";
        out_ += "; written by rigport\n\n";
        for (const Node& n : top) node(n, 0);
        return std::move(out_);
    }

private:
    void indent(int depth) { out_.append(size_t(depth), '\t'); }

    template <typename T, typename F>
    void array(const std::vector<T>& values, int depth, F&& each) {
        out_ += '*';
        number(out_, int64_t(values.size()));
        out_ += " {\n";
        indent(depth + 1);
        out_ += "a: ";
        for (size_t i = 0; i < values.size(); ++i) {
            if (i) out_ += ',';
            each(values[i]);
        }
        out_ += '\n';
        indent(depth);
        out_ += '}';
    }

    // ASCII files store KeyAttrDataFloat as the floats' bit patterns in decimal (docs/fbx.md §2.6).
    void value(const Node& n, const Value& v, int depth) {
        switch (v.type) {
            case 'C': out_ += v.integer ? 'T' : 'F'; return;
            case 'I': case 'L': number(out_, v.integer); return;
            case 'D': number(out_, v.number); return;
            case 'S': quoted(out_, v.text); return;
            case 'R': base64(out_, v.text); return;
            case 'N': quoted(out_, v.object_class + "::" + v.text); return;
            case 'i': array(v.ints, depth, [&](int32_t x) { number(out_, int64_t(x)); }); return;
            case 'l': array(v.longs, depth, [&](int64_t x) { number(out_, x); }); return;
            case 'f':
                if (n.name == "KeyAttrDataFloat") array(v.floats, depth, [&](float x) { number(out_, int64_t(std::bit_cast<int32_t>(x))); });
                else array(v.floats, depth, [&](float x) { number(out_, x); });
                return;
            case 'd': array(v.doubles, depth, [&](double x) { number(out_, x); }); return;
            default: return;
        }
    }

    void node(const Node& n, int depth) {
        indent(depth);
        out_ += n.name;
        out_ += ": ";
        for (size_t i = 0; i < n.values.size(); ++i) {
            if (i) out_ += ", ";
            value(n, n.values[i], depth);
        }
        if (!n.children.empty() || n.values.empty() || n.scope) {
            out_ += " {\n";
            for (const Node& c : n.children) node(c, depth + 1);
            indent(depth);
            out_ += '}';
        }
        out_ += '\n';
        if (depth == 0) out_ += '\n';
    }

    std::string out_;
};

}  // namespace

std::vector<uint8_t> encode_ascii(const std::vector<Node>& top, const Encoding& encoding) {
    const std::string text = AsciiEncoder().run(top, encoding);
    return {text.begin(), text.end()};
}

}  // namespace rigport::fbx::out

// ASCII FBX (docs/fbx.md §1.2): `Name: value, value, ... { children }`, ';' comments, 7.x arrays
// as `*N { a: ... }`, 6.x arrays as long value lists (possibly over many lines after commas).
// Both array spellings become one array property, as in binary files.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include <fast_float/fast_float.h>
#include <fmt/format.h>

#include "formats/fbx/fbx_document.hpp"
#include "formats/fbx/fbx_limits.hpp"

namespace rigport::fbx {

namespace {

enum class Kind : uint8_t { Key, Word, String, Open, Close, Comma, End, Bad };

struct Token {
    Kind kind = Kind::End;
    std::string_view text;  // Key without its ':', String without its quotes
    uint64_t offset = 0;
    uint32_t line = 1, column = 1;
};

class Lexer {
public:
    explicit Lexer(std::string_view text) : text_(text) {}

    Token next() {
        skip();
        Token t;
        t.offset = pos_;
        t.line = line_;
        t.column = uint32_t(pos_ - line_begin_ + 1);
        if (pos_ >= text_.size()) return t;
        const char c = text_[pos_];
        if (c == '{' || c == '}' || c == ',') {
            t.kind = c == '{' ? Kind::Open : c == '}' ? Kind::Close : Kind::Comma;
            ++pos_;
            return t;
        }
        if (c == '"') {
            const size_t end = text_.find('"', pos_ + 1);
            if (end == std::string_view::npos) {
                t.kind = Kind::Bad;
                t.text = "a string without its closing quote";
                return t;
            }
            for (size_t i = pos_; i < end; ++i) newline_at(i);
            t.kind = Kind::String;
            t.text = text_.substr(pos_ + 1, end - pos_ - 1);
            pos_ = end + 1;
            return t;
        }
        const size_t begin = pos_;
        while (pos_ < text_.size() && !std::strchr(" \t\r\n{},:;\"", text_[pos_])) ++pos_;
        t.text = text_.substr(begin, pos_ - begin);
        if (pos_ < text_.size() && text_[pos_] == ':') {
            ++pos_;
            t.kind = Kind::Key;
        } else if (t.text.empty()) {
            t.kind = Kind::Bad;
            t.text = "a ':' without a name before it";
            ++pos_;
        } else {
            t.kind = Kind::Word;
        }
        return t;
    }

private:
    void newline_at(size_t i) {
        if (text_[i] == '\n') {
            ++line_;
            line_begin_ = i + 1;
        }
    }
    void skip() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == ';') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                newline_at(pos_);
                ++pos_;
            } else {
                break;
            }
        }
    }

    std::string_view text_;
    size_t pos_ = 0, line_begin_ = 0;
    uint32_t line_ = 1;
};

// 6.x lists with at least this many numbers are arrays (vertices, indices ...); shorter ones
// stay values (a Property's "A+",0,0,0).
constexpr size_t list_as_array = 16;

class AsciiParser {
public:
    AsciiParser(std::string_view text, const LoadOptions& options) : lex_(text), budget_(options), max_depth_(options.max_depth) {}

    Expected<Document> run() {
        Document doc;
        doc_ = &doc;
        if (!children(doc.root, 0, true)) return error_;
        doc.version = version_of(doc.root);
        return doc;
    }

private:
    bool fail(const Token& at, std::string message, ErrorCode code = ErrorCode::Malformed) {
        error_ = make_error(code, std::move(message));
        error_.line = at.line;
        error_.column = at.column;
        return false;
    }

    // Nodes until '}' (or the end, at the top level), gathered at their depth and given to
    // `parent` in one arena copy when its list ends.
    bool children(Node& parent, uint32_t depth, bool top) {
        std::vector<Node>& gathered = nodes_at(depth);
        const size_t first = gathered.size();
        Token t = lex_.next();
        for (;;) {
            if (t.kind == Kind::End) {
                if (!top) return fail(t, "the file ends before a '}'");
                break;
            }
            if (t.kind == Kind::Close) {
                if (top) return fail(t, "a '}' without its '{'");
                break;
            }
            if (t.kind != Kind::Key) return fail(t, t.kind == Kind::Bad ? std::string(t.text) : fmt::format("expected a 'Name:', found '{}'", detail::excerpt(t.text)));
            if (depth >= max_depth_) return fail(t, fmt::format("nodes nested deeper than {} (LoadOptions::max_depth)", max_depth_), ErrorCode::LimitExceeded);
            if (!budget_.add_node(0)) return fail(t, budget_.message(), ErrorCode::LimitExceeded);
            // Its values and children gather in the deeper lists, so this one stays put meanwhile.
            Node& node = gathered.emplace_back();
            node.name = t.text;
            node.offset = t.offset;
            node.line = t.line;
            if (!values(node, depth, t)) return false;
        }
        parent.children = doc_->copy(std::span<const Node>(gathered).subspan(first));
        gathered.resize(first);
        return true;
    }

    // A node's values after its name, its children if a '{' follows; `t` becomes the token
    // after the node.
    bool values(Node& node, uint32_t depth, Token& t) {
        std::vector<Property>& gathered = values_at(depth);
        const size_t first = gathered.size();
        t = lex_.next();
        if (t.kind == Kind::Comma) t = lex_.next();  // "Content: , "...": the FBX SDK's embedded media starts so
        bool open = false;
        for (;;) {
            if (t.kind == Kind::Open) {
                open = true;
                break;
            }
            if (t.kind != Kind::Word && t.kind != Kind::String) break;
            if (!budget_.add_values(1)) return fail(t, budget_.message(), ErrorCode::LimitExceeded);
            gathered.push_back(value(t));
            t = lex_.next();
            if (t.kind == Kind::Comma) t = lex_.next();
            else if (t.kind != Kind::Open) break;
        }
        node.properties = freeze(std::span<const Property>(gathered).subspan(first));
        gathered.resize(first);
        if (open) {
            const Token brace = t;
            if (!children(node, depth + 1, false) || !collapse_array(node, brace)) return false;
            t = lex_.next();
        }
        return true;
    }

    Property value(const Token& t) {
        Property p;
        p.text = t.text;
        if (t.kind == Kind::String) {
            p.type = 'S';
            if (t.text.find('&') != std::string_view::npos) p.text = decode_entities(t.text);
            return p;
        }
        const char* b = t.text.data();
        const char* e = b + t.text.size();
        if (auto [end, ec] = std::from_chars(b, e, p.integer); ec == std::errc() && end == e) {
            p.type = 'L';
            p.number = double(p.integer);
        } else if (auto r = fast_float::from_chars(b, e, p.number); r.ec == std::errc() && r.ptr == e) {
            p.type = 'D';
            p.integer = std::isfinite(p.number) && std::abs(p.number) < 9.2e18 ? int64_t(p.number) : 0;
        } else {
            p.type = 'W';
        }
        return p;
    }

    // A node's values in the arena: a list of at least list_as_array numbers as one array.
    std::span<Property> freeze(std::span<const Property> values) {
        if (values.size() >= list_as_array)
            if (auto array = as_array(values); !array.empty()) return array;
        return doc_->copy(values);
    }

    // 7.x: `Name: *N { a: v, v, ... }` is one array of N values.
    bool collapse_array(Node& node, const Token& open) {
        if (node.properties.size() != 1 || node.properties[0].type != 'W' || node.properties[0].text.substr(0, 1) != "*") return true;
        uint64_t n = 0;
        const std::string_view count = node.properties[0].text.substr(1);
        if (auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n); ec != std::errc() || end != count.data() + count.size())
            return fail(open, fmt::format("node '{}': array size '{}' is not a count", detail::excerpt(node.name), detail::excerpt(node.properties[0].text)));
        const Node* a = node.child("a");
        if (!a && n == 0) {
            node.properties[0] = Property();
            node.properties[0].type = 'd';
            return true;
        }
        if (!a || node.children.size() != 1) return fail(open, fmt::format("node '{}': an array '*{}' holds something else than one 'a:' list", detail::excerpt(node.name), n));
        node.properties = a->properties;
        node.children = {};
        if (node.properties.size() == 1 && node.properties[0].is_array() && node.properties[0].array_size() == n) return true;
        if (node.properties.size() != n)
            return fail(open, fmt::format("node '{}': array declares {} values and holds {}", detail::excerpt(node.name), n, node.properties.size()));
        if (auto array = as_array(node.properties); !array.empty()) node.properties = array;
        if (!node.properties[0].is_array())
            return fail(open, fmt::format("node '{}': an array holds a value that is not a number", detail::excerpt(node.name)));
        return true;
    }

    // A list of numbers as one array property in the arena: 'l' when all are integers, else 'd';
    // no property when a value is not a number.
    std::span<Property> as_array(std::span<const Property> values) {
        bool integers = true;
        for (auto& p : values) {
            if (p.type != 'L' && p.type != 'D') return {};
            integers = integers && p.type == 'L';
        }
        // Its elements as 8-byte values in the document's arena, where binary arrays live too
        // (`*0 { a: }` is an empty array, still pointing somewhere).
        if (values.size() > UINT32_MAX) return {};
        std::span<Property> array = doc_->make<Property>(1);
        array[0].type = integers ? 'l' : 'd';
        array[0].count = uint32_t(values.size());  // below max_elements (the parser's budget)
        auto* out = static_cast<uint8_t*>(doc_->arena->allocate(std::max<size_t>(1, values.size() * 8), 8));
        for (size_t k = 0; k < values.size(); ++k) {
            const Property& p = values[k];
            if (integers) std::memcpy(out + k * 8, &p.integer, 8);
            else std::memcpy(out + k * 8, &p.number, 8);
        }
        array[0].data = out;
        return array;
    }

    // Nodes and values being read, by depth (docs/fbx.md §1.3). Deques, so a depth's list stays
    // where it is while deeper ones are added.
    std::vector<Node>& nodes_at(uint32_t depth) {
        while (nodes_.size() <= depth) nodes_.emplace_back();
        return nodes_[depth];
    }
    std::vector<Property>& values_at(uint32_t depth) {
        while (values_.size() <= depth) values_.emplace_back();
        return values_[depth];
    }

    // FBXHeaderExtension/FBXVersion, or 0 when the file does not say (the reader refuses it then).
    static uint32_t version_of(const Node& root) {
        if (const Node* header = root.child("FBXHeaderExtension"))
            if (const Node* v = header->child("FBXVersion"); v && !v->properties.empty() && v->properties[0].type == 'L')
                return uint32_t(std::clamp<int64_t>(v->properties[0].integer, 0, UINT32_MAX));
        return 0;
    }

    // A string's entities as the FBX SDK writes them (3ds Max's names with quotes): `&quot;` is a
    // quote, `&cr;` and `&lf;` line breaks; any other '&' stays as it is (FBX has no escape for
    // '&' itself). The decoded text is never longer than the string, so the budget holds.
    std::string_view decode_entities(std::string_view s) {
        static constexpr std::pair<std::string_view, char> entities[] = {{"&quot;", '"'}, {"&cr;", '\r'}, {"&lf;", '\n'}};
        std::string& out = doc_->decoded.emplace_back();
        out.reserve(s.size());
        for (size_t i = 0; i < s.size();) {
            bool matched = false;
            if (s[i] == '&')
                for (const auto& [entity, c] : entities)
                    if (s.substr(i, entity.size()) == entity) {
                        out += c;
                        i += entity.size();
                        matched = true;
                        break;
                    }
            if (!matched) out += s[i++];
        }
        return out;
    }

    Lexer lex_;
    Budget budget_;
    uint32_t max_depth_;
    Error error_;
    Document* doc_ = nullptr;  // the document run() builds
    std::deque<std::vector<Node>> nodes_;
    std::deque<std::vector<Property>> values_;
};

}  // namespace

bool is_ascii(std::span<const uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 4096));
    return text.starts_with("; FBX ") || text.find("FBXHeaderExtension:") != std::string_view::npos;
}

Expected<Document> parse_ascii(std::span<const uint8_t> bytes, const LoadOptions& options) {
    return AsciiParser(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options).run();
}

}  // namespace rigport::fbx

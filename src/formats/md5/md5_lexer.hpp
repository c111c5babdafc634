// MD5 tokens over the whole buffer (idTech 4's idLexer subset the files use): words, "quoted"
// names, the punctuation ( ) { }, and // or /* */ comments, each with 1-based line:col. No
// allocation; numbers via TextCursor's exact, locale-free parsers.
#pragma once

#include <cstdint>
#include <string_view>

namespace rigport::md5::detail {

enum class Kind : uint8_t { Word, String, OpenBrace, CloseBrace, OpenParen, CloseParen, End, Unterminated };

struct Token {
    Kind kind = Kind::End;
    std::string_view text;  // a word, or a string without its quotes
    uint32_t line = 1, column = 1;
    uint64_t offset = 0;
};

class Lexer {
public:
    explicit Lexer(std::string_view text) : text_(text) {}

    Token next() {
        skip();
        Token t;
        t.line = line_;
        t.column = static_cast<uint32_t>(pos_ - line_begin_ + 1);
        t.offset = pos_;
        if (pos_ >= text_.size()) return t;
        const char c = text_[pos_];
        const size_t begin = pos_;
        switch (c) {
            case '{': t.kind = Kind::OpenBrace; ++pos_; return t;
            case '}': t.kind = Kind::CloseBrace; ++pos_; return t;
            case '(': t.kind = Kind::OpenParen; ++pos_; return t;
            case ')': t.kind = Kind::CloseParen; ++pos_; return t;
            case '"': {
                // A name ends on its line: a missing quote is reported where the name began.
                size_t end = pos_ + 1;
                while (end < text_.size() && text_[end] != '"' && text_[end] != '\n') ++end;
                if (end >= text_.size() || text_[end] != '"') {
                    t.kind = Kind::Unterminated;
                    pos_ = end;
                    return t;
                }
                t.kind = Kind::String;
                t.text = text_.substr(begin + 1, end - begin - 1);
                pos_ = end + 1;
                return t;
            }
            default: break;
        }
        while (pos_ < text_.size() && !is_space(text_[pos_]) && !is_punct(text_[pos_]) && !starts_comment(pos_)) ++pos_;
        t.kind = Kind::Word;
        t.text = text_.substr(begin, pos_ - begin);
        return t;
    }

    // The text of the last "// meshes: NAME" comment passed (idTech 4's exporter names a mesh so).
    std::string_view mesh_comment() const { return mesh_comment_; }
    void clear_mesh_comment() { mesh_comment_ = {}; }
    uint64_t remaining() const { return text_.size() - pos_; }

private:
    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
    static bool is_punct(char c) { return c == '{' || c == '}' || c == '(' || c == ')' || c == '"'; }
    bool starts_comment(size_t at) const {
        return at + 1 < text_.size() && text_[at] == '/' && (text_[at + 1] == '/' || text_[at + 1] == '*');
    }
    void newline_at(size_t at) {
        ++line_;
        line_begin_ = at + 1;
    }
    void skip() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                newline_at(pos_++);
            } else if (is_space(c)) {
                ++pos_;
            } else if (starts_comment(pos_) && text_[pos_ + 1] == '/') {
                size_t end = text_.find('\n', pos_);
                if (end == std::string_view::npos) end = text_.size();
                note_comment(text_.substr(pos_ + 2, end - pos_ - 2));
                pos_ = end;
            } else if (starts_comment(pos_)) {
                size_t end = text_.find("*/", pos_ + 2);
                end = end == std::string_view::npos ? text_.size() : end + 2;
                for (size_t i = pos_; i < end; ++i)
                    if (text_[i] == '\n') newline_at(i);
                pos_ = end;
            } else {
                return;
            }
        }
    }
    void note_comment(std::string_view c) {
        constexpr std::string_view key = "meshes:";
        while (!c.empty() && is_space(c.front())) c.remove_prefix(1);
        if (c.substr(0, key.size()) != key) return;
        c.remove_prefix(key.size());
        while (!c.empty() && is_space(c.front())) c.remove_prefix(1);
        while (!c.empty() && is_space(c.back())) c.remove_suffix(1);
        mesh_comment_ = c;
    }

    std::string_view text_;
    size_t pos_ = 0, line_begin_ = 0;
    uint32_t line_ = 1;
    std::string_view mesh_comment_;
};

}  // namespace rigport::md5::detail

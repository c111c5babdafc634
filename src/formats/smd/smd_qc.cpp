// A studiomdl .qc as a list of one model's SMD files (docs/smd.md "A .qc beside the SMDs"): the
// reference files of its $body, $model and $bodygroup lines and the animation files of its
// $sequence and $animation lines. Only these are looked at; studiomdl's other commands are skipped.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "formats/smd/smd.hpp"

namespace rigport::smd {

namespace {

// studiomdl's tokens: a quoted string, '{' or '}', or a run of other non-space bytes; "//" and
// "#" comment to the end of the line, "/* */" comments across lines. An unterminated quote or
// comment ends the text there.
class QcTokens {
public:
    explicit QcTokens(std::span<const uint8_t> bytes) : text_(reinterpret_cast<const char*>(bytes.data()), bytes.size()) {}

    // False at the end. quoted: the token was a quoted string (never a directive or a brace).
    bool next(std::string_view& token, bool& quoted) {
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (std::isspace(static_cast<unsigned char>(c))) {
                ++at_;
            } else if (c == '#' || text_.substr(at_, 2) == "//") {
                at_ = std::min(text_.size(), text_.find('\n', at_));
            } else if (text_.substr(at_, 2) == "/*") {
                const size_t end = text_.find("*/", at_ + 2);
                at_ = end == std::string_view::npos ? text_.size() : end + 2;
            } else {
                break;
            }
        }
        if (at_ >= text_.size()) return false;
        quoted = text_[at_] == '"';
        if (quoted) {
            const size_t end = text_.find('"', at_ + 1);
            if (end == std::string_view::npos) {
                at_ = text_.size();
                return false;
            }
            token = text_.substr(at_ + 1, end - at_ - 1);
            at_ = end + 1;
            return true;
        }
        if (text_[at_] == '{' || text_[at_] == '}') {
            token = text_.substr(at_++, 1);
            return true;
        }
        const size_t start = at_;
        while (at_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[at_])) && text_[at_] != '"' && text_[at_] != '{' &&
               text_[at_] != '}')
            ++at_;
        token = text_.substr(start, at_ - start);
        return true;
    }

private:
    std::string_view text_;
    size_t at_ = 0;
};

bool equal_ci(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); });
}

// A token as a file name: '\' as '/', ".smd" added when the last part has no extension (as
// studiomdl looks for it). Braces, empty tokens and numbers name no file.
std::string file_name(std::string_view token) {
    if (token.empty() || token == "{" || token == "}") return {};
    if (std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-'; })) return {};
    std::string name(token);
    std::replace(name.begin(), name.end(), '\\', '/');
    const size_t slash = name.rfind('/');
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) name += ".smd";
    return name;
}

}  // namespace

ModelList read_qc(std::span<const uint8_t> bytes) {
    ModelList list;
    enum class Directive { Other, Body, Bodygroup, Animation };
    Directive directive = Directive::Other;
    size_t argument = 0;      // tokens read after the directive
    bool after_studio = false;  // $bodygroup: the token after "studio" is a reference file
    QcTokens tokens(bytes);
    std::string_view token;
    bool quoted = false;
    while (tokens.next(token, quoted)) {
        if (!quoted && !token.empty() && token.front() == '$') {
            directive = equal_ci(token, "$body") || equal_ci(token, "$model")   ? Directive::Body
                        : equal_ci(token, "$bodygroup")                        ? Directive::Bodygroup
                        : equal_ci(token, "$sequence") || equal_ci(token, "$animation") ? Directive::Animation
                                                                                : Directive::Other;
            argument = 0;
            after_studio = false;
            continue;
        }
        ++argument;
        switch (directive) {
            case Directive::Body:  // $body NAME FILE ..., $model NAME FILE { ... }
                if (argument == 2)
                    if (auto name = file_name(token); !name.empty()) list.meshes.push_back(std::move(name));
                break;
            case Directive::Bodygroup:  // $bodygroup NAME { studio FILE ... blank }
                if (after_studio)
                    if (auto name = file_name(token); !name.empty()) list.meshes.push_back(std::move(name));
                after_studio = !quoted && equal_ci(token, "studio");
                break;
            case Directive::Animation:
                // $sequence NAME FILE... [options] or NAME { FILE ... }; $animation NAME FILE [options].
                // Every later token may be a file: the caller keeps those that name one.
                if (argument >= 2)
                    if (auto name = file_name(token); !name.empty()) list.animations.push_back(std::move(name));
                break;
            case Directive::Other: break;
        }
    }
    return list;
}

}  // namespace rigport::smd

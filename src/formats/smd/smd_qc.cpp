// A studiomdl .qc as a list of one model's SMD files (docs/smd.md "A .qc beside the SMDs"): the
// reference files of its $body, $model and $bodygroup lines and the animation files of its
// $sequence and $animation lines. Only these are looked at; studiomdl's other commands are skipped.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
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

std::vector<QcSequence> read_qc_sequences(std::span<const uint8_t> bytes) {
    struct Directive {
        bool animation = false;  // $animation NAME FILE: a sequence that names NAME takes it
        QcSequence entry;
        std::vector<std::string> words;  // every later word, as written
    };
    std::vector<Directive> found;
    Directive* current = nullptr;
    size_t argument = 0;
    bool fps_next = false;
    QcTokens tokens(bytes);
    std::string_view token;
    bool quoted = false;
    while (tokens.next(token, quoted)) {
        if (!quoted && !token.empty() && token.front() == '$') {
            const bool sequence = equal_ci(token, "$sequence"), animation = equal_ci(token, "$animation");
            current = sequence || animation ? &found.emplace_back() : nullptr;
            if (current) current->animation = animation;
            argument = 0;
            fps_next = false;
            continue;
        }
        if (!current) continue;
        ++argument;
        if (argument == 1) {
            current->entry.name = std::string(token);
        } else if (fps_next) {
            const double fps = std::strtod(std::string(token).c_str(), nullptr);
            if (std::isfinite(fps) && fps > 0 && fps <= 10000) current->entry.fps = float(fps);
            fps_next = false;
        } else if (!quoted && equal_ci(token, "fps")) {
            fps_next = true;
        } else if (!quoted && equal_ci(token, "loop")) {
            current->entry.loop = true;
        } else {
            current->words.emplace_back(token);
            if (auto name = file_name(token); !name.empty()) current->entry.files.push_back(std::move(name));
        }
    }
    // `$animation a_walk "walk_file"` then `$sequence walk a_walk`: the file plays as the sequence
    // "walk" (Source's studiomdl), with the sequence's fps and loop where the animation gives none.
    for (const Directive& d : found) {
        if (d.animation) continue;
        for (const std::string& word : d.words)
            for (Directive& a : found)
                if (a.animation && equal_ci(a.entry.name, word)) {
                    a.entry.name = d.entry.name;
                    a.entry.loop = a.entry.loop || d.entry.loop;
                    if (a.entry.fps == 0) a.entry.fps = d.entry.fps;
                }
    }
    std::vector<QcSequence> out;
    for (Directive& d : found) out.push_back(std::move(d.entry));
    return out;
}

void apply_qc_sequence(Animation& anim, const LoadOptions& options) {
    if (!options.read_resource || options.source_name.empty()) return;
    const std::string own = std::filesystem::path(options.source_name).filename().string();
    const std::string stem = std::filesystem::path(own).stem().string();
    for (size_t cut = stem.rfind('_'); cut != std::string::npos && cut > 0; cut = stem.rfind('_', cut - 1)) {
        auto qc = options.read_resource(stem.substr(0, cut) + ".qc");
        if (!qc) continue;
        for (const QcSequence& seq : read_qc_sequences(*qc))
            for (const std::string& file : seq.files)
                if (equal_ci(std::filesystem::path(file).filename().string(), own)) {
                    if (!seq.name.empty()) anim.name = seq.name;
                    anim.loop = anim.loop || seq.loop;
                    if (seq.fps > 0 && seq.fps != anim.frame_rate) {  // the keys move to the sequence's rate
                        const float scale = anim.frame_rate / seq.fps;
                        for (auto& t : anim.tracks)
                            for (float& time : t.times) time *= scale;
                        anim.frame_rate = seq.fps;
                    }
                    return;
                }
        return;  // the first .qc found decides
    }
}

}  // namespace rigport::smd

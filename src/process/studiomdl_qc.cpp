// Scaling the kept .qc lines' lengths with the scene (docs/hlmdl.md "Kept for the .qc").
#include "process/studiomdl_qc.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace rigport::detail {

std::string qc_number(double v) {
    if (!std::isfinite(v)) v = 0;
    std::string s = fmt::format("{:.6f}", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

namespace {

// The line's tokens: words, and a quoted bone name as one token (quotes kept).
std::vector<std::string> tokens(std::string_view line) {
    std::vector<std::string> out;
    for (size_t i = 0; i < line.size();) {
        if (line[i] == ' ' || line[i] == '\t') {
            ++i;
            continue;
        }
        size_t end = i + 1;
        if (line[i] == '"') {
            end = line.find('"', i + 1);
            end = end == std::string_view::npos ? line.size() : end + 1;
        } else {
            while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
        }
        out.emplace_back(line.substr(i, end - i));
        i = end;
    }
    return out;
}

std::string scaled_line(std::string_view line, double s) {
    auto t = tokens(line);
    if (t.size() < 3) return std::string(line);
    // The tokens after the bone's (index 2) that are lengths.
    size_t first = 0, count = 0;
    if (t[0] == "$hbox") first = 3, count = 6;
    else if (t[0] == "$attachment") first = 3, count = 3;
    else if (t[0] == "$controller" && t.size() >= 6) {
        const std::string& type = t[3];
        if (type.back() != 'R') first = 4, count = 2;  // X ... AZ translate; XR ... AZR turn
    }
    if (count == 0 || t.size() < first + count) return std::string(line);
    for (size_t k = first; k < first + count; ++k) {
        char* end = nullptr;
        const double v = std::strtod(t[k].c_str(), &end);
        if (end && *end == 0) t[k] = qc_number(v * s);
    }
    std::string out;
    for (size_t k = 0; k < t.size(); ++k) out += (k ? " " : "") + t[k];
    return out;
}

}  // namespace

void scale_studiomdl_qc(Scene& scene, double s) {
    for (PreservedExtension& e : scene.meta.extensions) {
        if (e.name != studiomdl_qc_extension) continue;
        const std::string text(e.data.begin(), e.data.end());
        std::string out;
        for (size_t at = 0; at < text.size();) {
            size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            out += scaled_line(std::string_view(text).substr(at, end - at), s);
            if (end < text.size()) out += '\n';
            at = end + 1;
        }
        e.data.assign(out.begin(), out.end());
    }
}

}  // namespace rigport::detail

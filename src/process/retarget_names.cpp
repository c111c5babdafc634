// Joint names in one canonical vocabulary, and the bone map `--map auto` makes from them
// (docs/retarget.md "Canonical names", "The bone map").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "process/retarget_names.hpp"
#include "rigport/retarget.hpp"

namespace rigport {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && lower(s.substr(0, prefix.size())) == lower(prefix);
}

bool ends_with_nocase(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == lower(suffix);
}

// What a rig calls a bone -> the vocabulary's word. Keys are lower case without separators or the
// trailing number (docs/retarget.md lists the rigs each word comes from).
const std::map<std::string, std::string, std::less<>>& vocabulary() {
    static const std::map<std::string, std::string, std::less<>> words = {
        {"root", "root"},         {"origin", "root"},       {"masterroot", "root"},  {"hips", "hips"},
        {"pelvis", "hips"},       {"pelvisnode", "hips"},   {"spine", "spine"},      {"waist", "spine"},
        {"torso", "spine"},       {"abdomen", "spine"},     {"chest", "spine"},      {"upperchest", "spine"},
        {"tagtorso", "spine"},    {"neck", "neck"},         {"head", "head"},        {"taghead", "head"},
        {"headtop", "head_end"},  {"jaw", "jaw"},           {"eye", "eye"},          {"shoulder", "clavicle"},
        {"clavicle", "clavicle"}, {"collar", "clavicle"},   {"collarbone", "clavicle"}, {"arm", "upper_arm"},
        {"upperarm", "upper_arm"}, {"uparm", "upper_arm"},  {"shldr", "upper_arm"},  {"humerus", "upper_arm"},
        {"forearm", "forearm"},   {"lowerarm", "forearm"},  {"loarm", "forearm"},    {"elbow", "forearm"},
        {"hand", "hand"},         {"wrist", "hand"},        {"upleg", "thigh"},      {"thigh", "thigh"},
        {"upperleg", "thigh"},    {"leg", "shin"},          {"calf", "shin"},        {"shin", "shin"},
        {"lowerleg", "shin"},     {"loleg", "shin"},        {"knee", "shin"},        {"foot", "foot"},
        {"ankle", "foot"},        {"toebase", "toe"},       {"toe", "toe"},          {"toes", "toe"},
        {"ball", "toe"},          {"thumb", "thumb"},       {"index", "index"},      {"middle", "middle"},
        {"ring", "ring"},         {"pinky", "pinky"},       {"little", "pinky"},
    };
    return words;
}

bool is_finger(std::string_view base) {
    return base == "thumb" || base == "index" || base == "middle" || base == "ring" || base == "pinky";
}

struct Word {
    std::string base;  // the vocabulary's word, empty when unknown
    int number = -1;   // the trailing number, -1 when none
};

// A bone word without side: lower case, separators dropped, the trailing number apart.
Word look_up(std::string_view text, bool hip_has_side) {
    std::string w;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c))) w += char(std::tolower(static_cast<unsigned char>(c)));
    Word out;
    size_t digits = w.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(w[digits - 1]))) --digits;
    std::string number = w.substr(digits);
    w.resize(digits);
    // Biped and Valve fingers: Finger<finger><segment - 1>, the thumb finger 0 (Finger0, Finger01, Finger02).
    if (w == "finger" && !number.empty() && number.size() <= 2) {
        static const char* const fingers[] = {"thumb", "index", "middle", "ring", "pinky"};
        const int finger = number[0] - '0';
        if (finger > 4) return out;
        out.base = fingers[finger];
        out.number = number.size() == 2 ? number[1] - '0' + 1 : 1;
        return out;
    }
    // Mixamo's fingers carry the hand (HandThumb1), Rigify's an f (f_index.01); IMVU's root its figure.
    for (std::string_view lead : {"hand", "f"})
        if (w.size() > lead.size() && w.compare(0, lead.size(), lead) == 0 && is_finger(w.substr(lead.size()))) w = w.substr(lead.size());
    if (w.size() > 10 && w.ends_with("masterroot")) w = "masterroot";
    if (w == "hip") w = hip_has_side ? "thigh" : "hips";
    auto it = vocabulary().find(w);
    if (it == vocabulary().end()) return out;
    out.base = it->second;
    if (!number.empty() && number.size() <= 3) out.number = std::stoi(number);
    return out;
}

// Blender Rigify's spine: spine (the hips), spine.001-.003 (spine to chest), .004-.005 (neck),
// .006 (head).
std::string rigify_spine(int number) {
    if (number <= 0) return "hips";
    if (number <= 3) return "spine";
    if (number <= 5) return "neck";
    if (number == 6) return "head";
    return {};
}

// `rigify`: the skeleton is a Rigify one (some joint is spine.NNN or has a DEF- / ORG- prefix).
std::string canonical(std::string_view name, bool rigify) {
    std::string_view s = name;
    if (auto colon = s.rfind(':'); colon != std::string_view::npos) s = s.substr(colon + 1);  // mixamorig5:
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view prefix : {"ValveBiped.", "Bip01_", "Bip01 ", "Bip001_", "Bip001 ", "DEF-", "ORG-"})
            if (starts_with_nocase(s, prefix) && s.size() > prefix.size()) {
                rigify = rigify || prefix[3] == '-';
                s.remove_prefix(prefix.size());
                stripped = true;
            }
    }
    if (lower(s) == "bip01" || lower(s) == "bip001") return "root";
    bool end = false;
    for (std::string_view suffix : {"_end", "end", "nub"})
        if (ends_with_nocase(s, suffix) && s.size() > suffix.size()) {
            s.remove_suffix(suffix.size());
            end = true;
            break;
        }
    // The side, marked before or after the word, in each rig's way; a one-letter mark without a
    // separator (Doom 3's Lupperarm, IMVU's lThigh) only when what is left is a known word.
    std::string side;
    std::string_view word = s;
    auto take = [&](std::string_view rest, char which) {
        word = rest;
        side = std::string(1, which);
    };
    if (starts_with_nocase(s, "left") && s.size() > 4) take(s.substr(4), 'l');
    else if (starts_with_nocase(s, "right") && s.size() > 5) take(s.substr(5), 'r');
    else if (s.size() > 2 && (s[1] == '_' || s[1] == ' ' || s[1] == '.') && (s[0] == 'L' || s[0] == 'l' || s[0] == 'R' || s[0] == 'r'))
        take(s.substr(2), char(std::tolower(static_cast<unsigned char>(s[0]))));
    else if (s.size() > 2 && (s[s.size() - 2] == '_' || s[s.size() - 2] == '.' || s[s.size() - 2] == ' ' || s[s.size() - 2] == '-') &&
             std::string_view("LlRr").find(s.back()) != std::string_view::npos)
        take(s.substr(0, s.size() - 2), char(std::tolower(static_cast<unsigned char>(s.back()))));
    else if (ends_with_nocase(s, "left") && s.size() > 4) take(s.substr(0, s.size() - 4), 'l');
    else if (ends_with_nocase(s, "right") && s.size() > 5) take(s.substr(0, s.size() - 5), 'r');
    Word w = look_up(word, !side.empty());
    if (w.base.empty() && side.empty() && s.size() > 1 && std::string_view("LlRr").find(s[0]) != std::string_view::npos) {
        w = look_up(s.substr(1), true);
        if (!w.base.empty()) side = std::string(1, char(std::tolower(static_cast<unsigned char>(s[0]))));
    }
    if (w.base.empty()) return {};
    if (rigify && side.empty() && w.base == "spine") {
        w.base = rigify_spine(w.number < 0 ? 0 : w.number);
        w.number = -1;
        if (w.base.empty()) return {};
    }
    std::string out = w.base;
    if (end) {
        if (out == "head_end") {
        } else if (is_finger(out)) {
            out += "_end";
            w.number = -1;
        } else if (out == "head" || out == "toe") {
            out += "_end";
        } else {
            return {};
        }
    }
    if (!side.empty()) out += "." + side;
    // Fingers keep their segment; the chains (spine, neck) are ordered by the hierarchy instead.
    if (is_finger(w.base) && w.number >= 0) out += "#" + std::to_string(w.number);
    return out;
}

}  // namespace

bool is_rigify(const Skeleton& skeleton) {
    for (auto& j : skeleton.joints) {
        const std::string n = lower(j.name);
        const auto dot = n.rfind("spine.");
        if (dot != std::string::npos && n.size() == dot + 9 && std::isdigit(static_cast<unsigned char>(n[dot + 6]))) return true;
    }
    return false;
}

std::vector<std::string> canonical_names(const Skeleton& skeleton) {
    const bool rigify = is_rigify(skeleton);
    std::vector<std::string> names;
    for (auto& j : skeleton.joints) names.push_back(canonical(j.name, rigify));
    return names;
}

namespace {

// A name without namespace, in lower case: what two skeletons of one rig share.
std::string bare(std::string_view name) {
    if (auto colon = name.rfind(':'); colon != std::string_view::npos) name = name.substr(colon + 1);
    return lower(name);
}

}  // namespace

std::string canonical_joint_name(std::string_view name) { return canonical(name, false); }

BoneMap auto_bone_map(const Skeleton& source, const Skeleton& target) {
    const size_t ns = source.joints.size(), nt = target.joints.size();
    std::vector<int> to(ns, -1), from(nt, -1);
    auto pair = [&](size_t s, size_t t) {
        if (to[s] < 0 && from[t] < 0) {
            to[s] = int(t);
            from[t] = int(s);
        }
    };
    // 1. The same name (namespaces and letter case aside): one rig, or joints the vocabulary lacks.
    std::map<std::string, size_t> target_by_name;
    for (size_t t = nt; t-- > 0;) target_by_name[bare(target.joints[t].name)] = t;
    for (size_t s = 0; s < ns; ++s)
        if (auto it = target_by_name.find(bare(source.joints[s].name)); it != target_by_name.end()) pair(s, it->second);
    // 2. The same canonical name; the spine and neck chains spread over each other by their order.
    const auto cs = canonical_names(source), ct = canonical_names(target);
    for (std::string chain : {"spine", "neck"}) {
        std::vector<size_t> a, b;
        for (size_t s = 0; s < ns; ++s)
            if (cs[s] == chain && to[s] < 0) a.push_back(s);
        for (size_t t = 0; t < nt; ++t)
            if (ct[t] == chain && from[t] < 0) b.push_back(t);
        if (a.empty() || b.empty()) continue;
        // Both ends meet; the longer chain's extra joints are left to follow their parents.
        auto spread = [](size_t i, size_t from_count, size_t to_count) {
            return from_count == 1 ? 0 : size_t(std::lround(double(i) * double(to_count - 1) / double(from_count - 1)));
        };
        if (a.size() <= b.size())
            for (size_t i = 0; i < a.size(); ++i) pair(a[i], b[spread(i, a.size(), b.size())]);
        else
            for (size_t i = 0; i < b.size(); ++i) pair(a[spread(i, b.size(), a.size())], b[i]);
    }
    std::map<std::string, size_t> target_by_canonical;
    for (size_t t = nt; t-- > 0;)
        if (!ct[t].empty() && from[t] < 0) target_by_canonical[ct[t]] = t;
    for (size_t s = 0; s < ns; ++s)
        if (!cs[s].empty() && to[s] < 0)
            if (auto it = target_by_canonical.find(cs[s]); it != target_by_canonical.end()) pair(s, it->second);
    // 3. The hierarchy: under two mapped parents, the one child left open on each side.
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t s = 0; s < ns; ++s) {
            if (to[s] < 0) continue;
            std::vector<size_t> a, b;
            for (size_t c = s + 1; c < ns; ++c)
                if (source.joints[c].parent == int32_t(s) && to[c] < 0) a.push_back(c);
            for (size_t c = size_t(to[s]) + 1; c < nt; ++c)
                if (target.joints[c].parent == to[s] && from[c] < 0) b.push_back(c);
            if (a.size() == 1 && b.size() == 1) {
                pair(a[0], b[0]);
                changed = true;
            }
        }
    }
    BoneMap map;
    for (size_t s = 0; s < ns; ++s)
        if (to[s] >= 0) map.emplace_back(source.joints[s].name, target.joints[size_t(to[s])].name);
    return map;
}

}  // namespace rigport

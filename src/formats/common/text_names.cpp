// Quoted, unique joint names and the scale test shared by the MD5 and SMD writers.
#include "formats/common/text_names.hpp"

#include <fmt/format.h>

#include <set>

namespace rigport::detail {

std::string quoted(std::string_view name, bool& changed) {
    std::string s(name);
    for (char& c : s)
        if (c == '"' || c == '\n' || c == '\r') c = c == '"' ? '\'' : ' ', changed = true;
    return '"' + s + '"';
}

std::vector<std::string> unique_quoted_joint_names(const Skeleton& skeleton, bool& changed) {
    std::vector<std::string> names;
    std::set<std::string> used;
    for (size_t j = 0; j < skeleton.joints.size(); ++j) {
        const std::string& own = skeleton.joints[j].name;
        const std::string name = own.empty() ? fmt::format("joint{}", j) : own;
        changed = changed || own.empty();
        std::string q = quoted(name, changed);
        for (size_t k = 1; !used.insert(q).second; ++k) {
            q = quoted(fmt::format("{}_{}", name, k), changed);
            changed = true;
        }
        names.push_back(std::move(q));
    }
    return names;
}

bool has_joint_scale(const Scene& scene) {
    for (auto& j : scene.skeleton.joints)
        if (j.bind.scale != Vec3{1, 1, 1}) return true;
    for (auto& a : scene.animations)
        for (auto& t : a.tracks)
            if (t.channel == Channel::Scale)
                for (float v : t.values)
                    if (v != 1.0f) return true;
    return false;
}

}  // namespace rigport::detail

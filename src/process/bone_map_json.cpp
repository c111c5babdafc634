// Bone map files: a JSON object source joint -> target joint (docs/retarget.md "Map files"), read,
// written and laid over the auto map.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "rigport/retarget.hpp"

namespace rigport {

namespace {

Error map_error(const std::string& path, std::string message) {
    Error e = make_error(ErrorCode::Malformed, std::move(message));
    e.path = path;
    return e;
}

bool has_joint(const Skeleton& skeleton, const std::string& name) {
    for (auto& j : skeleton.joints)
        if (j.name == name) return true;
    return false;
}

}  // namespace

Expected<BoneMapOverrides> parse_bone_map(std::string_view json, const std::string& path) {
    using Json = nlohmann::ordered_json;
    Json j = Json::parse(json.begin(), json.end(), nullptr, false);
    if (j.is_discarded()) return map_error(path, "not JSON: a bone map is an object {\"source joint\": \"target joint\", ...}");
    if (!j.is_object()) return map_error(path, fmt::format("a bone map is a JSON object {{\"source joint\": \"target joint\", ...}}, not {}", j.type_name()));
    BoneMapOverrides out;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.value().is_null())
            out.pairs.emplace_back(it.key(), std::nullopt);
        else if (it.value().is_string())
            out.pairs.emplace_back(it.key(), it.value().get<std::string>());
        else
            return map_error(path, fmt::format("\"{}\": expected a target joint's name or null, not {}", it.key(), it.value().type_name()));
    }
    return out;
}

std::string bone_map_json(const BoneMap& map) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (auto& [source, target] : map) j[source] = target;
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Expected<BoneMap> apply_bone_map(BoneMap map, const BoneMapOverrides& overrides, const Skeleton& source, const Skeleton& target,
                                 const std::string& path) {
    // A target joint the file names twice: which source joint drives it is not said.
    std::map<std::string, std::string> file_targets;
    for (auto& [s, t] : overrides.pairs) {
        if (!has_joint(source, s)) return map_error(path, fmt::format("\"{}\": the clips' skeleton has no such joint", s));
        if (t && !has_joint(target, *t)) return map_error(path, fmt::format("\"{}\": the target skeleton has no joint \"{}\"", s, *t));
        if (t)
            if (auto [it, fresh] = file_targets.emplace(*t, s); !fresh)
                return map_error(path, fmt::format("\"{}\" and \"{}\" both map to \"{}\"", it->second, s, *t));
        const std::string& from = s;  // clang 14 cannot capture a structured binding
        const auto& to = t;
        std::erase_if(map, [&](const auto& p) { return p.first == from || (to && p.second == *to); });
        if (t) map.emplace_back(s, *t);
    }
    // Back in the source skeleton's order, so a saved map reads like the skeleton.
    BoneMap ordered;
    std::set<std::string> placed;
    for (auto& j : source.joints)
        if (placed.insert(j.name).second)
            for (auto& p : map)
                if (p.first == j.name) ordered.push_back(p);
    return ordered;
}

}  // namespace rigport

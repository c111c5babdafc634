// Influence limits: the heaviest max_influences per vertex above min_weight, renormalized
// (docs/iqe.md §1 `vb`, docs/iqm.md §3.2 step 8: IQM keeps the 4 heaviest, renormalized).
#include <algorithm>
#include <cmath>

#include "rigport/process.hpp"

namespace rigport {

void limit_weights(Scene& scene, uint32_t max_influences, float min_weight) {
    for (auto& mesh : scene.meshes) {
        SkinInfluences& skin = mesh.skin;
        if (skin.empty()) continue;
        std::vector<Influence> kept;
        std::vector<Influence> out;
        out.reserve(skin.influences.size());
        const uint32_t n = uint32_t(skin.offsets.size() - 1);
        for (uint32_t v = 0; v < n; ++v) {
            kept.clear();
            for (uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i)
                if (skin.influences[i].weight > min_weight) kept.push_back(skin.influences[i]);  // NaN fails too
            // Heaviest first; equal weights keep their stored order.
            std::stable_sort(kept.begin(), kept.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
            if (kept.size() > max_influences) kept.resize(max_influences);
            double sum = 0;
            for (auto& inf : kept) sum += inf.weight;
            // sum can only be 0 when nothing is kept or min_weight < 0 lets zeros through.
            if (sum > 0 && std::isfinite(sum))
                for (auto& inf : kept) inf.weight = float(inf.weight / sum);
            skin.offsets[v] = uint32_t(out.size());
            out.insert(out.end(), kept.begin(), kept.end());
        }
        skin.offsets[n] = uint32_t(out.size());
        skin.influences = std::move(out);
    }
}

}  // namespace rigport

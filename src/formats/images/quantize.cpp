// Colour quantisation to a palette of 256 (docs/targets.md "Textures"): Heckbert's median cut
// ("Color image quantization for frame buffer display", 1982) over the image's distinct colours,
// weighted by their counts, each box's colour the weighted mean of its colours; each pixel then
// takes the nearest entry (squared RGB distance, the first of equals). An image of 256 colours or
// fewer keeps them exactly.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "formats/images/image_files.hpp"

namespace rigport::images {

namespace {

struct Colour {
    std::array<uint8_t, 3> rgb;
    uint64_t count;
};

struct Box {
    size_t begin, end;  // a range of the colour list
};

// The channel of widest range in the box, and that range.
std::pair<int, int> widest(const std::vector<Colour>& colours, const Box& box) {
    int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
    for (size_t i = box.begin; i < box.end; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = std::min<int>(lo[k], colours[i].rgb[k]), hi[k] = std::max<int>(hi[k], colours[i].rgb[k]);
    int channel = 0;
    for (int k = 1; k < 3; ++k)
        if (hi[k] - lo[k] > hi[channel] - lo[channel]) channel = k;
    return {channel, hi[channel] - lo[channel]};
}

}  // namespace

Paletted quantize_colours(const detail::RgbaImage& image) {
    Paletted out;
    const size_t pixels = size_t(image.width) * image.height;
    std::map<uint32_t, uint64_t> counted;  // ordered: the palette does not depend on hashing
    for (size_t p = 0; p < pixels; ++p) {
        const uint8_t* c = image.rgba.data() + p * 4;
        ++counted[uint32_t(c[0]) << 16 | uint32_t(c[1]) << 8 | c[2]];
    }
    std::vector<Colour> colours;
    colours.reserve(counted.size());
    for (auto& [key, n] : counted) colours.push_back({{uint8_t(key >> 16), uint8_t(key >> 8), uint8_t(key)}, n});

    if (colours.size() <= 256) {
        for (auto& c : colours) out.palette.push_back(c.rgb);
    } else {
        // Split the box of widest range at its weighted median until there are 256.
        std::vector<Box> boxes{{0, colours.size()}};
        while (boxes.size() < 256) {
            size_t pick = boxes.size();
            int best = 0;
            for (size_t b = 0; b < boxes.size(); ++b) {
                if (boxes[b].end - boxes[b].begin < 2) continue;
                const int range = widest(colours, boxes[b]).second;
                if (range > best) best = range, pick = b;
            }
            if (pick == boxes.size()) break;  // every box holds one colour
            const Box box = boxes[pick];
            const int channel = widest(colours, box).first;
            std::stable_sort(colours.begin() + long(box.begin), colours.begin() + long(box.end),
                             [channel](const Colour& a, const Colour& b) { return a.rgb[channel] < b.rgb[channel]; });
            uint64_t total = 0;
            for (size_t i = box.begin; i < box.end; ++i) total += colours[i].count;
            uint64_t run = 0;
            size_t cut = box.begin + 1;
            for (size_t i = box.begin; i + 1 < box.end; ++i) {
                run += colours[i].count;
                cut = i + 1;
                if (run * 2 >= total) break;
            }
            boxes[pick] = {box.begin, cut};
            boxes.push_back({cut, box.end});
        }
        for (const Box& box : boxes) {
            double sum[3] = {0, 0, 0};
            uint64_t n = 0;
            for (size_t i = box.begin; i < box.end; ++i) {
                for (int k = 0; k < 3; ++k) sum[k] += double(colours[i].rgb[k]) * double(colours[i].count);
                n += colours[i].count;
            }
            std::array<uint8_t, 3> mean{};
            for (int k = 0; k < 3; ++k) mean[size_t(k)] = uint8_t(std::clamp(sum[k] / double(n) + 0.5, 0.0, 255.0));
            out.palette.push_back(mean);
        }
    }

    std::unordered_map<uint32_t, uint8_t> nearest;
    out.indices.resize(pixels);
    for (size_t p = 0; p < pixels; ++p) {
        const uint8_t* c = image.rgba.data() + p * 4;
        const uint32_t key = uint32_t(c[0]) << 16 | uint32_t(c[1]) << 8 | c[2];
        auto [it, added] = nearest.try_emplace(key, 0);
        if (added) {
            int best = INT32_MAX;
            for (size_t i = 0; i < out.palette.size(); ++i) {
                const int dr = int(out.palette[i][0]) - c[0], dg = int(out.palette[i][1]) - c[1], db = int(out.palette[i][2]) - c[2];
                const int d = dr * dr + dg * dg + db * db;
                if (d < best) best = d, it->second = uint8_t(i);
            }
        }
        out.indices[p] = it->second;
    }
    return out;
}

}  // namespace rigport::images

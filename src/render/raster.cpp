// Triangle and line rasterization into a SampleGrid (raster.hpp).
#include "render/raster.hpp"

#include <algorithm>
#include <cmath>

namespace rigport::raster {

SampleGrid::SampleGrid(uint32_t width, uint32_t height, Rgba background)
    : width_(width), height_(height), colour_(size_t(width) * height, background),
      depth_(size_t(width) * height, -std::numeric_limits<float>::infinity()) {}

namespace {

// Twice the signed area of (a, b, p): positive when p lies left of a -> b in a y-down grid
// seen as y-up, i.e. on the inside of a triangle wound a, b, c with positive area.
double edge(const ScreenPoint& a, const ScreenPoint& b, double px, double py) {
    return (double(b.x) - a.x) * (py - a.y) - (double(b.y) - a.y) * (px - a.x);
}

// Top-left rule: a sample exactly on an edge belongs to the triangle only for a top or a left
// edge, so two triangles sharing an edge never both draw (nor both miss) a sample on it.
bool top_left(const ScreenPoint& a, const ScreenPoint& b) {
    return (a.y == b.y && b.x < a.x) || b.y < a.y;
}

}  // namespace

uint64_t SampleGrid::triangle(const ScreenPoint& a, const ScreenPoint& b0, const ScreenPoint& c0,
                          const std::function<Rgba(float, float, float)>& shade) {
    // Wound so that the area is positive; the weights follow the swap.
    const double area0 = edge(a, b0, c0.x, c0.y);
    if (!(std::abs(area0) > 0) || !std::isfinite(area0)) return 0;
    const bool swapped = area0 < 0;
    const ScreenPoint& b = swapped ? c0 : b0;
    const ScreenPoint& c = swapped ? b0 : c0;
    const double area = std::abs(area0);
    const double min_x = std::max(0.0, std::floor(double(std::min({a.x, b.x, c.x}))));
    const double max_x = std::min(double(width_) - 1, std::ceil(double(std::max({a.x, b.x, c.x}))));
    const double min_y = std::max(0.0, std::floor(double(std::min({a.y, b.y, c.y}))));
    const double max_y = std::min(double(height_) - 1, std::ceil(double(std::max({a.y, b.y, c.y}))));
    if (min_x > max_x || min_y > max_y) return 0;
    const bool tl_a = top_left(b, c), tl_b = top_left(c, a), tl_c = top_left(a, b);
    for (int32_t y = int32_t(min_y); y <= int32_t(max_y); ++y) {
        const double py = y + 0.5;
        for (int32_t x = int32_t(min_x); x <= int32_t(max_x); ++x) {
            const double px = x + 0.5;
            const double wa = edge(b, c, px, py), wb = edge(c, a, px, py), wc = edge(a, b, px, py);
            if (wa < 0 || wb < 0 || wc < 0) continue;
            if ((wa == 0 && !tl_a) || (wb == 0 && !tl_b) || (wc == 0 && !tl_c)) continue;
            const float la = float(wa / area), lb = float(wb / area), lc = float(wc / area);
            const float depth = la * a.depth + lb * b.depth + lc * c.depth;
            const size_t at = size_t(y) * width_ + size_t(x);
            if (!(depth > depth_[at])) continue;
            depth_[at] = depth;
            colour_[at] = swapped ? shade(la, lc, lb) : shade(la, lb, lc);
        }
    }
    return uint64_t(max_x - min_x + 1) * uint64_t(max_y - min_y + 1);
}

void SampleGrid::put(int32_t x, int32_t y, float depth, Rgba colour, float depth_bias) {
    if (x < 0 || y < 0 || uint32_t(x) >= width_ || uint32_t(y) >= height_) return;
    const size_t at = size_t(y) * width_ + size_t(x);
    if (depth_bias >= 0 && !(depth + depth_bias >= depth_[at])) return;
    colour_[at] = colour;
}

void SampleGrid::line(const ScreenPoint& a, const ScreenPoint& b, Rgba colour, uint32_t thickness, float depth_bias) {
    const double dx = double(b.x) - a.x, dy = double(b.y) - a.y;
    const double length = std::max(std::abs(dx), std::abs(dy));
    if (!std::isfinite(length)) return;
    // One step per sample along the longer axis; the cap keeps a line far off the grid cheap.
    const int64_t steps = int64_t(std::min(length, 4.0 * std::max(width_, height_))) + 1;
    const int32_t half = int32_t(thickness / 2);
    for (int64_t i = 0; i <= steps; ++i) {
        const double t = double(i) / double(steps);
        const int32_t x = int32_t(std::floor(a.x + dx * t)), y = int32_t(std::floor(a.y + dy * t));
        const float depth = float(a.depth + (double(b.depth) - a.depth) * t);
        for (int32_t oy = -half; oy < int32_t(thickness) - half; ++oy)
            for (int32_t ox = -half; ox < int32_t(thickness) - half; ++ox) put(x + ox, y + oy, depth, colour, depth_bias);
    }
}

void SampleGrid::dot(const ScreenPoint& p, Rgba colour, uint32_t size) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return;
    const int32_t half = int32_t(size / 2);
    const int32_t x = int32_t(std::floor(p.x)), y = int32_t(std::floor(p.y));
    for (int32_t oy = -half; oy < int32_t(size) - half; ++oy)
        for (int32_t ox = -half; ox < int32_t(size) - half; ++ox) put(x + ox, y + oy, 0, colour, -1);
}

std::vector<uint8_t> SampleGrid::resolve(uint32_t factor) const {
    const uint32_t w = width_ / factor, h = height_ / factor, n = factor * factor;
    std::vector<uint8_t> out(size_t(w) * h * 4);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint32_t sum[4] = {};
            for (uint32_t sy = 0; sy < factor; ++sy)
                for (uint32_t sx = 0; sx < factor; ++sx) {
                    const Rgba& s = colour_[size_t(y * factor + sy) * width_ + x * factor + sx];
                    for (int k = 0; k < 4; ++k) sum[k] += s[k];
                }
            for (int k = 0; k < 4; ++k) out[(size_t(y) * w + x) * 4 + k] = uint8_t((sum[k] + n / 2) / n);
        }
    return out;
}

}  // namespace rigport::raster

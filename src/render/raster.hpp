// A depth-buffered sample grid and the two primitives drawn into it: triangles (edge functions,
// top-left fill rule) and lines. Plain scalar code, one sample at a time, so results are exact
// and the same on every machine.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace rigport::raster {

// A point on the grid: x, y in samples (y down), depth larger = nearer the camera.
struct ScreenPoint {
    float x = 0, y = 0, depth = 0;
};

using Rgba = std::array<uint8_t, 4>;

class SampleGrid {
public:
    SampleGrid(uint32_t width, uint32_t height, Rgba background);
    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }

    // Fills the samples whose centres lie inside the triangle and nearer than what is there.
    // shade(b0, b1, b2) gives the colour from the barycentric weights of a, b, c. Returns the
    // samples tested (its clipped bounding box): the work it took.
    uint64_t triangle(const ScreenPoint& a, const ScreenPoint& b, const ScreenPoint& c,
                  const std::function<Rgba(float, float, float)>& shade);
    // A line `thickness` samples wide. depth_bias >= 0: drawn where it is no more than that behind
    // the surface there (edges of visible triangles); < 0: drawn over everything.
    void line(const ScreenPoint& a, const ScreenPoint& b, Rgba colour, uint32_t thickness, float depth_bias);
    // A filled square of side `size` samples centred on p, over everything.
    void dot(const ScreenPoint& p, Rgba colour, uint32_t size);

    // Each factor x factor block of samples averaged into one pixel (rounded to nearest).
    std::vector<uint8_t> resolve(uint32_t factor) const;

private:
    void put(int32_t x, int32_t y, float depth, Rgba colour, float depth_bias);
    uint32_t width_, height_;
    std::vector<Rgba> colour_;
    std::vector<float> depth_;
};

}  // namespace rigport::raster

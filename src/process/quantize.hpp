// IQM channel quantization (the IQM writer and its tests). Not public API.
#pragma once

#include <cstdint>

#include "rigport/process.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// Per pose and channel over all frames of all animations: offset = min, scale = (max-min)/65535,
// u16 = uint16(0.5f + (v-min)/scale) clamped; constant channels (max-min < 1e-10) get scale 0 and
// their mask bit clear. docs/iqm.md §1.7.
struct QuantizedChannel {
    bool animated = false;
    float offset = 0.0f;
    float scale = 0.0f;
};
QuantizedChannel quantize_range(float min, float max);
uint16_t quantize_value(float value, const QuantizedChannel& channel);
float dequantize_value(uint16_t sample, const QuantizedChannel& channel);


}  // namespace rigport

// IQM pose-channel quantization in the reference compiler's float arithmetic (docs/iqm.md §1.7).
#include "process/quantize.hpp"
#include "rigport/process.hpp"

#include <cmath>

namespace rigport {

QuantizedChannel quantize_range(float min, float max) {
    QuantizedChannel c;
    c.offset = min;  // a constant channel keeps its value here
    float range = max - min;
    if (range >= 1e-10f) {  // the compiler's test; NaN fails it and stays constant
        c.animated = true;
        c.scale = range / 65535.0f;
        // max - min of finite floats can pass FLT_MAX (-3e38 .. 3e38): an infinite scale decodes
        // to NaN or infinity, a file no reader accepts. Such a range is taken in double, and the
        // scale stepped down until the largest sample decodes to a finite value.
        if (!std::isfinite(range)) {
            c.scale = float((double(max) - double(min)) / 65535.0);
            while (!std::isfinite(c.offset + 65535.0f * c.scale)) c.scale = std::nextafter(c.scale, 0.0f);
        }
    }
    return c;
}

uint16_t quantize_value(float value, const QuantizedChannel& channel) {
    if (!channel.animated || !(channel.scale > 0)) return 0;
    // The compiler's ushort(0.5f + (v - offset) / scale), clamped where it would wrap.
    float q = 0.5f + (value - channel.offset) / channel.scale;
    if (!(q >= 0.0f)) return 0;  // also NaN
    if (q >= 65535.0f) return 65535;
    return static_cast<uint16_t>(q);
}

float dequantize_value(uint16_t sample, const QuantizedChannel& channel) {
    return channel.offset + float(sample) * channel.scale;
}

}  // namespace rigport

// glTF reader: accessors (glTF 2.0 §3.6.2): every componentType, normalized integers (§3.11
// formulas), byteStride, matrix column padding, sparse substitution, and no bufferView = zeros.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::gltf::read_detail {

namespace {

constexpr uint32_t INT = 5124;  // not valid glTF 2.0, but unambiguous: read as int32

uint32_t component_size(uint32_t type) {
    switch (type) {
        case BYTE: case UNSIGNED_BYTE: return 1;
        case SHORT: case UNSIGNED_SHORT: return 2;
        case INT: case UNSIGNED_INT: case FLOAT: return 4;
        default: return 0;
    }
}

double load(const uint8_t* p, uint32_t type) { return Accessor::decode(p, type); }

// Components per element of an accessor type, and rows per column for matrices (0 otherwise).
bool parse_type(const std::string& type, uint32_t& components, uint32_t& rows) {
    static const struct { const char* name; uint32_t components, rows; } types[] = {
        {"SCALAR", 1, 0}, {"VEC2", 2, 0}, {"VEC3", 3, 0}, {"VEC4", 4, 0}, {"MAT2", 4, 2}, {"MAT3", 9, 3}, {"MAT4", 16, 4}};
    for (auto& t : types)
        if (type == t.name) return components = t.components, rows = t.rows, true;
    return false;
}

}  // namespace

double Accessor::normalize(double v) const {
    switch (component_type) {  // glTF 2.0 §3.11: c / (2^(n-1) - 1) clamped to -1; c / (2^n - 1)
        case BYTE: return std::max(v / 127.0, -1.0);
        case UNSIGNED_BYTE: return v / 255.0;
        case SHORT: return std::max(v / 32767.0, -1.0);
        case UNSIGNED_SHORT: return v / 65535.0;
        case INT: return std::max(v / 2147483647.0, -1.0);
        case UNSIGNED_INT: return v / 4294967295.0;
        default: return v;
    }
}

void Reader::install_accessor(uint32_t which, std::unique_ptr<Accessor> decoded) {
    if (accessors_.size() < count("accessors")) accessors_.resize(count("accessors"));
    if (which < accessors_.size()) accessors_[which] = std::move(decoded);
}

const Accessor* Reader::accessor(uint32_t which) {
    if (accessors_.size() < count("accessors")) accessors_.resize(count("accessors"));
    if (which >= accessors_.size()) return fail(ErrorCode::Malformed, fmt::format("/accessors/{}", which), "missing"), nullptr;
    if (accessors_[which]) return accessors_[which].get();
    const std::string path = fmt::format("/accessors/{}", which);
    const Json* j = item("accessors", which);
    auto a = std::make_unique<Accessor>();
    a->path = path;
    uint64_t component_type = 0, count_ = 0, offset = 0;
    uint32_t view = none, rows = 0;
    std::string type;
    if (!j || !uint(*j, "componentType", path, component_type, true) || !uint(*j, "count", path, count_, true) ||
        !string(*j, "type", path, type) || !boolean(*j, "normalized", path, a->normalized) || !uint(*j, "byteOffset", path, offset, false) ||
        !index(*j, "bufferView", path, view, false, "bufferViews", this->count("bufferViews")))
        return nullptr;
    const uint32_t size = component_size(uint32_t(component_type));
    if (size == 0 || component_type > UINT32_MAX) return malformed(path + "/componentType", fmt::format("{} is not a component type", component_type)), nullptr;
    if (!parse_type(type, a->components, rows)) return malformed(path + "/type", fmt::format("'{}' is not an accessor type", detail::excerpt(type))), nullptr;
    if (count_ == 0) return malformed(path + "/count", "0 (an accessor holds at least one element)"), nullptr;
    if (count_ > options.max_elements)
        return fail(ErrorCode::LimitExceeded, path + "/count", fmt::format("{} exceeds max_elements {}", count_, options.max_elements)), nullptr;
    a->component_type = uint32_t(component_type);
    a->type = type;
    a->count = count_;
    if (component_type == FLOAT || component_type == UNSIGNED_INT) a->normalized = false;
    // Matrix columns start on 4-byte boundaries (§3.6.2.4): MAT2 / MAT3 of 1- and 2-byte components are padded.
    const uint32_t column = rows ? (rows * size + 3) / 4 * 4 : 0;
    for (uint32_t c = 0; c < a->components; ++c) a->offsets.push_back(rows ? c / rows * column + c % rows * size : c * size);
    const uint64_t element = rows ? uint64_t(column) * rows : uint64_t(size) * a->components;

    if (view != none) {
        uint32_t view_stride = 0;
        auto bytes = buffer_view(view, view_stride);
        if (!bytes) return nullptr;
        a->stride = view_stride ? view_stride : element;
        if (a->stride < element)
            return malformed(fmt::format("/bufferViews/{}/byteStride", view),
                             fmt::format("{} is smaller than the {}-byte {} elements of {}", a->stride, element, type, path)), nullptr;
        // The last element ends at offset + stride * (count - 1) + element (overflow-safe).
        if (!io::range_fits(offset, count_ - 1, a->stride, bytes->size()) || offset + a->stride * (count_ - 1) + element > bytes->size())
            return malformed(path + "/count", fmt::format("{} exceeds the {}-byte bufferView {} ({}-byte {} elements, stride {}, byteOffset {})",
                                                          count_, bytes->size(), view, element, type, a->stride, offset)),
                   nullptr;
        a->data = bytes->subspan(offset);
    } else if (offset != 0) {
        return malformed(path + "/byteOffset", "given without a bufferView"), nullptr;
    } else if (!object(*j, "sparse", path) && (!ok() || !spend_unbacked(count_ * a->components, path))) {
        return nullptr;  // zeros the file does not store: bounded by the bytes it has
    }

    if (const Json* sparse = object(*j, "sparse", path)) {
        const std::string sp = path + "/sparse";
        uint64_t n = 0;
        if (!uint(*sparse, "count", sp, n, true)) return nullptr;
        if (n == 0 || n > count_) return malformed(sp + "/count", fmt::format("{} is not in 1..count {}", n, count_)), nullptr;
        if (count_ * a->components > options.max_elements)
            return fail(ErrorCode::LimitExceeded, path, fmt::format("a sparse accessor of {} values exceeds max_elements {}", count_ * a->components, options.max_elements)), nullptr;
        if (!spend(count_ * a->components, path) || !spend_unbacked(count_ * a->components, path)) return nullptr;
        const Json* indices = object(*sparse, "indices", sp);
        const Json* values = object(*sparse, "values", sp);
        if (!ok()) return nullptr;
        if (!indices || !values) return malformed(sp, "needs both indices and values"), nullptr;
        uint32_t iview = none, vview = none, istride = 0, vstride = 0;
        uint64_t itype = 0, ioffset = 0, voffset = 0;
        if (!index(*indices, "bufferView", sp + "/indices", iview, true, "bufferViews", this->count("bufferViews")) ||
            !uint(*indices, "componentType", sp + "/indices", itype, true) || !uint(*indices, "byteOffset", sp + "/indices", ioffset, false) ||
            !index(*values, "bufferView", sp + "/values", vview, true, "bufferViews", this->count("bufferViews")) ||
            !uint(*values, "byteOffset", sp + "/values", voffset, false))
            return nullptr;
        if (itype != UNSIGNED_BYTE && itype != UNSIGNED_SHORT && itype != UNSIGNED_INT)
            return malformed(sp + "/indices/componentType", fmt::format("{} is not 5121, 5123 or 5125", itype)), nullptr;
        auto ibytes = buffer_view(iview, istride);
        auto vbytes = ibytes ? buffer_view(vview, vstride) : std::nullopt;
        if (!ibytes || !vbytes) return nullptr;
        const uint32_t isize = component_size(uint32_t(itype));
        if (!io::range_fits(ioffset, n, isize, ibytes->size()))
            return malformed(sp + "/count", fmt::format("{} indices exceed bufferView {} from byteOffset {}", n, iview, ioffset)), nullptr;
        if (!io::range_fits(voffset, n, element, vbytes->size()))
            return malformed(sp + "/count", fmt::format("{} values exceed bufferView {} from byteOffset {}", n, vview, voffset)), nullptr;
        a->dense.resize(count_ * a->components);
        for (uint64_t e = 0; e < count_; ++e)
            for (uint32_t c = 0; c < a->components; ++c) a->dense[e * a->components + c] = a->data.empty() ? 0.0 : load(a->data.data() + e * a->stride + a->offsets[c], a->component_type);
        int64_t previous = -1;
        for (uint64_t k = 0; k < n; ++k) {
            const uint64_t target = uint64_t(load(ibytes->data() + ioffset + k * isize, uint32_t(itype)));
            if (int64_t(target) <= previous || target >= count_)
                return malformed(fmt::format("{}/indices", sp), fmt::format("index {} is {}: indices must increase and stay below count {}", k, target, count_)), nullptr;
            previous = int64_t(target);
            for (uint32_t c = 0; c < a->components; ++c)
                a->dense[target * a->components + c] = load(vbytes->data() + voffset + k * element + a->offsets[c], a->component_type);
        }
    }
    // NaN and infinity are invalid accessor data (ACCESSOR_INVALID_FLOAT) and no writer can keep them.
    if (a->component_type == FLOAT && a->dense.empty() && !a->data.empty()) {
        // The same test on the stored bits, without a double per value: exponent all ones.
        for (uint64_t e = 0; e < a->count; ++e)
            for (uint32_t c = 0; c < a->components; ++c) {
                const uint8_t* p = a->data.data() + e * a->stride + a->offsets[c];
                if ((p[3] & 0x7F) == 0x7F && (p[2] & 0x80)) return malformed(path, fmt::format("element {} is not a finite number", e)), nullptr;
            }
    } else if (a->component_type == FLOAT)
        for (uint64_t e = 0; e < a->count; ++e)
            for (uint32_t c = 0; c < a->components; ++c)
                if (!std::isfinite(a->raw(e, c))) return malformed(path, fmt::format("element {} is not a finite number", e)), nullptr;
    accessors_[which] = std::move(a);
    return accessors_[which].get();
}

}  // namespace rigport::gltf::read_detail

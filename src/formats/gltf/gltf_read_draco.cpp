// glTF reader: primitives compressed with KHR_draco_mesh_compression (docs/gltf.md §7.1): the
// Draco mesh in the extension's bufferView is decoded by Debian's libdraco, and each attribute it
// names (and the faces, as indices) replaces the primitive's accessor, which then reads as if the
// file stored it. The accessors keep their declared type, count and normalization.
#include <fmt/format.h>

#include <draco/compression/decode.h>

#include <algorithm>
#include <cmath>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

namespace {

uint32_t components_of(const std::string& type) {
    return type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : type == "VEC4" ? 4 : 0;
}

// The accessor `index` as declared (type, count, normalized), to be filled with decoded values.
std::unique_ptr<Accessor> declared(Reader& r, uint32_t index) {
    const std::string path = fmt::format("/accessors/{}", index);
    const Json* j = r.item("accessors", index);
    auto a = std::make_unique<Accessor>();
    a->path = path;
    uint64_t component_type = 0, count = 0;
    if (!j || !r.uint(*j, "componentType", path, component_type, true) || !r.uint(*j, "count", path, count, true) ||
        !r.string(*j, "type", path, a->type) || !r.boolean(*j, "normalized", path, a->normalized))
        return nullptr;
    static const uint64_t types[] = {BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT, FLOAT};
    if (std::find(std::begin(types), std::end(types), component_type) == std::end(types))
        return r.malformed(path + "/componentType", fmt::format("{} is not a component type", component_type)), nullptr;
    a->components = components_of(a->type);
    if (a->components == 0)
        return r.malformed(path + "/type", fmt::format("'{}' is not SCALAR or VEC2..VEC4 (a Draco attribute)", detail::excerpt(a->type))), nullptr;
    if (count == 0 || count > r.options.max_elements)
        return r.fail(count ? ErrorCode::LimitExceeded : ErrorCode::Malformed, path + "/count", fmt::format("{} is not in 1..max_elements {}", count, r.options.max_elements)),
               nullptr;
    a->component_type = uint32_t(component_type);
    a->count = count;
    if (component_type == FLOAT || component_type == UNSIGNED_INT) a->normalized = false;
    return a;
}

}  // namespace

bool decode_draco(Reader& r, const Json& prim, const Json& ext, const std::string& path) {
    const std::string at = path + "/extensions/KHR_draco_mesh_compression";
    if (std::find(r.draco_decoded.begin(), r.draco_decoded.end(), path) != r.draco_decoded.end()) return true;
    uint32_t view = none;
    if (!ext.is_object()) return r.malformed(at, "expected an object");
    const Json* attributes = r.object(ext, "attributes", at);
    if (!r.ok() || !r.index(ext, "bufferView", at, view, true, "bufferViews", r.count("bufferViews"))) return false;
    if (!attributes) return r.malformed(at + "/attributes", "missing");
    uint32_t stride = 0;
    auto bytes = r.buffer_view(view, stride);
    if (!bytes) return false;
    const std::string vpath = fmt::format("/bufferViews/{}", view);

    // Draco's own header says how many points and faces follow; its decoder sizes its arrays by
    // them, so the stream is refused unless the declared accessors agree with what it decodes
    // and the decoded values fit the decompression budget.
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
    if (!type.ok() || type.value() != draco::TRIANGULAR_MESH)
        return r.malformed(vpath, fmt::format("KHR_draco_mesh_compression data is not a Draco triangle mesh{}",
                                              type.ok() ? "" : " (" + type.status().error_msg_string() + ")"));
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok() || !decoded.value())
        return r.malformed(vpath, fmt::format("KHR_draco_mesh_compression data does not decode ({})", decoded.ok() ? "no mesh" : decoded.status().error_msg_string()));
    const draco::Mesh& mesh = *decoded.value();
    const uint64_t points = mesh.num_points(), faces = mesh.num_faces();

    uint32_t indices = none;
    if (!r.index(prim, "indices", path, indices, false, "accessors", r.count("accessors"))) return false;
    if (indices != none) {
        auto a = declared(r, indices);
        if (!a) return false;
        if (a->components != 1 || a->component_type == FLOAT)
            return r.malformed(path + "/indices", fmt::format("accessor {} is not SCALAR integers", indices));
        if (a->count != faces * 3)
            return r.malformed(path + "/indices", fmt::format("accessor {} has {} indices; the Draco mesh in bufferView {} has {} triangles", indices, a->count, view, faces));
        if (!r.spend_decoded(a->count * sizeof(double), at)) return false;
        a->dense.resize(a->count);
        for (draco::FaceIndex f(0); f < mesh.num_faces(); ++f)
            for (int k = 0; k < 3; ++k) a->dense[uint64_t(f.value()) * 3 + k] = mesh.face(f)[k].value();
        r.install_accessor(indices, std::move(a));
    }
    const Json* prim_attributes = Reader::find(prim, "attributes");  // an object: checked by the caller
    for (auto it = attributes->begin(); it != attributes->end(); ++it) {
        const std::string name(it->key());
        const std::string apath = at + "/attributes/" + name;
        const Json* target = prim_attributes ? Reader::find(*prim_attributes, name.c_str()) : nullptr;
        uint32_t accessor = none;
        if (it->kind != Json::Kind::Unsigned) return r.malformed(apath, "expected a Draco attribute id");
        const uint64_t id = it->u;
        if (!target) return r.malformed(apath, fmt::format("the primitive has no attribute {}", detail::excerpt(name)));
        if (!r.index_value(*target, path + "/attributes/" + name, accessor, "accessors", r.count("accessors"))) return false;
        const draco::PointAttribute* attribute = id <= INT32_MAX ? mesh.GetAttributeByUniqueId(uint32_t(id)) : nullptr;
        if (!attribute) return r.malformed(apath, fmt::format("the Draco mesh in bufferView {} has no attribute {}", view, id));
        auto a = declared(r, accessor);
        if (!a) return false;
        if (a->count != points)
            return r.malformed(apath, fmt::format("accessor {} has {} elements; the Draco mesh in bufferView {} has {} points", accessor, a->count, view, points));
        if (attribute->num_components() != a->components)
            return r.malformed(apath, fmt::format("accessor {} is {}; Draco attribute {} has {} components", accessor, a->type, id, int(attribute->num_components())));
        if (!r.spend_decoded(a->count * a->components * sizeof(double), at)) return false;
        a->dense.resize(a->count * a->components);
        // Integer accessors keep their stored integers (the accessor normalizes them as the file
        // says); float accessors get floats, dequantized by Draco.
        const bool integers = a->component_type != FLOAT;
        for (draco::PointIndex p(0); p < mesh.num_points(); ++p) {
            const draco::AttributeValueIndex v = attribute->mapped_index(p);
            double* out = a->dense.data() + uint64_t(p.value()) * a->components;
            bool converted = false;
            if (integers) {
                int64_t value[4] = {};
                converted = attribute->ConvertValue<int64_t>(v, int8_t(a->components), value);
                for (uint32_t c = 0; c < a->components; ++c) out[c] = double(value[c]);
            } else {
                float value[4] = {};
                converted = attribute->ConvertValue<float>(v, int8_t(a->components), value);
                for (uint32_t c = 0; c < a->components; ++c) out[c] = value[c];
            }
            if (!converted) return r.malformed(apath, fmt::format("Draco attribute {}: point {} does not convert to the accessor's type", id, p.value()));
        }
        if (!integers)
            for (double d : a->dense)
                if (!std::isfinite(d)) return r.malformed(apath, "Draco attribute holds a value that is not a finite number");
        r.install_accessor(accessor, std::move(a));
    }
    r.draco_decoded.push_back(path);
    return true;
}

}  // namespace rigport::gltf::read_detail

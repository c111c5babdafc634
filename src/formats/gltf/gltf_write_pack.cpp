// EXT_meshopt_compression packing: every vertex, index, skin and animation bufferView encoded with
// meshoptimizer's vertex and index codecs into buffer 0, the views themselves moved to a fallback
// buffer without data (EXT_meshopt_compression; docs/gltf.md "Compressed output").
#include <meshoptimizer.h>

#include <algorithm>
#include <mutex>
#include <string_view>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"

namespace rigport::gltf {

namespace {

void align4(std::vector<uint8_t>& bytes) { bytes.resize((bytes.size() + 3) / 4 * 4, 0); }

// The extension decodes index data of codec version 1 (header 0xe1) and vertex data of version 0
// (0xa0). meshoptimizer 0.18 encodes indices as version 0 unless told; the setting is global, so
// it is made once for the process.
void use_extension_codec_versions() {
    static std::once_flag once;
    std::call_once(once, [] {
        meshopt_encodeIndexVersion(1);
        meshopt_encodeVertexVersion(0);
    });
}

uint64_t read_index(const uint8_t* p, uint32_t size) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < size; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

// The encoded bytes of one view, or nothing when it cannot be compressed (its stride is not a
// multiple of 4, as the extension requires of ATTRIBUTES).
bool encode_view(const BufferView& view, const Accessor& accessor, std::span<const uint8_t> bytes, MeshoptView& m,
                 std::vector<uint8_t>& encoded) {
    const uint32_t size = component_bytes(accessor.component_type);
    if (view.target == ELEMENT_ARRAY_BUFFER) {
        if (size != 2 && size != 4) return false;
        std::vector<uint32_t> indices(accessor.count);
        for (uint32_t i = 0; i < accessor.count; ++i) indices[i] = uint32_t(read_index(bytes.data() + size_t(i) * size, size));
        uint32_t vertices = 0;
        for (uint32_t i : indices) vertices = std::max(vertices, i + 1);
        const bool triangles = accessor.count % 3 == 0;
        encoded.resize(triangles ? meshopt_encodeIndexBufferBound(indices.size(), vertices) : meshopt_encodeIndexSequenceBound(indices.size(), vertices));
        const size_t n = triangles ? meshopt_encodeIndexBuffer(encoded.data(), encoded.size(), indices.data(), indices.size())
                                   : meshopt_encodeIndexSequence(encoded.data(), encoded.size(), indices.data(), indices.size());
        if (n == 0) return false;
        encoded.resize(n);
        m.mode = triangles ? "TRIANGLES" : "INDICES";
        m.byte_stride = size;
        m.count = accessor.count;
        return true;
    }
    uint32_t components = 1;
    for (uint32_t c : {2u, 3u, 4u, 16u})
        if (accessor_type(c) == std::string_view(accessor.type)) components = c;
    const uint32_t stride = view.byte_stride ? view.byte_stride : size * components;
    if (stride % 4 != 0 || stride > 256 || uint64_t(stride) * accessor.count != bytes.size()) return false;
    encoded.resize(meshopt_encodeVertexBufferBound(accessor.count, stride));
    const size_t n = meshopt_encodeVertexBuffer(encoded.data(), encoded.size(), bytes.data(), accessor.count, stride);
    if (n == 0) return false;
    encoded.resize(n);
    m.mode = "ATTRIBUTES";
    m.filter = view.filter;
    m.byte_stride = stride;
    m.count = accessor.count;
    return true;
}

}  // namespace

// The element stride of an accessor's data in its view.
uint32_t element_stride(const BufferView& view, const Accessor& accessor) {
    uint32_t components = 1;
    for (uint32_t c : {2u, 3u, 4u, 16u})
        if (accessor_type(c) == std::string_view(accessor.type)) components = c;
    return view.byte_stride ? view.byte_stride : component_bytes(accessor.component_type) * components;
}

std::vector<uint8_t> pack_buffer_views(Document& doc, std::vector<uint8_t> bin) {
    use_extension_codec_versions();
    // Views with an accessor are data; the others are images, kept as they are in buffer 0.
    std::vector<int64_t> accessor_of(doc.buffer_views.size(), -1);
    for (size_t a = 0; a < doc.accessors.size(); ++a) accessor_of[doc.accessors[a].buffer_view] = int64_t(a);

    // Data that is not a vertex attribute or index (inverse bind matrices, key times, key values)
    // of one stride and filter goes in one view, each accessor at its offset: one view costs about
    // 200 bytes of JSON, more than a small track's data (gltfpack groups them the same way).
    struct Merged {
        uint32_t stride;
        const char* filter;
        uint32_t view;
    };
    std::vector<Merged> merged;
    std::vector<std::vector<uint8_t>> merged_bytes;
    std::vector<BufferView> views;
    std::vector<std::vector<uint8_t>> view_bytes;  // of the new views; empty for merged ones until the end
    std::vector<uint32_t> new_index(doc.buffer_views.size());
    for (size_t v = 0; v < doc.buffer_views.size(); ++v) {
        const BufferView& view = doc.buffer_views[v];
        const std::span<const uint8_t> bytes(bin.data() + view.byte_offset, view.byte_length);
        if (accessor_of[v] >= 0 && view.target == 0) {
            Accessor& accessor = doc.accessors[size_t(accessor_of[v])];
            const uint32_t stride = element_stride(view, accessor);
            if (stride % 4 == 0 && stride <= 256 && uint64_t(stride) * accessor.count == view.byte_length) {
                auto it = std::find_if(merged.begin(), merged.end(), [&](const Merged& m) {
                    return m.stride == stride && std::string_view(m.filter ? m.filter : "") == std::string_view(view.filter ? view.filter : "");
                });
                if (it == merged.end()) {
                    BufferView joined;
                    joined.filter = view.filter;
                    merged.push_back(Merged{stride, view.filter, uint32_t(views.size())});
                    merged_bytes.emplace_back();
                    views.push_back(joined);
                    view_bytes.emplace_back();
                    it = merged.end() - 1;
                }
                std::vector<uint8_t>& into = merged_bytes[size_t(it - merged.begin())];
                accessor.byte_offset = into.size();
                into.insert(into.end(), bytes.begin(), bytes.end());
                new_index[v] = it->view;
                continue;
            }
        }
        new_index[v] = uint32_t(views.size());
        views.push_back(view);
        view_bytes.emplace_back(bytes.begin(), bytes.end());
    }
    for (size_t m = 0; m < merged.size(); ++m) {
        views[merged[m].view].byte_length = merged_bytes[m].size();
        view_bytes[merged[m].view] = std::move(merged_bytes[m]);
    }
    for (Accessor& a : doc.accessors) a.buffer_view = new_index[a.buffer_view];
    for (Image& im : doc.images)
        if (im.buffer_view) im.buffer_view = new_index[*im.buffer_view];
    // The accessor that describes each new view's elements (for a merged view, any of its own:
    // they share the stride), or none for an image.
    std::vector<int64_t> described(views.size(), -1);
    for (size_t a = 0; a < doc.accessors.size(); ++a) described[doc.accessors[a].buffer_view] = int64_t(a);

    std::vector<uint8_t> out, encoded;
    out.reserve(bin.size() / 2);
    uint64_t fallback = 0;
    for (size_t v = 0; v < views.size(); ++v) {
        BufferView& view = views[v];
        const std::span<const uint8_t> bytes(view_bytes[v]);
        MeshoptView m;
        align4(out);
        bool packed = false;
        if (described[v] >= 0) {
            Accessor whole = doc.accessors[size_t(described[v])];
            const uint32_t stride = element_stride(view, whole);
            whole.count = stride ? uint32_t(bytes.size() / stride) : 0;  // every element of the view
            packed = encode_view(view, whole, bytes, m, encoded);
        }
        if (packed) {
            m.byte_offset = out.size();
            m.byte_length = encoded.size();
            out.insert(out.end(), encoded.begin(), encoded.end());
            view.meshopt = m;
            view.buffer = 1;
            view.byte_offset = fallback;
            view.byte_length = bytes.size();
            fallback = (fallback + view.byte_length + 3) / 4 * 4;
        } else {
            view.byte_offset = out.size();
            view.byte_length = bytes.size();
            out.insert(out.end(), bytes.begin(), bytes.end());
        }
    }
    doc.buffer_views = std::move(views);
    align4(out);
    doc.buffer_length = out.size();
    doc.fallback_length = fallback;
    if (fallback > 0) {
        doc.extensions_used.push_back("EXT_meshopt_compression");
        doc.extensions_required.push_back("EXT_meshopt_compression");
    }
    return out;
}

}  // namespace rigport::gltf

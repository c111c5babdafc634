// Serializes the glTF 2.0 document to JSON in a fixed key and array order (docs/gltf.md §5.3).
#include "formats/gltf/gltf_document.hpp"

#include "formats/gltf/gltf_json.hpp"
#include "formats/gltf/gltf.hpp"

namespace rigport::gltf {

namespace {

template <class T, class F>
void array(JsonWriter& w, const char* name, const std::vector<T>& items, F&& each) {
    if (items.empty()) return;
    w.key(name);
    w.begin_array();
    for (auto& item : items) each(item);
    w.end_array();
}

void attributes(JsonWriter& w, const Attributes& attrs) {
    w.begin_object();
    for (auto& [semantic, accessor] : attrs) w.field_int(semantic, accessor);
    w.end_object();
}

void write_mesh(JsonWriter& w, const MeshDoc& m) {
    w.begin_object();
    if (!m.name.empty()) w.field("name", m.name);
    w.key("primitives");
    w.begin_array();
    const Primitive& p = m.primitive;
    w.begin_object();
    w.key("attributes");
    attributes(w, p.attributes);
    if (p.indices) w.field_int("indices", *p.indices);
    if (p.material) w.field_int("material", *p.material);
    w.field_int("mode", p.mode);
    array(w, "targets", p.targets, [&](const Attributes& t) { attributes(w, t); });
    w.end_object();
    w.end_array();
    if (!m.weights.empty()) w.floats("weights", m.weights.data(), m.weights.size());
    if (!m.target_names.empty()) {
        w.key("extras");
        w.begin_object();
        array(w, "targetNames", m.target_names, [&](const std::string& n) { w.string(n); });
        w.end_object();
    }
    w.end_object();
}

void write_node(JsonWriter& w, const Node& n) {
    w.begin_object();
    if (!n.name.empty()) w.field("name", n.name);
    if (n.children.size()) w.integers("children", n.children);
    if (n.mesh) w.field_int("mesh", *n.mesh);
    if (n.skin) w.field_int("skin", *n.skin);
    if (n.translation) w.floats("translation", n.translation->data(), 3);
    if (n.rotation) w.floats("rotation", n.rotation->data(), 4);
    if (n.scale) w.floats("scale", n.scale->data(), 3);
    w.end_object();
}

void write_animation(JsonWriter& w, const AnimationDoc& a) {
    w.begin_object();
    if (!a.name.empty()) w.field("name", a.name);
    array(w, "channels", a.channels, [&](const AnimationChannel& c) {
        w.begin_object();
        w.field_int("sampler", c.sampler);
        w.key("target");
        w.begin_object();
        w.field_int("node", c.node);
        w.field("path", c.path);
        w.end_object();
        w.end_object();
    });
    array(w, "samplers", a.samplers, [&](const AnimationSampler& s) {
        w.begin_object();
        w.field_int("input", s.input);
        w.field("interpolation", s.interpolation);
        w.field_int("output", s.output);
        w.end_object();
    });
    w.key("extras");
    w.begin_object();
    w.field_bool("loop", a.loop);
    if (a.frame_rate > 0) w.field_float("frameRate", a.frame_rate);
    w.end_object();
    w.end_object();
}

void texture_info(JsonWriter& w, const char* name, const std::optional<uint32_t>& texture) {
    if (!texture) return;
    w.key(name);
    w.begin_object();
    w.field_int("index", *texture);
    w.end_object();
}

void write_material(JsonWriter& w, const MaterialDoc& m) {
    w.begin_object();
    if (!m.name.empty()) w.field("name", m.name);
    w.key("pbrMetallicRoughness");
    w.begin_object();
    if (m.base_color_factor) w.floats("baseColorFactor", m.base_color_factor->data(), 4);
    texture_info(w, "baseColorTexture", m.base_color_texture);
    w.field_int("metallicFactor", 0);
    w.field_int("roughnessFactor", 1);
    w.end_object();
    texture_info(w, "normalTexture", m.normal_texture);
    texture_info(w, "emissiveTexture", m.emissive_texture);
    if (m.emissive_factor) w.floats("emissiveFactor", m.emissive_factor->data(), 3);
    if (!m.extra_maps.empty()) {
        w.key("extras");
        w.begin_object();
        array(w, "maps", m.extra_maps, [&](const ExtraMap& e) {
            w.begin_object();
            w.field("type", e.type);
            w.field("uri", e.uri);
            if (!e.type_name.empty()) w.field("typeName", e.type_name);
            w.end_object();
        });
        w.end_object();
    }
    w.end_object();
}

void write_accessor(JsonWriter& w, const Accessor& a) {
    w.begin_object();
    w.field_int("bufferView", a.buffer_view);
    if (a.byte_offset) w.field_int("byteOffset", int64_t(a.byte_offset));
    w.field_int("componentType", a.component_type);
    w.field_int("count", a.count);
    w.field("type", a.type);
    if (a.normalized) w.field_bool("normalized", true);
    if (!a.max.empty()) w.floats("max", a.max.data(), a.max.size());
    if (!a.min.empty()) w.floats("min", a.min.data(), a.min.size());
    w.end_object();
}

void write_buffer_view(JsonWriter& w, const BufferView& v) {
    w.begin_object();
    w.field_int("buffer", v.buffer);
    w.field_int("byteLength", int64_t(v.byte_length));
    if (v.byte_offset) w.field_int("byteOffset", int64_t(v.byte_offset));
    if (v.byte_stride) w.field_int("byteStride", v.byte_stride);
    if (v.target) w.field_int("target", v.target);
    if (v.meshopt.mode) {
        const MeshoptView& m = v.meshopt;
        w.key("extensions");
        w.begin_object();
        w.key("EXT_meshopt_compression");
        w.begin_object();
        w.field_int("buffer", 0);
        if (m.byte_offset) w.field_int("byteOffset", int64_t(m.byte_offset));
        w.field_int("byteLength", int64_t(m.byte_length));
        w.field_int("byteStride", m.byte_stride);
        w.field_int("count", m.count);
        w.field("mode", m.mode);
        if (m.filter) w.field("filter", m.filter);
        w.end_object();
        w.end_object();
    }
    w.end_object();
}

}  // namespace

std::pair<std::string, bool> to_json(const Document& doc) {
    JsonWriter w;
    w.begin_object();
    w.key("asset");
    w.begin_object();
    w.field("generator", generator);
    w.field("version", "2.0");
    if (!doc.comment.empty()) {
        w.key("extras");
        w.begin_object();
        w.field("comment", doc.comment);
        w.end_object();
    }
    w.end_object();
    array(w, "extensionsUsed", doc.extensions_used, [&](const std::string& e) { w.string(e); });
    array(w, "extensionsRequired", doc.extensions_required, [&](const std::string& e) { w.string(e); });
    w.field_int("scene", 0);
    w.key("scenes");
    w.begin_array();
    w.begin_object();
    if (!doc.scene_nodes.empty()) w.integers("nodes", doc.scene_nodes);
    w.end_object();
    w.end_array();
    array(w, "nodes", doc.nodes, [&](const Node& n) { write_node(w, n); });
    array(w, "meshes", doc.meshes, [&](const MeshDoc& m) { write_mesh(w, m); });
    array(w, "skins", doc.skins, [&](const Skin& s) {
        w.begin_object();
        w.field_int("inverseBindMatrices", s.inverse_bind_matrices);
        w.integers("joints", s.joints);
        if (s.skeleton) w.field_int("skeleton", *s.skeleton);
        w.end_object();
    });
    array(w, "animations", doc.animations, [&](const AnimationDoc& a) { write_animation(w, a); });
    array(w, "materials", doc.materials, [&](const MaterialDoc& m) { write_material(w, m); });
    if (!doc.images.empty()) {
        w.key("textures");
        w.begin_array();
        for (size_t i = 0; i < doc.images.size(); ++i) {
            w.begin_object();
            w.field_int("source", int64_t(i));
            w.end_object();
        }
        w.end_array();
    }
    array(w, "images", doc.images, [&](const Image& im) {
        w.begin_object();
        if (!im.name.empty()) w.field("name", im.name);
        if (im.buffer_view) w.field_int("bufferView", *im.buffer_view);
        if (!im.mime_type.empty()) w.field("mimeType", im.mime_type);
        if (!im.uri.empty()) w.field("uri", im.uri);
        w.end_object();
    });
    array(w, "accessors", doc.accessors, [&](const Accessor& a) { write_accessor(w, a); });
    array(w, "bufferViews", doc.buffer_views, [&](const BufferView& v) { write_buffer_view(w, v); });
    if (doc.buffer_length > 0) {
        w.key("buffers");
        w.begin_array();
        w.begin_object();
        w.field_int("byteLength", int64_t(doc.buffer_length));
        if (!doc.buffer_uri.empty()) w.field("uri", doc.buffer_uri);
        w.end_object();
        if (doc.fallback_length > 0) {
            // No uri: the data exist only compressed, in buffer 0 (EXT_meshopt_compression).
            w.begin_object();
            w.field_int("byteLength", int64_t(doc.fallback_length));
            w.key("extensions");
            w.begin_object();
            w.key("EXT_meshopt_compression");
            w.begin_object();
            w.field_bool("fallback", true);
            w.end_object();
            w.end_object();
            w.end_object();
        }
        w.end_array();
    }
    w.end_object();
    bool ok = w.ok();
    return {w.take(), ok};
}

}  // namespace rigport::gltf

// rigport.Scene and its parts for Python: vertex streams, triangles, skin and keys as NumPy arrays
// viewing the C++ vectors (no copy), joints copied (their layout is not packed numbers).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <type_traits>

#include "module.hpp"
#include "rigport/report.hpp"

namespace rigport::python {

namespace {

// Only these layouts are viewed in place: every element a packed run of 4-byte numbers.
static_assert(sizeof(Vec2) == 2 * sizeof(float) && sizeof(Vec3) == 3 * sizeof(float) && sizeof(Vec4) == 4 * sizeof(float));
static_assert(sizeof(Triangle) == 3 * sizeof(uint32_t));
static_assert(std::is_standard_layout_v<Influence> && sizeof(Influence) == 8 && offsetof(Influence, joint) == 0 &&
              offsetof(Influence, weight) == 4 && sizeof(uint32_t) == 4 && sizeof(float) == 4);

// A writable array over data (rows x cols of T, rows of row_bytes apart) that keeps the scene alive.
template <class T>
py::array view(const std::shared_ptr<Scene>& scene, const T* data, size_t rows, size_t cols, size_t row_bytes = 0) {
    auto* keep = new std::shared_ptr<Scene>(scene);
    py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<Scene>*>(p); });
    if (row_bytes == 0) row_bytes = (cols ? cols : 1) * sizeof(T);
    std::vector<py::ssize_t> shape{py::ssize_t(rows)}, strides{py::ssize_t(row_bytes)};
    if (cols > 0) {
        shape.push_back(py::ssize_t(cols));
        strides.push_back(sizeof(T));
    }
    // An empty vector may have no storage: numpy is given a valid pointer all the same.
    static T none{};
    return py::array_t<T>(shape, strides, rows ? const_cast<T*>(data) : &none, owner);
}

template <class V>
py::array rows_view(const std::shared_ptr<Scene>& s, const std::vector<V>& v) {
    return view(s, v.empty() ? nullptr : v.front().data(), v.size(), std::tuple_size_v<V>);
}

struct MeshRef {
    std::shared_ptr<Scene> scene;
    size_t index;
    const Mesh& mesh() const { return scene->meshes[index]; }
};

struct TrackRef {
    std::shared_ptr<Scene> scene;
    size_t animation, track;
    const JointTrack& get() const { return scene->animations[animation].tracks[track]; }
};

struct AnimationRef {
    std::shared_ptr<Scene> scene;
    size_t index;
    const Animation& get() const { return scene->animations[index]; }
};

struct SkeletonRef {
    std::shared_ptr<Scene> scene;
};

// Names are bytes from the file: invalid UTF-8 becomes U+FFFD, as in the info JSON.
py::str text(const std::string& s) { return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), py::ssize_t(s.size()), "replace")); }

const char* channel_name(Channel c) { return c == Channel::Translation ? "translation" : c == Channel::Rotation ? "rotation" : "scale"; }

const char* up_name(UpAxis a) { return a == UpAxis::X ? "x" : a == UpAxis::Y ? "y" : a == UpAxis::Z ? "z" : "unknown"; }

py::dict material_dict(const Material& m) {
    py::dict d;
    d["name"] = text(m.name);
    d["diffuse"] = m.diffuse;
    d["ambient"] = m.ambient;
    d["specular"] = m.specular;
    d["emissive"] = m.emissive;
    d["shininess"] = m.shininess;
    py::list maps;
    for (auto& map : m.maps) {
        py::dict t;
        t["type"] = to_string(map.type);
        t["uri"] = text(map.uri);
        maps.append(t);
    }
    d["maps"] = maps;
    return d;
}

}  // namespace

void bind_scene(py::module_& m) {
    py::class_<TrackRef>(m, "Track", "One joint channel's keys. times (K,) and values (K, 3) or (K, 4) (x y z w for rotation) "
                                     "are float32 views of the scene's data.")
        .def_property_readonly("joint", [](const TrackRef& t) { return t.get().joint; })
        .def_property_readonly("channel", [](const TrackRef& t) { return channel_name(t.get().channel); })
        .def_property_readonly("interpolation", [](const TrackRef& t) { return t.get().interpolation == Interpolation::Step ? "step" : "linear"; })
        .def_property_readonly("times", [](const TrackRef& t) { return view(t.scene, t.get().times.data(), t.get().times.size(), 0); })
        .def_property_readonly("values", [](const TrackRef& t) {
            const JointTrack& k = t.get();
            return view(t.scene, k.values.data(), k.values.size() / k.components(), k.components());
        });

    py::class_<AnimationRef>(m, "Animation", "An animation: keyed tracks per joint channel.")
        .def_property_readonly("name", [](const AnimationRef& a) { return text(a.get().name); })
        .def_property_readonly("fps", [](const AnimationRef& a) { return a.get().frame_rate; }, "Frames per second as the source gave it; 0 = not given")
        .def_property_readonly("frame_count", [](const AnimationRef& a) { return a.get().frame_count; }, "Frames of a frame-based source; 0 for key-based")
        .def_property_readonly("loop", [](const AnimationRef& a) { return a.get().loop; })
        .def_property_readonly("duration", [](const AnimationRef& a) { return a.get().duration(); }, "Seconds to the last key")
        .def_property_readonly("tracks", [](const AnimationRef& a) {
            std::vector<TrackRef> tracks;
            for (size_t t = 0; t < a.get().tracks.size(); ++t) tracks.push_back({a.scene, a.index, t});
            return tracks;
        })
        .def("__repr__", [](const AnimationRef& a) { return text("<rigport.Animation '" + a.get().name + "'>"); });

    py::class_<SkeletonRef>(m, "Skeleton", "Joints, parent-first. parents and the bind pose are copies (a joint is not packed numbers).")
        .def_property_readonly("names", [](const SkeletonRef& s) {
            py::list names;
            for (auto& j : s.scene->skeleton.joints) names.append(text(j.name));
            return names;
        })
        .def_property_readonly("parents", [](const SkeletonRef& s) {
            auto& joints = s.scene->skeleton.joints;
            py::array_t<int32_t> a(py::ssize_t(joints.size()));
            for (size_t j = 0; j < joints.size(); ++j) a.mutable_at(j) = joints[j].parent;
            return a;
        }, "int32 (J,): the parent's index, -1 for a root (a copy)")
        .def_property_readonly("translations", [](const SkeletonRef& s) {
            auto& joints = s.scene->skeleton.joints;
            py::array_t<float> a({py::ssize_t(joints.size()), py::ssize_t(3)});
            for (size_t j = 0; j < joints.size(); ++j)
                for (size_t k = 0; k < 3; ++k) a.mutable_at(j, k) = joints[j].bind.translate[k];
            return a;
        }, "float32 (J, 3): bind-pose translation relative to the parent (a copy)")
        .def_property_readonly("rotations", [](const SkeletonRef& s) {
            auto& joints = s.scene->skeleton.joints;
            py::array_t<float> a({py::ssize_t(joints.size()), py::ssize_t(4)});
            for (size_t j = 0; j < joints.size(); ++j)
                for (size_t k = 0; k < 4; ++k) a.mutable_at(j, k) = joints[j].bind.rotate[k];
            return a;
        }, "float32 (J, 4): bind-pose rotation, unit quaternion x y z w (a copy)")
        .def_property_readonly("scales", [](const SkeletonRef& s) {
            auto& joints = s.scene->skeleton.joints;
            py::array_t<float> a({py::ssize_t(joints.size()), py::ssize_t(3)});
            for (size_t j = 0; j < joints.size(); ++j)
                for (size_t k = 0; k < 3; ++k) a.mutable_at(j, k) = joints[j].bind.scale[k];
            return a;
        }, "float32 (J, 3): bind-pose scale (a copy)")
        .def_property_readonly("animation_only", [](const SkeletonRef& s) { return s.scene->skeleton.animation_only; })
        .def("__len__", [](const SkeletonRef& s) { return s.scene->skeleton.joints.size(); });

    py::class_<MeshRef>(m, "Mesh", "A mesh's vertex streams and triangles as writable NumPy views of the scene's data (no copy).")
        .def_property_readonly("name", [](const MeshRef& r) { return text(r.mesh().name); })
        .def_property_readonly("material", [](const MeshRef& r) { return r.mesh().material; }, "Index into Scene.materials, -1 = none")
        .def_property_readonly("vertex_count", [](const MeshRef& r) { return r.mesh().vertex_count(); })
        .def_property_readonly("positions", [](const MeshRef& r) { return rows_view(r.scene, r.mesh().positions); }, "float32 (N, 3)")
        .def_property_readonly("normals", [](const MeshRef& r) -> py::object {
            if (r.mesh().normals.empty()) return py::none();
            return rows_view(r.scene, r.mesh().normals);
        }, "float32 (N, 3), or None")
        .def_property_readonly("tangents", [](const MeshRef& r) -> py::object {
            if (r.mesh().tangents.empty()) return py::none();
            return rows_view(r.scene, r.mesh().tangents);
        }, "float32 (N, 4): xyz and handedness w, or None")
        .def_property_readonly("texcoords", [](const MeshRef& r) {
            py::list sets;
            for (auto& s : r.mesh().texcoords) sets.append(rows_view(r.scene, s));
            return sets;
        }, "One float32 (N, 2) array per set")
        .def_property_readonly("colors", [](const MeshRef& r) {
            py::list sets;
            for (auto& s : r.mesh().colors) sets.append(rows_view(r.scene, s));
            return sets;
        }, "One float32 (N, 4) RGBA array per set")
        .def_property_readonly("triangles", [](const MeshRef& r) { return rows_view(r.scene, r.mesh().triangles); }, "uint32 (M, 3)")
        .def_property_readonly("skin_offsets", [](const MeshRef& r) -> py::object {
            auto& o = r.mesh().skin.offsets;
            if (o.empty()) return py::none();
            return view(r.scene, o.data(), o.size(), 0);
        }, "uint32 (N + 1,): vertex v owns influences skin_offsets[v] .. skin_offsets[v + 1]; None when not skinned")
        .def_property_readonly("skin_joints", [](const MeshRef& r) -> py::object {
            auto& i = r.mesh().skin.influences;
            if (r.mesh().skin.empty()) return py::none();
            return view(r.scene, i.empty() ? nullptr : &i.front().joint, i.size(), 0, sizeof(Influence));
        }, "uint32 (I,): each influence's joint (a strided view of the stored {joint, weight} pairs)")
        .def_property_readonly("skin_weights", [](const MeshRef& r) -> py::object {
            auto& i = r.mesh().skin.influences;
            if (r.mesh().skin.empty()) return py::none();
            return view(r.scene, i.empty() ? nullptr : &i.front().weight, i.size(), 0, sizeof(Influence));
        }, "float32 (I,): each influence's weight (a strided view)")
        .def("__repr__", [](const MeshRef& r) {
            return text("<rigport.Mesh '" + r.mesh().name + "': " + std::to_string(r.mesh().vertex_count()) + " vertices>");
        });

    py::class_<SceneRef>(m, "Scene", "A model as rigport holds it: meshes, materials, skeleton, animations, meta, warnings.")
        .def_property_readonly("meshes", [](const SceneRef& s) {
            std::vector<MeshRef> meshes;
            for (size_t i = 0; i < s.scene->meshes.size(); ++i) meshes.push_back({s.scene, i});
            return meshes;
        })
        .def_property_readonly("materials", [](const SceneRef& s) {
            py::list list;
            for (auto& mat : s.scene->materials) list.append(material_dict(mat));
            return list;
        }, "A list of dicts (copies): name, diffuse, ambient, specular, emissive, shininess, maps [{type, uri}]")
        .def_property_readonly("skeleton", [](const SceneRef& s) { return SkeletonRef{s.scene}; })
        .def_property_readonly("animations", [](const SceneRef& s) {
            std::vector<AnimationRef> list;
            for (size_t i = 0; i < s.scene->animations.size(); ++i) list.push_back({s.scene, i});
            return list;
        })
        .def_property_readonly("meta", [](const SceneRef& s) {
            const Meta& meta = s.scene->meta;
            py::dict d;
            d["source_format"] = meta.source_format;  // a registry name
            d["source_version"] = meta.source_version;
            d["dialect"] = text(meta.dialect);
            d["up"] = up_name(meta.up);
            d["unit_scale"] = meta.unit_scale;
            d["comment"] = py::bytes(meta.comment);  // bytes from the file, not always UTF-8
            return d;
        }, "What the source said about itself (a dict; comment as bytes)")
        .def_property_readonly("warnings", [](const SceneRef& s) {
            py::list list;
            for (auto& w : s.scene->warnings.items) list.append(text(warning_text(w)));
            return list;
        }, "The load's warnings, as `rigport info` prints them")
        .def_property_readonly("vertex_count", [](const SceneRef& s) { return s.scene->vertex_count(); })
        .def_property_readonly("triangle_count", [](const SceneRef& s) { return s.scene->triangle_count(); })
        .def("__repr__", [](const SceneRef& s) {
            return "<rigport.Scene " + s.scene->meta.source_format + ": " + std::to_string(s.scene->meshes.size()) + " meshes, " +
                   std::to_string(s.scene->skeleton.joints.size()) + " joints, " + std::to_string(s.scene->animations.size()) +
                   " animations>";
        });
}

}  // namespace rigport::python

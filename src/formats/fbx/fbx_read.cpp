// FBX reader (docs/fbx.md §2): the node tree, then objects and connections, models and their
// transforms, skins and the skeleton they bind to, materials, meshes, and the file's axes and unit.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "model/decompose.hpp"
#include "formats/common/finite.hpp"
#include "formats/fbx/fbx_anim.hpp"
#include "formats/fbx/fbx_layers.hpp"
#include "formats/fbx/fbx_document.hpp"
#include "formats/fbx/fbx.hpp"
#include "formats/fbx/fbx_material.hpp"
#include "formats/fbx/fbx_mesh.hpp"
#include "formats/fbx/fbx_objects.hpp"
#include "formats/fbx/fbx_transform.hpp"

namespace rigport::fbx {

namespace {

constexpr uint32_t none = UINT32_MAX;

struct Cluster {
    uint32_t bone = none;  // a Model
    std::vector<int64_t> indexes;
    std::vector<double> weights;
    std::optional<Mat4> transform, transform_link;
};

struct Skin {
    std::vector<Cluster> clusters;
};

class SceneReader {
public:
    SceneReader(const Document& doc, const LoadOptions& options) : doc_(doc), options_(options) {}

    Expected<Scene> run() {
        if (doc_.version < 3000)
            return make_error(ErrorCode::Unsupported,
                              doc_.version ? fmt::format("FBX {}: files before 3.0 are not read; rigport reads FBX 3.0 to 7.7", doc_.version)
                                           : "no FBXHeaderExtension/FBXVersion: not an FBX file rigport reads (3.0 to 7.7)");
        Error error;
        if (!objects_.build(doc_, error)) return error;
        scene_.meta.source_format = "fbx";
        scene_.meta.source_version = doc_.version;
        scene_.meta.dialect = doc_.binary ? "binary" : "ascii";
        if (doc_.zero_end_records)
            scene_.warnings.add(WarningCode::Tolerated, fmt::format("{} node records have an end offset of 0; each read as ending after its "
                                                                    "properties, without children", doc_.zero_end_records));
        if (doc_.unknown_properties)
            scene_.warnings.add(WarningCode::Tolerated, fmt::format("{} node records hold a property of a type not defined for FBX; each "
                                                                    "read up to it, the rest of its properties skipped", doc_.unknown_properties));
        if (objects_.repeated)
            scene_.warnings.add(WarningCode::Tolerated, fmt::format("{} objects reuse an id (6.x: a name) an earlier object has; each kept "
                                                                    "apart as 'NAME (2)', linked to nothing", objects_.repeated));
        if (objects_.model_channel_keys)
            scene_.warnings.add(WarningCode::Ignored, fmt::format("{} animation channels with keys held by models themselves, outside the takes, "
                                                                  "not read (their Default values place the models)", objects_.model_channel_keys));
        if (objects_.other_connections)
            scene_.warnings.add(WarningCode::Ignored, fmt::format("{} connections of kinds other than OO and OP (links between "
                                                                  "properties) left out", objects_.other_connections));
        read_settings();
        if (!read_models() || !read_skins() || !build_skeleton()) return error_;
        read_materials(objects_, scene_, material_of_);
        if (!read_meshes() || !read_stacks()) return error_;
        note_unread();
        // Finite numbers whose transforms overflow (1e300 scales, degenerate bind matrices) are
        // refused here as an input problem, naming the value.
        if (auto finite = detail::check_finite_for_writing(scene_, true); !finite)
            return make_error(ErrorCode::Malformed, "values beyond float range after FBX's transforms: " + finite.error().message);
        return std::move(scene_);
    }

private:
    bool fail(const Node* at, std::string message, ErrorCode code = ErrorCode::Malformed) {
        error_ = make_error(code, std::move(message));
        if (at && at->line) error_.line = at->line, error_.column = 1;
        else if (at) error_.offset = at->offset;
        return false;
    }

    // GlobalSettings: the up axis (UpAxis with UpAxisSign) and UnitScaleFactor (centimetres per unit).
    void read_settings() {
        scene_.meta.handedness = Handedness::Right;
        scene_.meta.front_face = Winding::CounterClockwise;
        Object o;
        o.properties = settings_properties(doc_);
        const double up = property_number(o, "UpAxis", 1);
        scene_.meta.up = up == 0 ? UpAxis::X : up == 2 ? UpAxis::Z : UpAxis::Y;
        const double unit = property_number(o, "UnitScaleFactor", 1);
        scene_.meta.unit_scale = std::isfinite(unit) && unit > 0 ? float(unit / 100.0) : 0.01f;
    }

    bool read_models() {
        model_of_.assign(objects_.list.size(), none);
        for (uint32_t i = 0; i < objects_.list.size(); ++i)
            if (objects_[i].kind == "Model") {
                model_of_[i] = uint32_t(models_.size());
                models_.push_back(i);
            }
        const size_t n = models_.size();
        parent_.assign(n, none);
        local_.resize(n);
        transforms_.resize(n);
        for (uint32_t m = 0; m < n; ++m) {
            for (uint32_t p : objects_.parents_of(models_[m], "Model")) {
                parent_[m] = model_of_[p];
                break;
            }
            transforms_[m] = node_transform(objects_[models_[m]]);
            local_[m] = local_matrix(transforms_[m]);
        }
        // World matrices parent-first; a chain longer than the model count is a cycle.
        world_.assign(n, identity_matrix());
        std::vector<Placement> placed(n);
        order_.clear();
        std::vector<std::vector<uint32_t>> kids(n);
        std::vector<uint32_t> roots;
        for (uint32_t m = 0; m < n; ++m) (parent_[m] == none ? roots : kids[parent_[m]]).push_back(m);
        std::vector<uint32_t> stack(roots.rbegin(), roots.rend());
        while (!stack.empty()) {
            const uint32_t m = stack.back();
            stack.pop_back();
            order_.push_back(m);
            placed[m] = place(transforms_[m], local_[m], parent_[m] == none ? nullptr : &placed[parent_[m]]);
            world_[m] = placed[m].world;
            for (auto it = kids[m].rbegin(); it != kids[m].rend(); ++it) stack.push_back(*it);
        }
        if (order_.size() != n) {
            for (uint32_t m = 0; m < n; ++m)
                if (std::find(order_.begin(), order_.end(), m) == order_.end())
                    return fail(objects_[models_[m]].node, fmt::format("model '{}' is part of a cycle of parents", detail::excerpt(objects_[models_[m]].name)));
        }
        return true;
    }

    bool matrix_of(const Node& cluster, std::string_view name, std::optional<Mat4>& out) {
        const Node* n = cluster.child(name);
        if (!n) return true;
        std::vector<double> v;
        if (!n->numbers_of(v) || v.size() != 16) return fail(n, fmt::format("cluster {}: not 16 numbers", name));
        Mat4 m;
        for (int k = 0; k < 16; ++k) m[k / 4][k % 4] = v[size_t(k)];
        out = m;
        return true;
    }

    // A Skin's SkinningType (docs/fbx.md §2.4): Linear and Rigid are what rigport does;
    // DualQuaternion asks it of every control point, Blend of those whose BlendWeights (by
    // Indexes) are above 0. No format rigport writes holds dual-quaternion skinning: those points
    // are skinned linearly, and a warning counts them.
    void warn_dual_quaternion(const Node& skin, uint32_t g) {
        const Node* type = skin.child("SkinningType");
        if (!type || type->properties.empty()) return;
        const std::string_view method = type->properties[0].text;
        if (method != "DualQuaternion" && method != "Blend") return;
        uint64_t points = 0;
        if (method == "DualQuaternion") {
            std::vector<double> vertices;
            if (const Node* v = objects_[g].node->child("Vertices")) (void)v->numbers_of(vertices);
            points = vertices.size() / 3;
        } else {
            std::vector<int64_t> indexes;
            std::vector<double> weights;
            const Node* i = skin.child("Indexes");
            const Node* w = skin.child("BlendWeights");
            if (i && w && i->integers_of(indexes) && w->numbers_of(weights)) {
                std::vector<int64_t> blended;
                for (size_t k = 0; k < std::min(indexes.size(), weights.size()); ++k)
                    if (weights[k] > 0) blended.push_back(indexes[k]);
                std::sort(blended.begin(), blended.end());
                points = uint64_t(std::unique(blended.begin(), blended.end()) - blended.begin());
            }
        }
        if (points == 0) return;
        scene_.warnings.add(WarningCode::DroppedData,
                            fmt::format("skin of geometry '{}': SkinningType {} asks dual-quaternion skinning of {} control points; rigport "
                                        "and the formats it writes skin linearly, so they are skinned linearly",
                                        detail::excerpt(objects_[g].name), method, points));
    }

    // Skin deformers by geometry: clusters with the bone they follow, the control points they
    // move and the bind matrices (Transform: the mesh at bind time; TransformLink: the bone's).
    bool read_skins() {
        for (uint32_t g = 0; g < objects_.list.size(); ++g) {
            if (objects_[g].kind != "Geometry") continue;
            for (uint32_t d : objects_.children_of(g, "Deformer")) {
                if (objects_[d].subclass != "Skin") continue;
                Skin& skin = skins_[g];
                warn_dual_quaternion(*objects_[d].node, g);
                for (uint32_t c : objects_.children_of(d, "Deformer")) {
                    if (objects_[c].subclass != "Cluster") continue;
                    const Node& node = *objects_[c].node;
                    Cluster cl;
                    for (uint32_t b : objects_.children_of(c, "Model")) {
                        cl.bone = model_of_[b];
                        break;
                    }
                    if (cl.bone == none) {
                        // A cluster whose bone is not in the file moves nothing: the rest of the
                        // skin is kept, and the control points it alone moved stay at rest.
                        const Node* indexes = node.child("Indexes");
                        std::vector<int64_t> points;
                        if (indexes) (void)indexes->integers_of(points);
                        scene_.warnings.add(WarningCode::Ignored,
                                            fmt::format("skin cluster '{}' of geometry '{}' follows no bone in the file; its {} "
                                                        "influences are left out, the rest of the skin is kept",
                                                        detail::excerpt(objects_[c].name), detail::excerpt(objects_[g].name), points.size()));
                        continue;
                    }
                    const Node* indexes = node.child("Indexes");
                    const Node* weights = node.child("Weights");
                    if (indexes && !indexes->integers_of(cl.indexes)) return fail(indexes, "cluster Indexes: not integers");
                    if (weights && !weights->numbers_of(cl.weights)) return fail(weights, "cluster Weights: not numbers");
                    if (cl.indexes.size() != cl.weights.size())
                        return fail(&node, fmt::format("cluster '{}': {} Indexes and {} Weights", detail::excerpt(objects_[c].name), cl.indexes.size(), cl.weights.size()));
                    if (!matrix_of(node, "Transform", cl.transform) || !matrix_of(node, "TransformLink", cl.transform_link)) return false;
                    if (cl.transform_link && !bind_world_.count(cl.bone)) bind_world_[cl.bone] = *cl.transform_link;
                    skin.clusters.push_back(std::move(cl));
                }
            }
        }
        return true;
    }

    bool is_bone_kind(uint32_t m) const {
        const std::string_view s = objects_[models_[m]].subclass;
        return s == "LimbNode" || s == "Limb" || s == "Root" || s == "Skeleton";
    }

    // Joints: every bone-kind model, every model a cluster follows and every model an animation
    // moves (a rigid mesh then follows its joint), with their ancestors.
    // Each joint's bind pose is its TransformLink where a cluster gives one, else its place under
    // its parent's bind pose as the scene places it.
    bool build_skeleton() {
        const size_t n = models_.size();
        joint_of_.assign(n, -1);
        std::vector<bool> wanted(n, false);
        const std::vector<bool> animated = animated_models(doc_, objects_, model_of_, n);
        for (uint32_t m = 0; m < n; ++m) wanted[m] = is_bone_kind(m) || bind_world_.count(m) || animated[m];
        for (uint32_t m = 0; m < n; ++m)
            if (wanted[m])
                for (uint32_t p = parent_[m]; p != none && !wanted[p]; p = parent_[p]) wanted[p] = true;
        bind_.assign(n, identity_matrix());
        for (uint32_t m : order_) {
            auto link = bind_world_.find(m);
            // Without a TransformLink a joint keeps its place under its parent as the scene has it.
            bind_[m] = link != bind_world_.end() ? link->second
                     : parent_[m] == none        ? world_[m]
                                                 : multiply(bind_[parent_[m]], multiply(inverse_affine(world_[parent_[m]]), world_[m]));
        }
        for (uint32_t m : order_) {
            if (!wanted[m]) continue;
            int32_t parent = -1;
            for (uint32_t p = parent_[m]; p != none; p = parent_[p])
                if (joint_of_[p] >= 0) {
                    parent = joint_of_[p];
                    break;
                }
            Joint j;
            j.name = objects_[models_[m]].name;
            j.parent = parent;
            const Mat4 rel = parent >= 0 ? multiply(inverse_affine(bind_[joint_model_[size_t(parent)]]), bind_[m]) : bind_[m];
            bool sheared = false;
            j.bind = decompose(rel, sheared);
            if (sheared) ++sheared_;
            joint_of_[m] = int32_t(scene_.skeleton.joints.size());
            joint_model_.push_back(m);
            scene_.skeleton.joints.push_back(std::move(j));
        }
        if (sheared_)
            scene_.warnings.add(WarningCode::Interpreted, fmt::format("{} joints' bind poses hold a shear (non-uniform scale under rotation); kept as the nearest rotation and scale", sheared_));
        return true;
    }

    bool read_meshes() {
        for (uint32_t m : order_) {
            const uint32_t model = models_[m];
            for (uint32_t g : objects_.children_of(model, "Geometry")) {
                if (objects_[g].subclass != "Mesh") continue;
                MeshPlacement place;
                place.name = objects_[model].name;
                place.version = doc_.version;
                for (uint32_t mat : objects_.children_of(model, "Material")) place.materials.push_back(material_of_.count(mat) ? material_of_[mat] : -1);
                const Mat4 geometric = geometric_matrix(transforms_[m]);
                SkinInfluences influences;
                auto skin = skins_.find(g);
                if (skin != skins_.end() && !skin->second.clusters.empty()) {
                    // Control points to the bind pose's space: the mesh where it was bound. A
                    // cluster's Transform is the mesh relative to its bone at bind time (as
                    // Blender writes it and ufbx reads it: geometry to bone), TransformLink the
                    // bone's place, so the mesh was at TransformLink * Transform.
                    const Cluster& first = skin->second.clusters[0];
                    const Mat4 mesh_bind = first.transform && first.transform_link ? multiply(*first.transform_link, *first.transform) : bind_[m];
                    place.matrix = multiply(mesh_bind, geometric);
                    const Node* v = objects_[g].node->child("Vertices");
                    const size_t points = v ? v->number_count() / 3 : 0;
                    // Per control point, its influences in cluster order, packed as offsets and one
                    // list: counted first, then placed (one allocation each, not one per point).
                    auto counts_toward = [](const Cluster& c, size_t k) { return c.weights[k] > 0 && std::isfinite(c.weights[k]); };
                    influences.offsets.assign(points + 1, 0);
                    for (const Cluster& c : skin->second.clusters)
                        for (size_t k = 0; k < c.indexes.size(); ++k) {
                            const int64_t p = c.indexes[k];
                            if (p < 0 || size_t(p) >= points)
                                return fail(objects_[g].node, fmt::format("geometry '{}': a cluster names control point {} of {}", detail::excerpt(objects_[g].name), p, points));
                            if (counts_toward(c, k)) ++influences.offsets[size_t(p) + 1];
                        }
                    for (size_t p = 0; p < points; ++p) influences.offsets[p + 1] += influences.offsets[p];
                    influences.influences.resize(influences.offsets[points]);
                    std::vector<uint32_t> next(influences.offsets.begin(), influences.offsets.end() - 1);
                    for (const Cluster& c : skin->second.clusters) {
                        const int32_t joint = joint_of_[c.bone];
                        for (size_t k = 0; k < c.indexes.size(); ++k)
                            if (counts_toward(c, k)) influences.influences[next[size_t(c.indexes[k])]++] = {uint32_t(joint), float(c.weights[k])};
                    }
                    place.skin = &influences;
                } else {
                    place.matrix = multiply(bind_[m], geometric);
                    for (uint32_t p = m; p != none; p = parent_[p])
                        if (joint_of_[p] >= 0) {
                            place.rigid_joint = joint_of_[p];
                            break;
                        }
                }
                read_shapes(g, place.shapes);
                Error error;
                if (!read_mesh(objects_[g], place, options_, scene_, bindings_, error)) {
                    error_ = error;
                    return false;
                }
            }
        }
        return true;
    }

    // Blend shapes under a geometry: BlendShape -> BlendShapeChannel (DeformPercent) -> Shape
    // geometries (Indexes, Vertices as deltas). A channel with in-between shapes keeps its last,
    // full-weight one (a warning).
    void read_shapes(uint32_t g, std::vector<ShapeInput>& out) {
        for (uint32_t bs : objects_.children_of(g, "Deformer")) {
            if (objects_[bs].subclass != "BlendShape") continue;
            for (uint32_t ch : objects_.children_of(bs, "Deformer")) {
                if (objects_[ch].subclass != "BlendShapeChannel") continue;
                std::vector<uint32_t> shapes;
                for (uint32_t sh : objects_.children_of(ch, "Geometry"))
                    if (objects_[sh].subclass == "Shape") shapes.push_back(sh);
                if (shapes.empty()) continue;
                double percent = property_number(objects_[ch], "DeformPercent", 0);
                if (const Node* d = objects_[ch].node->child("DeformPercent"); d && !d->properties.empty() && d->properties[0].is_number())
                    percent = d->properties[0].number;
                if (!std::isfinite(percent)) percent = 0;
                // FullWeights: the percent at which each shape is reached (ascending); evenly
                // spaced up to 100 where the file gives none that fit.
                std::vector<double> full;
                const Node* fw = objects_[ch].node->child("FullWeights");
                bool fits = fw && fw->numbers_of(full) && full.size() == shapes.size();
                for (size_t i = 0; fits && i < full.size(); ++i) fits = std::isfinite(full[i]) && full[i] > (i ? full[i - 1] : 0.0);
                if (!fits) {
                    if (fw)
                        scene_.warnings.add(WarningCode::Interpreted,
                                            fmt::format("blend shape channel '{}': FullWeights are not {} rising percents; its shapes are "
                                                        "reached at evenly spaced percents",
                                                        detail::excerpt(objects_[ch].name), shapes.size()));
                    full.clear();
                    for (size_t i = 0; i < shapes.size(); ++i) full.push_back(100.0 * double(i + 1) / double(shapes.size()));
                }
                if (shapes.size() > 1) in_between_ += shapes.size() - 1;
                const auto shared = std::make_shared<const std::vector<double>>(std::move(full));
                for (uint32_t i = 0; i < shapes.size(); ++i) {
                    const Node& shape = *objects_[shapes[i]].node;
                    ShapeInput in;
                    in.name = i + 1 == shapes.size() ? objects_[ch].name : fmt::format("{}_{:g}", objects_[ch].name, (*shared)[i]);
                    in.channel = ch;
                    in.shape = i;
                    in.full_weights = shared;
                    in.percent = percent;
                    in.default_weight = float(shape_weight(*shared, i, percent));
                    const Node* indexes = shape.child("Indexes");
                    const Node* vertices = shape.child("Vertices");
                    // A shape that moves nothing may have neither array: kept, as a target
                    // without deltas. One the reader cannot read is left out with a warning.
                    if ((indexes || vertices) && (!indexes || !vertices || !indexes->integers_of(in.indexes) || !vertices->numbers_of(in.deltas))) {
                        scene_.warnings.add(WarningCode::Ignored,
                                            fmt::format("blend shape '{}' of channel '{}': its Indexes and Vertices are not two readable "
                                                        "arrays; the shape is left out",
                                                        detail::excerpt(objects_[shapes[i]].name), detail::excerpt(objects_[ch].name)));
                        continue;
                    }
                    if (const Node* normals = shape.child("Normals")) (void)normals->numbers_of(in.normals);
                    out.push_back(std::move(in));
                }
            }
        }
    }

    bool read_stacks() {
        ModelGraph graph;
        graph.objects = &objects_;
        graph.models = models_;
        graph.parent = parent_;
        graph.order = order_;
        graph.transforms = transforms_;
        graph.local = local_;
        graph.joint_of = joint_of_;
        graph.joint_model = joint_model_;
        graph.bindings = bindings_;
        Error error;
        if (read_animations(doc_, graph, options_, scene_, error)) return true;
        error_ = error;
        return false;
    }

    // What this reader does not turn into scene data yet is said, never dropped in silence.
    void note_unread() {
        if (in_between_)
            scene_.warnings.add(WarningCode::Interpreted, fmt::format("{} in-between blend shapes kept as morph targets of their own, weighted by their channel's percent "
                                                                      "(a target format with plain morph weights cannot drive them from one value)", in_between_));
    }

    const Document& doc_;
    const LoadOptions& options_;
    Objects objects_;
    Scene scene_;
    Error error_;
    std::vector<uint32_t> models_, model_of_, parent_, order_, joint_model_;
    std::vector<NodeTransform> transforms_;
    std::vector<Mat4> local_, world_, bind_;
    std::vector<int32_t> joint_of_;
    std::unordered_map<uint32_t, Skin> skins_;
    std::unordered_map<uint32_t, Mat4> bind_world_;
    std::unordered_map<uint32_t, int32_t> material_of_;
    std::vector<MorphBinding> bindings_;
    size_t sheared_ = 0, in_between_ = 0;
};

}  // namespace

bool detect(std::span<const uint8_t> bytes) { return is_binary(bytes) || is_ascii(bytes); }

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    auto doc = parse(bytes, options);
    if (!doc) return doc.error();
    return SceneReader(*doc, options).run();
}

}  // namespace rigport::fbx

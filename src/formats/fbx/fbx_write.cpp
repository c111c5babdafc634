// FBX 7.x writer (docs/fbx.md "Writing FBX"): the scene turned Y up with counter-clockwise front
// faces, gathered into FBX's objects and connections by the parts in fbx_write_*.cpp, framed by
// the header, GlobalSettings, Definitions and Takes, and stored as binary or ASCII.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "formats/fbx/fbx.hpp"
#include "formats/fbx/fbx_write.hpp"
#include "rigport/process.hpp"

namespace rigport::fbx {

namespace out {

int64_t ticks(double seconds) { return std::llround(seconds * ticks_per_second); }

int64_t Document::id(std::string_view kind, size_t index, size_t sub) {
    // FNV-1a over the kind and the indices, kept positive and clear of 0 (the scene root).
    uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&](uint64_t byte) { h = (h ^ byte) * 0x100000001b3ull; };
    for (char c : kind) mix(uint8_t(c));
    for (int k = 0; k < 8; ++k) mix((index >> (8 * k)) & 0xff);
    for (int k = 0; k < 8; ++k) mix((sub >> (8 * k)) & 0xff);
    int64_t v = int64_t(h & 0x3fffffffffffffffull);
    while (v == 0 || used_.count(v)) ++v;
    used_.insert(v);
    return v;
}

Node& Document::object(const std::string& type, int64_t object_id, const std::string& name, const std::string& cls, const std::string& subclass) {
    ++counts[type];
    Node& n = objects.add(type, {i64(object_id), object_name(name, cls), str(subclass)});
    n.scope = true;
    return n;
}

void Document::connect(int64_t child, int64_t parent) { connections.add("C", {str("OO"), i64(child), i64(parent)}); }
void Document::connect_property(int64_t child, int64_t parent, const std::string& property) {
    connections.add("C", {str("OP"), i64(child), i64(parent), str(property)});
}

std::vector<double> matrix_values(const Mat4& m) {
    std::vector<double> v;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) v.push_back(m[size_t(c)][size_t(r)]);
    return v;
}

std::string name_or(const std::string& name, const char* kind, size_t index) { return name.empty() ? fmt::format("{}_{}", kind, index) : name; }

namespace {

// The creation time every file carries: fixed, so the same scene gives the same bytes (and the
// FBX SDK's footer check, fbx_write_binary.cpp, passes with it).
constexpr const char* creation_time = "1970-01-01 10:00:00:000";
const std::string file_id("\x28\xb3\x2a\xeb\xb6\x24\xcc\xc2\xbf\xc8\xb0\x2a\xa9\x2b\xfc\xf1", 16);

// The header's creation time: fixed (1970-01-01 10:00, with the top-level CreationTime, FileId
// and footer that go with it), or with --timestamp the clock's, in UTC: SOURCE_DATE_EPOCH when
// set to seconds since 1970 (as reproducible builds set it), else now. Only this stamp changes:
// the FBX SDK checks the footer against the top-level CreationTime, which stays fixed, as
// Blender's exporter does it (docs/fbx.md "Writing FBX").
std::tm creation_stamp(bool timestamp, int& millisecond) {
    std::tm t{};
    millisecond = 0;
    if (!timestamp) {
        t.tm_year = 70, t.tm_mday = 1, t.tm_hour = 10;
        return t;
    }
    using namespace std::chrono;
    const auto now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    int64_t ms = now;
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
        char* end = nullptr;
        const long long seconds = std::strtoll(epoch, &end, 10);
        if (end != epoch && *end == 0 && seconds >= 0 && seconds < 253402300800LL) ms = int64_t(seconds) * 1000;  // before year 10000
    }
    const std::time_t seconds = std::time_t(ms / 1000);
    millisecond = int(ms % 1000);
    gmtime_r(&seconds, &t);
    return t;
}

Node header_extension(uint32_t version, bool timestamp) {
    Node h{"FBXHeaderExtension", {}, {}};
    h.add("FBXHeaderVersion", {i32(1003)});
    h.add("FBXVersion", {i32(version)});
    h.add("EncryptionType", {i32(0)});
    Node& stamp = h.add("CreationTimeStamp");
    stamp.add("Version", {i32(1000)});
    int millisecond = 0;
    const std::tm t = creation_stamp(timestamp, millisecond);
    for (auto [field, value] : {std::pair{"Year", t.tm_year + 1900}, {"Month", t.tm_mon + 1}, {"Day", t.tm_mday}, {"Hour", t.tm_hour},
                                {"Minute", t.tm_min}, {"Second", t.tm_sec}, {"Millisecond", millisecond}})
        stamp.add(field, {i32(value)});
    h.add("Creator", {str("rigport")});
    return h;
}

// FBX's TimeMode for a frame rate (the FBX SDK's EMode numbering); 14 = custom (CustomFrameRate).
int time_mode(double fps) {
    static constexpr std::pair<double, int> modes[] = {{120, 1}, {100, 2}, {60, 3}, {50, 4}, {48, 5}, {30, 6}, {25, 10}, {24, 11}, {1000, 12}, {96, 15}, {72, 16}};
    for (auto [rate, mode] : modes)
        if (fps == rate) return mode;
    return 14;
}

// Y up, right-handed, the unit of the scene: the axis system Maya and Blender's default export
// write (UpAxis +Y, FrontAxis +Z with parity odd, CoordAxis +X), which readers take as it is.
Node global_settings(const Scene& scene) {
    Node g{"GlobalSettings", {}, {}};
    g.add("Version", {i32(1000)});
    Node& p = g.add("Properties70");
    property_int(p, "UpAxis", 1);
    property_int(p, "UpAxisSign", 1);
    property_int(p, "FrontAxis", 2);
    property_int(p, "FrontAxisSign", 1);
    property_int(p, "CoordAxis", 0);
    property_int(p, "CoordAxisSign", 1);
    property_int(p, "OriginalUpAxis", 1);
    property_int(p, "OriginalUpAxisSign", 1);
    // Centimetres per unit (docs/units.md): the scene's unit as save_output left it.
    const double cm = double(scene.meta.unit_scale > 0 ? scene.meta.unit_scale : 1.0f) * 100.0;
    property_double(p, "UnitScaleFactor", cm);
    property_double(p, "OriginalUnitScaleFactor", cm);
    double fps = 0, stop = 0;
    for (const Animation& a : scene.animations) {
        if (fps == 0 && a.frame_rate > 0) fps = a.frame_rate;
        stop = std::max(stop, double(a.duration()));
    }
    if (fps == 0) fps = default_frame_rate;
    property_enum(p, "TimeMode", time_mode(fps));
    property_enum(p, "TimeProtocol", 2);
    property_enum(p, "SnapOnFrameMode", 0);
    property_time(p, "TimeSpanStart", 0);
    property_time(p, "TimeSpanStop", out::ticks(stop));
    property(p, "CustomFrameRate", "double", "Number", "", {f64(fps)});
    return g;
}

// Definitions: how many objects of each kind, with the Model template that gives joints and
// meshes FBX's plain parent-child composition (InheritType 1, RSrs: docs/fbx.md §2.2).
Node definitions(const Document& doc) {
    Node d{"Definitions", {}, {}};
    d.add("Version", {i32(100)});
    size_t total = 1;
    for (auto& [type, n] : doc.counts) total += n;
    d.add("Count", {i32(int64_t(total))});
    d.add("ObjectType", {str("GlobalSettings")}).add("Count", {i32(1)});
    for (auto& [type, n] : doc.counts) {
        Node& t = d.add("ObjectType", {str(type)});
        t.add("Count", {i32(int64_t(n))});
        if (type == "Model") {
            Node& p = t.add("PropertyTemplate", {str("FbxNode")}).add("Properties70");
            property_enum(p, "InheritType", 1);
            property_bool(p, "RotationActive", true);
            property_vector(p, "Lcl Translation", "Lcl Translation", "", "A", {0, 0, 0});
            property_vector(p, "Lcl Rotation", "Lcl Rotation", "", "A", {0, 0, 0});
            property_vector(p, "Lcl Scaling", "Lcl Scaling", "", "A", {1, 1, 1});
        }
    }
    return d;
}

}  // namespace

}  // namespace out

Expected<Output> write(const Scene& input, const std::string&, const SaveOptions& options) {
    const uint32_t version = options.fbx.version;
    if (version != 7400 && version != 7500 && version != 7700)
        return make_error(ErrorCode::InvalidArgument, fmt::format("FBX version {} is not written (7400, 7500 or 7700)", version));
    // FBX scenes are Y up with counter-clockwise front faces (docs/fbx.md "Writing FBX"): other
    // scenes are written from a converted copy.
    const std::optional<Scene> converted = y_up_ccw_copy(input);
    const Scene& scene = converted ? *converted : input;
    // Key times become FBX ticks (1/46186158000 s): each must fit a 64-bit tick count and keep
    // its track's order after rounding, or a reader would refuse the curve (docs/fbx.md §5).
    for (const Animation& a : scene.animations) {
        auto in_order = [&](const std::vector<float>& times) {
            int64_t before = INT64_MIN;
            for (float t : times) {
                if (!std::isfinite(t) || std::fabs(double(t)) > 1.9e8) return false;  // about 6 years: INT64_MAX ticks is 2.0e8 s
                const int64_t now = out::ticks(double(t));
                if (now < before) return false;
                before = now;
            }
            return true;
        };
        bool ok = std::all_of(a.tracks.begin(), a.tracks.end(), [&](const JointTrack& t) { return in_order(t.times); }) &&
                  std::all_of(a.morph_tracks.begin(), a.morph_tracks.end(), [&](const MorphWeightTrack& t) { return in_order(t.times); }) &&
                  std::isfinite(a.duration()) && std::fabs(double(a.duration())) <= 1.9e8;
        if (!ok)
            return make_error(ErrorCode::Unsupported, fmt::format("animation '{}': key times that are not finite, not ascending or beyond 1.9e8 s "
                                                                  "cannot be FBX ticks (1/46186158000 s)", a.name));
    }

    out::Document doc(scene, options);
    out::write_joints(doc);
    out::write_materials(doc);
    out::write_meshes(doc);
    out::write_skins(doc);
    out::write_morphs(doc);
    out::write_animations(doc);

    std::vector<out::Node> top;
    top.push_back(out::header_extension(version, options.fbx.timestamp));
    if (!options.fbx.ascii) top.push_back(out::Node{"FileId", {out::raw(out::file_id)}, {}});
    top.push_back(out::Node{"CreationTime", {out::str(out::creation_time)}, {}});
    top.push_back(out::Node{"Creator", {out::str("rigport")}, {}});
    top.push_back(out::global_settings(scene));
    top.push_back(out::definitions(doc));
    top.push_back(std::move(doc.objects));
    top.push_back(std::move(doc.connections));
    top.push_back(out::takes_node(scene));
    const out::Encoding encoding{.version = version};
    return Output{options.fbx.ascii ? out::encode_ascii(top, encoding) : out::encode_binary(top, encoding), {}, {}, {}, {}};
}

}  // namespace rigport::fbx

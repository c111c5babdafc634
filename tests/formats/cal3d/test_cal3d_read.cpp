// Cal3D readers on small fixtures written here: rotation convention, XML forms, CAF encodings, size checks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "formats/cal3d/cal3d.hpp"
#include "support/byte_cursor.hpp"
#include "rigport/formats.hpp"

namespace rigport::test {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Vec3 rotate(const Quat& q, const Vec3& v) {  // standard q·v·q*
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    const float tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    return {v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)};
}

const char* two_bones = R"(<HEADER MAGIC="XSF" VERSION="910"/>
<SKELETON NUMBONES="2">
  <BONE NAME="child" ID="0" NUMCHILDS="0">
    <TRANSLATION>10 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION>
    <LOCALTRANSLATION>-8 -1 -3</LOCALTRANSLATION><LOCALROTATION>0 0 -0.70710678 0.70710678</LOCALROTATION>
    <PARENTID>1</PARENTID>
  </BONE>
  <BONE NAME="root" ID="1" NUMCHILDS="1">
    <TRANSLATION>1 2 3</TRANSLATION><ROTATION>0 0 0.70710678 0.70710678</ROTATION>
    <LOCALTRANSLATION>2 -1 -3</LOCALTRANSLATION><LOCALROTATION>0 0 -0.70710678 0.70710678</LOCALROTATION>
    <PARENTID>-1</PARENTID><CHILDID>0</CHILDID>
  </BONE>
</SKELETON>)";

// §4.1: Cal3D rotates (1,0,0) by the file quaternion (0,0,0.7071,0.7071) to (0,-1,0). The child's
// world position is T_root + R_root·(10,0,0) = (1,2,3) + (0,-10,0) = (1,-8,3).
TEST(Cal3dRead, QuaternionConventionTwoBoneChain) {
    auto s = cal3d::read_xsf(bytes_of(two_bones), {});
    ASSERT_TRUE(s) << s.error().to_string();
    const auto& j = s->skeleton.joints;
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0].name, "root");  // parent-first, whatever the bone ids
    EXPECT_EQ(j[1].parent, 0);
    EXPECT_EQ(s->skeleton.source_ids, (std::vector<int32_t>{1, 0}));
    EXPECT_NEAR(j[0].bind.rotate[2], -0.70710678f, 1e-6);
    EXPECT_NEAR(j[0].bind.rotate[3], 0.70710678f, 1e-6);
    Vec3 r = rotate(j[0].bind.rotate, j[1].bind.translate);
    EXPECT_NEAR(j[0].bind.translate[0] + r[0], 1.0f, 1e-5);
    EXPECT_NEAR(j[0].bind.translate[1] + r[1], -8.0f, 1e-5);
    EXPECT_NEAR(j[0].bind.translate[2] + r[2], 3.0f, 1e-5);
    // The LOCAL* given are the exact inverse binds (computed by hand with q_std = conj(q_file)): no warning.
    for (auto& w : s->warnings.items) EXPECT_EQ(w.message.find("inverse"), std::string::npos) << w.message;
    // Without the conjugation they would not be: the same file with the root's LOCAL* unconjugated warns.
    std::string wrong = two_bones;
    wrong.replace(wrong.rfind("0 0 -0.70710678 0.70710678"), 26, "0 0 0.70710678 0.70710678");
    auto w = cal3d::read_xsf(bytes_of(wrong), {});
    ASSERT_TRUE(w);
    bool warned = false;
    for (auto& item : w->warnings.items) warned |= item.message.find("inverse") != std::string::npos;
    EXPECT_TRUE(warned);
    EXPECT_EQ(s->meta.dialect, "classic");
    EXPECT_EQ(s->meta.up, UpAxis::Z);
}

TEST(Cal3dRead, RootFormLowerCaseAndJunk) {
    const std::string xml = R"(<?xml version="1.0"?>
# a comment line IMVU tools leave
<skeleton version="1100" magic="XSF" numbones="1">
  junk text
  <bone name="b" id="0"><translation>0 0 0</translation><rotation>0 0 0 1</rotation>
  <localtranslation>0 0 0</localtranslation><localrotation>0 0 0 1</localrotation><parentid>-1</parentid></bone>
</skeleton>)";
    ASSERT_TRUE(cal3d::detect_xsf(bytes_of(xml)));
    auto s = cal3d::read_xsf(bytes_of(xml), {});
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->skeleton.joints.size(), 1u);
    EXPECT_EQ(s->meta.source_version, 1100u);
    bool junk = false;
    for (auto& w : s->warnings.items) junk |= w.message.find("junk") != std::string::npos;
    EXPECT_TRUE(junk);
}

TEST(Cal3dRead, XmlErrorsNameTheElement) {
    std::string xml = two_bones;
    xml.replace(xml.find("<ROTATION>0 0 0 1"), 17, "<ROTATION>0 0 x 1");
    auto s = cal3d::read_xsf(bytes_of(xml), {});
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("SKELETON/BONE/ROTATION"), std::string::npos) << s.error().message;
    EXPECT_GT(s.error().line, 1u);
    auto wrong = cal3d::read_xmf(bytes_of(two_bones), {});
    ASSERT_FALSE(wrong);
}

TEST(Cal3dRead, XpfBothDialects) {
    const std::string imvu = R"(<HEADER MAGIC="XPF" VERSION="919"/><ANIMATION NUMTRACKS="1" DURATION="1">
<TRACK NUMKEYFRAMES="2" MORPHNAME="eyes.Blink.Clamped"><KEYFRAME TIME="0"><WEIGHT>0</WEIGHT></KEYFRAME>
<KEYFRAME TIME="1"><WEIGHT>0.5</WEIGHT></KEYFRAME></TRACK></ANIMATION>)";
    const std::string up = R"(<?xml version="1.0"?><ANIMATION MAGIC="XPF" VERSION="1301" DURATION="2" NUMTRACKS="1">
<TRACK MORPHID="3" MESHID="19" NUMKEYFRAMES="1" NUMSUBTARGET="2"><SUBMESH ID="0"/><SUBMESH ID="2"/>
<KEYFRAME TIME="0.5"><WEIGHT>1</WEIGHT></KEYFRAME></TRACK></ANIMATION>)";
    ASSERT_TRUE(cal3d::detect_xpf(bytes_of(imvu)));
    ASSERT_TRUE(cal3d::detect_xpf(bytes_of(up)));
    auto a = cal3d::read_xpf(bytes_of(imvu), {});
    ASSERT_TRUE(a) << a.error().to_string();
    EXPECT_EQ(a->meshes[0].morph_targets[0].name, "eyes.Blink.Clamped");
    EXPECT_EQ(a->animations[0].morph_tracks[0].weights, (std::vector<float>{0, 0.5f}));
    auto b = cal3d::read_xpf(bytes_of(up), {});
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_EQ(b->meshes[0].name, "mesh 19 submesh 0,2 morph 3");
    EXPECT_TRUE(check_invariants(*a));
    EXPECT_TRUE(check_invariants(*b));
}

TEST(Cal3dRead, MorphAbsoluteAndDelta) {
    auto mesh = [](const char* pos) {
        return std::string(R"(<HEADER MAGIC="XMF" VERSION="919"/><MESH NUMSUBMESH="1">
<SUBMESH NUMVERTICES="1" NUMFACES="0" NUMLODSTEPS="0" NUMSPRINGS="0" NUMTEXCOORDS="0" MATERIAL="0" NUMMORPHS="1">
<VERTEX ID="0" NUMINFLUENCES="0"><POS>100 200 300</POS><NORM>0 0 1</NORM></VERTEX>
<MORPH NAME="m" NUMBLENDVERTS="1"><BLENDVERTEX VERTEXID="0"><POSITION>)") + pos +
               R"(</POSITION><NORMAL>0 0 1</NORMAL></BLENDVERTEX></MORPH></SUBMESH></MESH>)";
    };
    auto abs = cal3d::read_xmf(bytes_of(mesh("101 202 303")), {});
    ASSERT_TRUE(abs) << abs.error().to_string();
    EXPECT_EQ(abs->meshes[0].morph_targets[0].position_deltas[0], (Vec3{1, 2, 3}));
    auto delta = cal3d::read_xmf(bytes_of(mesh("1 2 3")), {});
    ASSERT_TRUE(delta);
    EXPECT_EQ(delta->meshes[0].morph_targets[0].position_deltas[0], (Vec3{1, 2, 3}));
}

// Binary fixtures.
void string(io::ByteWriter& w, const std::string& s) {
    w.i32(int32_t(s.size() + 1));
    w.bytes(s.data(), s.size());
    w.u8(0);
}
void floats(io::ByteWriter& w, std::initializer_list<float> v) {
    for (float f : v) w.f32(f);
}

std::vector<uint8_t> csf_one_bone() {
    io::ByteWriter w;
    w.bytes("CSF\0", 4);
    w.i32(700);
    w.i32(1);
    string(w, "root");
    floats(w, {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1});
    w.i32(-1);
    w.i32(0);
    return w.bytes();
}

TEST(Cal3dRead, BinaryMustBeExactlyItsSize) {
    auto good = csf_one_bone();
    ASSERT_TRUE(cal3d::read_csf(good, {}));
    auto longer = good;
    longer.push_back(0);
    auto e = cal3d::read_csf(longer, {});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().offset, good.size());
    EXPECT_NE(e.error().message.find("left over"), std::string::npos);
    auto shorter = good;
    shorter.pop_back();
    auto s = cal3d::read_csf(shorter, {});
    ASSERT_FALSE(s);
    EXPECT_TRUE(s.error().offset.has_value());
}

TEST(Cal3dRead, HostileCountsAreRejectedBeforeAllocating) {
    auto b = csf_one_bone();
    b[8] = b[9] = b[10] = 0xFF;
    b[11] = 0x7F;  // boneCount 2^31-1
    auto e = cal3d::read_csf(b, {});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().offset, 8u);
    io::ByteWriter w;  // CMF: one submesh claiming 2^30 vertices
    w.bytes("CMF\0", 4);
    w.i32(700);
    w.i32(1);
    for (int32_t v : {0, 1 << 30, 0, 0, 0, 0}) w.i32(v);
    auto m = cal3d::read_cmf(w.bytes(), {});
    ASSERT_FALSE(m);
    EXPECT_FALSE(m.error().message.empty());
}

std::vector<uint8_t> caf_header(int32_t version, std::optional<int32_t> compression, int32_t tracks, std::optional<int32_t> flags) {
    io::ByteWriter w;
    w.bytes("CAF\0", 4);
    w.i32(version);
    if (compression) w.i32(*compression);
    w.f32(2.0f);
    w.i32(tracks);
    if (flags) w.i32(*flags);
    return w.bytes();
}

TEST(Cal3dRead, CafFloatKeysAndSentinel) {
    io::ByteWriter w;
    w.bytes() = caf_header(700, {}, 1, {});
    w.i32(4);
    w.i32(2);
    floats(w, {0, 1, 2, 3, 0, 0, 0.70710678f, 0.70710678f});
    floats(w, {1, 1e10f, 1e10f, 1e10f, 0, 0, 0, 1});
    auto s = cal3d::read_caf(w.bytes(), {});
    ASSERT_TRUE(s) << s.error().to_string();
    const auto& tracks = s->animations[0].tracks;
    ASSERT_EQ(tracks.size(), 2u);
    EXPECT_EQ(tracks[0].channel, Channel::Translation);
    EXPECT_EQ(tracks[0].joint, 4u);
    EXPECT_EQ(tracks[0].values, (std::vector<float>{1, 2, 3, 1, 2, 3}));  // 1e10 = none: neighbour's
    EXPECT_NEAR(tracks[1].values[2], -0.70710678f, 1e-6);                // conjugated
    EXPECT_TRUE(check_invariants(*s));
}

TEST(Cal3dRead, Caf1200QuantisedKeys) {
    io::ByteWriter w;
    w.bytes() = caf_header(1200, {}, 1, 1);
    w.i32(0);
    w.i32(1);
    floats(w, {10, 20, 30, 0.5f, 0.25f, 2});  // min, scale
    w.u16(65535);                            // t = duration
    w.u32(5u | 7u << 11 | 3u << 22);
    w.u16(23170);  // x = 0.5
    w.u16(1);      // which = 3: x y z stored, w derived
    w.u16(1);
    auto s = cal3d::read_caf(w.bytes(), {});
    ASSERT_TRUE(s) << s.error().to_string();
    const auto& t = s->animations[0].tracks;
    EXPECT_NEAR(t[0].times[0], 2.0f, 1e-6);
    EXPECT_NEAR(t[0].values[0], 12.5f, 1e-6);
    EXPECT_NEAR(t[0].values[1], 21.75f, 1e-6);
    EXPECT_NEAR(t[0].values[2], 36.0f, 1e-6);
    EXPECT_NEAR(t[1].values[0], -0.5f, 1e-4);
    EXPECT_NEAR(t[1].values[3], std::sqrt(0.75f), 1e-4);
}

class BitWriter {
public:
    void put(uint32_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i, ++bit_) {
            if (bit_ % 8 == 0) bytes.push_back(0);
            bytes.back() |= uint8_t(((v >> i) & 1u) << (bit_ % 8));
        }
    }
    std::vector<uint8_t> bytes;

private:
    uint64_t bit_ = 0;
};

TEST(Cal3dRead, CafImvuPackedKeys) {
    for (int32_t version : {919, 1300}) {
        io::ByteWriter w;
        w.bytes() = caf_header(version, 1, 1, {});
        w.bytes().insert(w.bytes().end(), {3, 0x80, 1, 0});  // bone 3, translation, small range, 1 key
        BitWriter t;
        t.put(511, 9), t.put(0, 1), t.put(0, 9), t.put(0, 1), t.put(511, 9), t.put(1, 1), t.put(0, 2);
        BitWriter r;
        r.put(3, 2);  // w omitted
        r.put(0, 1), r.put(0, 11), r.put(0, 1), r.put(0, 11), r.put(1, 1), r.put(2047, 11);
        r.put(15, 10);  // 0.5 s
        w.bytes().insert(w.bytes().end(), t.bytes.begin(), t.bytes.end());
        w.bytes().insert(w.bytes().end(), r.bytes.begin(), r.bytes.end());
        auto s = cal3d::read_caf(w.bytes(), {});
        ASSERT_TRUE(s) << version << ": " << s.error().to_string();
        const auto& tr = s->animations[0].tracks;
        ASSERT_EQ(tr.size(), 2u);
        EXPECT_EQ(tr[0].joint, 3u);
        EXPECT_NEAR(tr[0].times[0], 0.5f, 1e-6);
        EXPECT_NEAR(tr[0].values[0], 128.0f, 1e-4);
        EXPECT_NEAR(tr[0].values[2], -128.0f, 1e-4);
        EXPECT_NEAR(tr[1].values[2], 1.0f, 1e-6);  // file z = -1 -> standard +1
    }
}

TEST(Cal3dRead, RegistryHasEveryFileType) {
    for (auto name : {"cal3d-csf", "cal3d-cmf", "cal3d-caf", "cal3d-crf", "cal3d-cpf", "cal3d-xsf", "cal3d-xmf", "cal3d-xaf",
                      "cal3d-xrf", "cal3d-xpf"}) {
        auto* f = find_format(name);
        ASSERT_NE(f, nullptr) << name;
        EXPECT_NE(f->read, nullptr);
    }
    EXPECT_EQ(detect_format(csf_one_bone(), "x.bin")->name, "cal3d-csf");
    EXPECT_EQ(detect_format(bytes_of(two_bones), "x.txt")->name, "cal3d-xsf");
}

}  // namespace
}  // namespace rigport::test

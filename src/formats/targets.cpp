// The engine profiles (docs/targets.md): each engine's limits as its own source or manual states
// them. The numbers and where they come from are in docs/targets.md, in the same order. Here,
// beside the registry, because the profiles name the formats each engine loads.
#include "rigport/targets.hpp"

#include <algorithm>
#include <cctype>

namespace rigport {

namespace {

using M = TargetMeasure;

// The limits of a vertex-animation format's engine are also its writer's (docs/md2.md, mdl.md,
// md3.md): a model within them is written as it is.
std::vector<TargetProfile> make_profiles() {
    std::vector<TargetProfile> p;
    p.push_back({.name = "idtech4",
                 .engine = "id Tech 4 (Doom 3, Quake 4, dhewm3, RBDOOM-3-BFG): MD5",
                 .formats = {"md5"},
                 .limits = {{M::Roots, 1, "Doom 3 source, neo/renderer/Model_md5.cpp: one hierarchy, joint 0 the root"}},
                 .root_name = "origin",
                 .root_name_source = "Doom 3 source, neo/game/anim/Anim.cpp: the entity's movement is read from joint 0, which id's "
                                     "models and exporters name origin",
                 .weighted_vertices = true,
                 .textures = {.types = {"tga", "jpeg", "pcx", "bmp"},
                              .types_source = "Doom 3 source, neo/renderer/Image_files.cpp: R_LoadImage reads TGA (then a JPEG of the same "
                                              "name), PCX, BMP and JPEG by extension, and resamples to powers of two itself"},
                 .name_characters = TargetProfile::NameCharacters::NoQuotes,
                 .name_characters_source = "MD5 (docs/md5.md): joint, mesh and shader names are quoted strings without escapes; a '\"' ends one early "
                                           "and a control character breaks its line",
                 .metres_per_unit = 0.0254,
                 .unit_source = "Doom 3 source, neo/game/gamesys/SysCvar.cpp: pm_normalheight 74, a standing player 74 units (6 ft 2 in) tall: "
                                "one unit to the inch",
                 .faces_plus_x = true,
                 .facing_source = "Doom 3 source, neo/idlib/math/Angles.cpp: yaw 0 looks along +X, the way id's MD5 models face"});
    p.push_back({.name = "goldsrc",
                 .engine = "GoldSrc (Half-Life 1), through studiomdl: SMD",
                 .formats = {"smd"},
                 .limits = {{M::Influences, 1, "Half-Life SDK, engine/studio.h: mstudiomodel_t binds each vertex to one bone (vertinfoindex)"},
                            {M::Joints, 128, "Half-Life SDK, engine/studio.h: MAXSTUDIOBONES"},
                            {M::Roots, 1, "studiomdl: one skeleton per model (the first root's children)"},
                            {M::Positions, 2048, "Half-Life SDK, engine/studio.h: MAXSTUDIOVERTS (positions; normals and texture coordinates are stored apart)"},
                            {M::Triangles, 20000, "Half-Life SDK, engine/studio.h: MAXSTUDIOTRIANGLES"},
                            {M::Meshes, 100, "Half-Life SDK, engine/studio.h: MAXSTUDIOSKINS (a mesh per texture)"},
                            {M::JointNameBytes, 31, "Half-Life SDK, engine/studio.h: mstudiobone_t name[32]"},
                            {M::AnimationNameBytes, 31, "Half-Life SDK, engine/studio.h: mstudioseqdesc_t label[32]"},
                            {M::MaterialNameBytes, 63, "Half-Life SDK, engine/studio.h: mstudiotexture_t name[64]"}},
                 .weighted_vertices = true,
                 .textures = {.types = {"bmp"},
                              .types_source = "Half-Life SDK, utils/studiomdl/studiomdl.c: Grab_Skin takes .bmp files only (\"unknown graphics type\")",
                              .most_texels = 640 * 480 - 768,
                              .texels_source = "Half-Life SDK, utils/studiomdl/studiomdl.c: ResizeTexture refuses a skin whose texels (width "
                                               "rounded up to 4) and 768-byte palette pass 640 x 480 (\"texture too large\")",
                              .palette = true,
                              .palette_source = "Half-Life SDK, utils/studiomdl/bmpread.c: 8 bits per pixel, uncompressed, with the BMP's own "
                                                "palette, which the model keeps"},
                 .name_characters = TargetProfile::NameCharacters::NoQuotes,
                 .name_characters_source = "Half-Life SDK, utils/common/scriplib.c: studiomdl reads SMD and QC names as tokens, a quoted one ending "
                                           "at the next '\"'",
                 .metres_per_unit = 0.0254,
                 .unit_source = "Half-Life SDK, pm_shared/pm_shared.c: the standing player's box is 72 units (6 ft) tall: one unit to the inch",
                 .faces_plus_x = true,
                 .facing_source = "Half-Life SDK: yaw 0 looks along +X and studiomdl keeps the SMD's axes, so models face +X"});
    p.push_back({.name = "source",
                 .engine = "Source (Half-Life 2, Garry's Mod, Portal), through studiomdl: SMD",
                 .formats = {"smd"},
                 .limits = {{M::Influences, 3, "Source SDK 2013, public/studio.h: MAX_NUM_BONES_PER_VERT"},
                            {M::Joints, 128, "Source SDK 2013, public/studio.h: MAXSTUDIOBONES"},
                            {M::Vertices, 65536, "Source SDK 2013, public/studio.h: MAXSTUDIOVERTS"},
                            {M::Triangles, 65536, "Source SDK 2013, public/studio.h: MAXSTUDIOTRIANGLES"}},
                 .weighted_vertices = true,
                 .textures = {.types = {"tga"},
                              .types_source = "Valve Developer Community, TGA: vtex compiles 24- or 32-bit TGA into the VTF the engine loads",
                              .power_of_two = true,
                              .power_of_two_source = "Valve Developer Community, TGA: vtex takes sides that are powers of two",
                              .most_width = 2048,
                              .most_height = 2048,
                              .size_source = "Valve Developer Community, TGA: vtex takes at most 2048 pixels a side"},
                 .name_characters = TargetProfile::NameCharacters::NoQuotes,
                 .name_characters_source = "Source SDK 2013, utils/studiomdl: SMD and QC names are tokens, a quoted one ending at the next '\"'",
                 .metres_per_unit = 0.0254,
                 .unit_source = "Valve Developer Community, Dimensions: character models use 12 units to the foot, one unit to the inch "
                                "(the player 72 units tall)",
                 .faces_plus_x = true,
                 .facing_source = "Source SDK 2013: yaw 0 looks along +X and studiomdl keeps the SMD's axes, so models face +X"});
    p.push_back({.name = "quake",
                 .engine = "Quake 1 (GLQuake, QuakeSpasm): MDL",
                 .formats = {"mdl"},
                 .limits = {{M::Vertices, 1024, "GLQuake, gl_model.h: MAXALIASVERTS"},
                            {M::Triangles, 2048, "GLQuake, gl_model.h: MAXALIASTRIS"},
                            {M::Frames, 256, "GLQuake, gl_model.h: MAXALIASFRAMES"}},
                 .frame_rate = 10,
                 .frame_rate_source = "Quake's QuakeC (progs): a model's frame functions step every 0.1 s (nextthink = time + 0.1)",
                 // The skin goes inside the MDL, quantised to Quake's palette by the writer
                 // (docs/mdl.md): no image type to check, only its height.
                 .textures = {.most_height = 480,
                              .size_source = "GLQuake, gl_model.c: Mod_LoadAliasModel refuses a skin taller than MAX_LBM_HEIGHT (480)"},
                 .name_characters = TargetProfile::NameCharacters::Identifier,
                 .only_animation_names = true,
                 .name_characters_source = "Quake's QuakeC: a model's frame names are listed on $frame lines and used as $NAME symbols by qcc",
                 .metres_per_unit = 1.0 / 32,
                 .unit_source = "Quake's QuakeC, defs.qc: VEC_HULL_MIN '-16 -16 -24', VEC_HULL_MAX '16 16 32': the player is 56 units tall, "
                                "32 units to the metre for a person of 1.75 m",
                 .faces_plus_x = true,
                 .facing_source = "Quake: an entity's yaw 0 looks along +X, the way its models face"});
    p.push_back({.name = "quake2",
                 .engine = "Quake 2 (Yamagi Quake II, Q2PRO): MD2",
                 .formats = {"md2"},
                 .limits = {{M::Vertices, 2048, "Quake 2 source, qcommon/qfiles.h: MAX_VERTS"},
                            {M::Triangles, 4096, "Quake 2 source, qcommon/qfiles.h: MAX_TRIANGLES"},
                            {M::Frames, 512, "Quake 2 source, qcommon/qfiles.h: MAX_FRAMES"},
                            {M::Meshes, 32, "Quake 2 source, qcommon/qfiles.h: MAX_MD2SKINS (one skin per material)"},
                            {M::MaterialNameBytes, 63, "Quake 2 source, qcommon/qfiles.h: MAX_SKINNAME (skin names)"}},
                 .frame_rate = 10,
                 .frame_rate_source = "Quake 2 source, game/g_local.h: FRAMETIME 0.1, the server's frame, which steps a model's frame",
                 // TGA first: an 8-bit PCX takes its colours from the game's pics/colormap.pcx
                 // (Draw_GetPalette), game data rigport does not have, so convert writes TGA.
                 .textures = {.types = {"tga", "pcx", "wal"},
                              .types_source = "Quake 2 source, ref_gl/gl_image.c: GL_FindImage loads .pcx, .wal and .tga skins by extension",
                              .most_height = 480,
                              .size_source = "Quake 2 source, ref_gl/gl_model.c: Mod_LoadAliasModel refuses a skin taller than MAX_LBM_HEIGHT (480)"},
                 .name_characters = TargetProfile::NameCharacters::Identifier,
                 .only_animation_names = true,
                 .name_characters_source = "Quake 2 source, game/m_*.h: frame names become FRAME_name symbols of C headers",
                 .metres_per_unit = 1.0 / 32,
                 .unit_source = "Quake 2 source, qcommon/pmove.c: PM_CheckDuck sets the standing player's box from -24 to 32, 56 units "
                                "tall: 32 units to the metre for a person of 1.75 m",
                 .faces_plus_x = true,
                 .facing_source = "Quake 2: an entity's yaw 0 looks along +X, the way its models face"});
    p.push_back({.name = "quake3",
                 .engine = "Quake 3 (ioquake3): MD3",
                 .formats = {"md3"},
                 .limits = {{M::VerticesPerMesh, 4096, "ioquake3, code/qcommon/qfiles.h: MD3_MAX_VERTS"},
                            {M::TrianglesPerMesh, 8192, "ioquake3, code/qcommon/qfiles.h: MD3_MAX_TRIANGLES"},
                            {M::Meshes, 32, "ioquake3, code/qcommon/qfiles.h: MD3_MAX_SURFACES"},
                            {M::Frames, 1024, "ioquake3, code/qcommon/qfiles.h: MD3_MAX_FRAMES"},
                            {M::MeshNameBytes, 63, "ioquake3, code/qcommon/qfiles.h: md3Surface_t name[MAX_QPATH] (q_shared.h: 64)"},
                            {M::MaterialNameBytes, 63, "ioquake3, code/qcommon/qfiles.h: md3Shader_t name[MAX_QPATH] (q_shared.h: 64)"}},
                 .textures = {.types = {"tga", "jpeg", "png", "pcx", "bmp"},
                              .types_source = "ioquake3, code/renderergl1/tr_image.c: imageLoaders (TGA, JPEG, PNG, PCX, BMP), chosen by extension"},
                 .metres_per_unit = 1.0 / 32,
                 .unit_source = "ioquake3, code/game/bg_pmove.c: PM_CheckDuck sets the standing player's box from MINS_Z (-24) to 32, 56 "
                                "units tall: 32 units to the metre for a person of 1.75 m",
                 .faces_plus_x = true,
                 .facing_source = "ioquake3: an entity's yaw 0 looks along +X, the way its models face"});
    p.push_back({.name = "darkplaces",
                 .engine = "DarkPlaces (Xonotic): IQM, MD3",
                 .formats = {"iqm", "md3"},
                 .limits = {{M::Influences, 4, "IQM, iqm.txt: blendindexes and blendweights hold 4 per vertex"},
                            {M::Joints, 256, "IQM, iqm.txt: blendindexes are unsigned bytes"}},
                 .weighted_vertices = true,
                 .metres_per_unit = 1.0 / 32,
                 .unit_source = "DarkPlaces plays Quake's content: the player's box is 56 units tall (Quake's defs.qc), 32 units to the "
                                "metre for a person of 1.75 m",
                 .faces_plus_x = true,
                 .facing_source = "DarkPlaces (Quake): an entity's yaw 0 looks along +X, the way its models face"});
    p.push_back({.name = "fte",
                 .engine = "FTE QuakeWorld: IQM",
                 .formats = {"iqm"},
                 .limits = {{M::Influences, 4, "IQM, iqm.txt: blendindexes and blendweights hold 4 per vertex"},
                            {M::Joints, 256, "IQM, iqm.txt: blendindexes are unsigned bytes"}},
                 .weighted_vertices = true,
                 .metres_per_unit = 1.0 / 32,
                 .unit_source = "FTE plays Quake's content: the player's box is 56 units tall (Quake's defs.qc), 32 units to the metre "
                                "for a person of 1.75 m",
                 .faces_plus_x = true,
                 .facing_source = "FTE (Quake): an entity's yaw 0 looks along +X, the way its models face"});
    p.push_back({.name = "raylib",
                 .engine = "raylib: IQM, glTF",
                 .formats = {"iqm", "glb"},
                 .limits = {{M::Influences, 4, "raylib, src/raylib.h: Mesh boneIds and boneWeights hold 4 per vertex"},
                            {M::VerticesPerMesh, 65536, "raylib, src/raylib.h: Mesh indices are unsigned short"},
                            {M::Joints, 256, "raylib, src/raylib.h: Mesh boneIds are unsigned char"}},
                 .weighted_vertices = true});
    p.push_back({.name = "godot",
                 .engine = "Godot 4: glTF",
                 .formats = {"glb"},
                 .limits = {{M::Influences, 8, "Godot 4, servers/rendering_server.h: ARRAY_FLAG_USE_8_BONE_WEIGHTS (4 or 8 per vertex)"}},
                 .weighted_vertices = true});
    p.push_back({.name = "three",
                 .engine = "three.js: glTF",
                 .formats = {"glb"},
                 .limits = {{M::Influences, 4, "three.js, src/objects/SkinnedMesh.js and GLTFLoader: skinIndex and skinWeight are vec4 (JOINTS_0, WEIGHTS_0)"}},
                 .weighted_vertices = true});
    p.push_back({.name = "unity",
                 .engine = "Unity: FBX",
                 .formats = {"fbx"},
                 .limits = {{M::Influences, 4, "Unity manual, Quality settings: Skin Weights, 4 bones per vertex by default"}},
                 .weighted_vertices = true});
    p.push_back({.name = "unreal",
                 .engine = "Unreal Engine 4: FBX",
                 .formats = {"fbx"},
                 .limits = {{M::Influences, 8, "Unreal Engine 4, GPUSkinPublicDefs.h: MAX_TOTAL_INFLUENCES"}},
                 .weighted_vertices = true});
    return p;
}

}  // namespace

std::string_view target_measure_name(TargetMeasure measure) {
    switch (measure) {
        case M::Influences: return "influences";
        case M::Joints: return "joints";
        case M::JointsPerMesh: return "joints_per_mesh";
        case M::Roots: return "roots";
        case M::VerticesPerMesh: return "vertices_per_mesh";
        case M::TrianglesPerMesh: return "triangles_per_mesh";
        case M::Vertices: return "vertices";
        case M::Positions: return "positions";
        case M::Triangles: return "triangles";
        case M::Meshes: return "meshes";
        case M::Frames: return "frames";
        case M::JointNameBytes: return "joint_name_bytes";
        case M::MeshNameBytes: return "mesh_name_bytes";
        case M::MaterialNameBytes: return "material_name_bytes";
        case M::AnimationNameBytes: return "animation_name_bytes";
    }
    return "unknown";
}

const std::vector<TargetProfile>& target_profiles() {
    static const std::vector<TargetProfile> profiles = make_profiles();
    return profiles;
}

const TargetProfile* find_target(std::string_view name) {
    for (const TargetProfile& p : target_profiles())
        if (p.name.size() == name.size() &&
            std::equal(name.begin(), name.end(), p.name.begin(), [](char a, char b) { return std::tolower((unsigned char)a) == b; }))
            return &p;
    return nullptr;
}

}  // namespace rigport

// Loading and saving scenes: the library's front door. Only this layer touches the filesystem.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// A function from a path to the file's bytes: an engine's storage (LoadOptions::read_file).
using FileReader = std::function<Expected<std::vector<uint8_t>>(const std::string& path)>;

// Every default is correct; the limits bound what hostile input can make us allocate.
struct LoadOptions {
    std::string format;                     // registry name; empty = detect from content, then extension
    uint64_t max_file_bytes = 1ull << 31;   // refuse larger inputs
    uint64_t max_elements = 1ull << 26;     // any single count (vertices, triangles, keys ...)
    uint64_t max_frames = 1ull << 20;       // animation frames of a frame-based file
    // Threads a reader may use (0 = every core, 1 = this thread only); the result is the same for
    // any count. Today the IQE reader parses files of 1 MiB or more in chunks in parallel.
    uint32_t threads = 0;
    // Keys per second at which a reader resamples curves it cannot keep as keys (glTF CUBICSPLINE).
    float resample_rate = 30.0f;
    // Also sample at resample_rate the curves a reader keeps as keys although they interpolate
    // otherwise than rigport between them (FBX: Euler angles per channel, cubic keys), so the
    // motion between keys follows the file more closely. Off: keys at the file's key times only.
    bool resample_curves = false;
    // Frames per second of a vertex-animated model that stores no rate (MD2, MD3: its frames become
    // animations keyed at frame / rate); 0 = the format's own (Quake 2's 10 for MD2, 15 for MD3:
    // docs/md3.md "Frames").
    float vertex_frame_rate = 0.0f;
    // The name of the file the bytes come from, as load_bytes was given it (load_bytes sets it
    // when it is empty). A format that finds side files by the model's own file name uses its
    // stem: a Half-Life model's textures in NAMEt.mdl and sequences in NAME01.mdl (docs/hlmdl.md).
    std::string source_name;
    // Reads a file the model refers to (a .gltf's external buffer), given its URI as written in
    // the file, percent-decoded: a relative path. load(path) sets one reading beside the model
    // (resource_reader) when none is given; without one such a model cannot be read from bytes.
    std::function<Expected<std::vector<uint8_t>>(const std::string& uri)> read_resource = nullptr;
    // Confinement: a file a model names (a buffer, an image, a .cfg member, a texture) is read only
    // from root and below, after resolving '..' and symlinks; empty = the folder of the model that
    // names it. allow_outside lifts the rule (the CLI's --allow-outside).
    std::string root;
    bool allow_outside = false;
    // A part a model names that is missing (a .cfg member ...) is an error naming it; with
    // allow_missing it is a warning and the part is left out (the CLI's --allow-missing).
    bool allow_missing = false;
    // Deepest nesting a reader follows (XML elements, JSON values, node hierarchies).
    uint32_t max_depth = 256;
    // Told the path of every file read for this load: the inputs and every file they name. The
    // CLI uses it to refuse an output that would replace any of them.
    std::function<void(const std::string& path)> on_read = nullptr;
    // Where files come from when they are not on disk (an engine's pak, zip or asset database):
    // every file a load or compile() reads by path — the inputs, a .cfg and its members, a .gltf's
    // buffers, a PACK.jpk read for PACK.jpk:MEMBER — is asked for by its path as the model names
    // it, joined to the folder of the file that names it and made lexically normal ("a/../b" is
    // "b"); a name leading above that folder is refused unless allow_outside. Null = the disk.
    FileReader read_file = nullptr;
    // A model given as one mesh file takes its companions, the animation files beside it that go
    // with it (find_companions; docs/cli.md "Companions"). Honoured where a model is given by its
    // paths: load_model, read_model_info, validate_model, run_conversion (add_companions); load()
    // and compile() read exactly the files given. The CLI's --no-companions turns it off.
    bool companions = true;
};

struct FormatInfo;

// A folder as find_companions looks at it, read once for any number of models in it (batch):
// its files by name, which animation files go with which mesh file by their stems, and the model
// lists beside them (a .qc) with the files they name that exist.
struct CompanionFolder {
    std::string path;                // the folder as given; "" = the current folder
    std::vector<std::string> names;  // its regular files (links to them too), sorted
    // Mesh file name -> the names of the animation files of its format whose stem begins with its
    // stem, no other mesh's longer stem beginning theirs (FormatInfo::animation_extension).
    std::vector<std::pair<std::string, std::vector<std::string>>> by_stem;
    struct List {
        std::string path;  // the list file (folder/name)
        const FormatInfo* format = nullptr;
        // Files it names that exist, as path/name (a name in another letter case than the file
        // beside it is taken as that file), of the list's format; confined to the folder and below
        // unless LoadOptions::allow_outside.
        std::vector<std::string> meshes, animations;
    };
    std::vector<List> lists;  // by name
};
// Empty when the folder cannot be listed, or when options.read_file is set (a storage has no listing).
CompanionFolder read_companion_folder(const std::string& folder, const LoadOptions& options = {});

// The companions of the mesh file at path: the animation files beside it that go with it, in the
// order they are read (docs/cli.md "Companions"). By stem where the format names its animation
// files by extension (MD5: Bob.md5mesh takes Bob.md5anim and Bob*.md5anim, an animation file going
// to the mesh with the longest stem that begins its own); by a model list beside it where the
// format has one (SMD: the animation SMDs that a .qc naming this reference for its $body, $model
// or $bodygroup names in its $sequence and $animation lines; the first such .qc by name; without
// one, none). None when options.companions is off, path is not a file on disk, or its folder
// cannot be listed. options.on_read is told the list that named them.
std::vector<std::string> find_companions(const std::string& path, const LoadOptions& options = {});
// The same in a folder read before (path's folder).
std::vector<std::string> find_companions(const std::string& path, const CompanionFolder& folder, const LoadOptions& options = {});

// A LoadOptions::read_resource for a model at model_path: URIs are read relative to its folder,
// each bounded by max_bytes, confined to that folder and below (after resolving '..' and
// symlinks); URIs with a scheme ("http:", "file:") are refused (Unsupported), a URI leading
// outside is a ReadFailed error saying where it resolves to.
std::function<Expected<std::vector<uint8_t>>(const std::string& uri)> resource_reader(const std::string& model_path,
                                                                                      uint64_t max_bytes);
// The same, honouring options: max_file_bytes, root and allow_outside (confinement), on_read
// (told each file read). load(path) uses this one.
std::function<Expected<std::vector<uint8_t>>(const std::string& uri)> resource_reader(const std::string& model_path,
                                                                                      const LoadOptions& options);

// An image for a glTF material map, resolved by the caller (found on disk, converted to PNG ...).
// The writer matches it to a map by source_uri (TextureMap::uri exactly as the scene holds it):
// bytes given -> embedded (a bufferView with mime_type); only uri given -> referenced by that uri;
// both empty -> the material is written without that image. A map with no entry is referenced by
// its source uri as written (with a warning unless it names a PNG or JPEG file).
struct GltfImage {
    std::string source_uri;
    std::string uri;        // relative to the output's folder, unencoded (the writer percent-encodes)
    std::string mime_type;  // "image/png" or "image/jpeg"; empty = sniffed from bytes
    std::vector<uint8_t> bytes;
};

// Compressed glTF output (docs/gltf.md "Compressed output"): KHR_mesh_quantization and
// EXT_meshopt_compression, animation keys thinned within stated bounds.
struct GltfCompression {
    bool enabled = false;
    // Fast: quantised integers only. Small: meshoptimizer's filters too (octahedral normals and
    // tangents, quaternion rotations, exponential translations and scales), which compress better.
    enum class Level : uint8_t { Fast, Small };
    Level level = Level::Small;
    // Bits of the position grid (1 to 16); 0 = the fewest whose error (half a grid step) is at most
    // 1/4096 of the longest side of the model's bounding box: 12.
    uint32_t position_bits = 0;
};

// glTF 2.0 writer options (docs/gltf.md §1-§5).
struct GltfOptions {
    // Bake: a Z-up (or X-up) scene is turned Y-up in the data (convert_to_y_up); Root: data stays
    // in source space under one axis-root node carrying the rotation. Y-up / unknown: no rotation.
    enum class AxisMode : uint8_t { Bake, Root };
    AxisMode axis = AxisMode::Bake;
    // Looping frame-based animations get a copy of key 0 at frame_count / frame_rate (§4.5).
    bool loop_key = false;
    // .gltf: the buffer goes inline as a base64 data: URI instead of a <stem>.bin side file.
    // save_bytes() sets it, since it returns one file only.
    bool embed_buffer = false;
    std::vector<GltfImage> images;
    // Images the scene holds (Scene::images, e.g. read from a .glb). Auto: inside a .glb, beside a
    // .gltf (or inside it with embed_buffer); Embed: inside either; Files: beside either, named
    // by their maps' uri. Embedded only when PNG or JPEG: any other type (KTX2, WebP ...) goes
    // beside the output, with a warning, whatever the mode.
    enum class EmbeddedImages : uint8_t { Auto, Embed, Files };
    EmbeddedImages embedded_images = EmbeddedImages::Auto;
    GltfCompression compression;
};

// Cal3D writer options (docs/cal3d.md §3.8, §9 rule 10).
struct Cal3dOptions {
    // The target family, chosen explicitly: IMVU 919 (HEADER-form XML, what IMVU's tools accept),
    // classic 1100 (root-form XML, what Debian's cal3d_converter reads) or trunk 1301.
    enum class Dialect : uint8_t { Imvu919, Classic1100, Trunk1301 };
    Dialect dialect = Dialect::Imvu919;
    // A .cfg output writes its skeleton, meshes, materials and animations beside it: XML (.x?f)
    // by default, as IMVU's previewer imports only XML; binary (.c?f) when set.
    bool binary = false;
};

// VDrift JOE writer options (docs/joe.md §9 rule 7; docs/joe.md).
struct JoeOptions {
    // Write a mesh beyond VDrift's limits (more than 32,000 faces, indices above 32,767) instead
    // of refusing it; arrays beyond 65,536 entries never fit the u16 indices and stay refused.
    bool force = false;
};

// Quake 3 MD3 writer options (docs/md3.md "Writing").
struct Md3Options {
    // Joints written as tags (by name, at most 16): each frame stores the joint's world transform.
    std::vector<std::string> tags;
};

// FBX writer options (docs/fbx.md "Writing FBX").
struct FbxOptions {
    // ASCII FBX text instead of binary.
    bool ascii = false;
    // The FBX version written: 7400 (FBX 2014/2015, what Blender, Unity and Unreal write), 7500 or
    // 7700 (64-bit record offsets in binary files). Any other number is refused (InvalidArgument).
    uint32_t version = 7400;
    // A joint's rest orientation is written as its PreRotation (Maya's joint orient), with Lcl
    // Rotation zero at rest and rotation keys relative to it; false: the rest orientation in Lcl
    // Rotation and no PreRotation (for readers that add a node per pre-rotation, as assimp).
    bool pre_rotation = true;
    // The header's CreationTimeStamp from the clock (SOURCE_DATE_EPOCH when set, as reproducible
    // builds set it) instead of the fixed 1970-01-01 10:00 that keeps the bytes the same.
    bool timestamp = false;
    // Each Video holds its image's bytes (Content): the image the scene holds, or the one in
    // SaveOptions::images, for its map; a map with neither stays named only. --images embed.
    bool embed_images = false;
};

struct SaveOptions {
    std::string format;  // registry name; empty = from the output extension
    // IQM: write joints (with names) even for a file without meshes (the compiler's -j).
    bool force_joints = false;
    // Where a writer also reports what the target format cannot hold (save_output's Output::warnings
    // always has them; save() reports them here only).
    Warnings* warnings = nullptr;
    GltfOptions gltf;
    Cal3dOptions cal3d;
    JoeOptions joe;
    Md3Options md3;
    FbxOptions fbx;
    // The images of the materials' textures on disk, found by the caller (resolve_images with
    // ImageOptions::Mode::Embed), matched to a map by GltfImage::source_uri = TextureMap::uri:
    // FBX embeds them (FbxOptions::embed_images), MD2 takes its skin size and Quake MDL its skin
    // from them. The pipeline fills it for the formats that use it (FormatInfo::uses_texture_images).
    std::vector<GltfImage> images;
    // The output's unit of length (docs/units.md). Empty: the format's own, metres for the formats
    // that define one (glTF, IQM: FormatInfo::metres_per_unit) and the source's numbers for the rest;
    // "keep": the source's numbers whatever the format; a unit name ("m", "cm", "inch" ...: see
    // unit_metres in rigport/process.hpp): scaled from the source's unit (Meta::unit_scale) to it.
    std::string unit;
    // Frame-based writers (IQM, IQE) sample every animation into frames of every joint: frames x
    // joints in all beyond this is refused (LimitExceeded) before sampling. 2^24 poses is ~90
    // minutes of a 100-joint skeleton at 30 fps; a few keys at huge times must not take gigabytes.
    uint64_t max_poses = 1ull << 24;
    // Threads a writer may use (IQM: vertex arrays, adjacency, per-frame bounds): 0 = every core,
    // 1 = the calling thread only. The output is the same bytes for any count.
    uint32_t threads = 0;
};

// A writer's result: the main file's bytes plus files that go beside it (a .gltf's .bin).
struct OutputFile {
    std::string name;  // relative to the main output's folder
    std::vector<uint8_t> bytes;
};
struct Output {
    std::vector<uint8_t> bytes;
    std::vector<OutputFile> side_files;
    std::string_view format;  // what was written: the registry name, or the variant ("glb" for a .glb)
    Warnings warnings;        // what the target format could not hold (also added to SaveOptions::warnings)
    std::vector<std::string> notes;  // what the writer chose and its bounds (compressed glTF's grid): `convert -v`
};

// How outputs replace files (write_output, write_file_atomic). Every default is the safe one.
struct WriteOptions {
    // Replace an output that is read-only (no write bit in its mode, or not writable by this
    // user) instead of refusing it; root is refused too unless forced.
    bool force = false;
    // Files no output may replace: the inputs and every file they read (LoadOptions::on_read).
    // Compared by device and inode, so a hard link or a symlink to one of them is caught as well.
    std::vector<std::string> protect;
};

// "-" and "/dev/stdout": the output is streamed to standard output, never renamed over.
bool is_stdout_path(const std::string& path);

// What write_output checks for each file it would write, callable before any work: the folder
// exists; the target (after following symlinks: a symlinked output replaces the file it points
// to) is a regular file or absent, never a device, FIFO, socket or folder; it is writable unless
// options.force; it is none of options.protect. A protected file is an InvalidArgument error
// naming both paths; the filesystem conditions are WriteFailed.
Status check_output(const std::string& path, const WriteOptions& options = {});

// The whole file. Only a regular file is opened (checked before the open, so a named pipe never
// blocks): a folder, FIFO, socket or device is a ReadFailed error.
Expected<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_bytes = 1ull << 31);
// A model's bytes: the file at path, or, when no file has that name, the member MEMBER of a VDrift
// JPK pack named as "PACK.jpk:MEMBER" (the last duplicate wins, as in VDrift; jpk.hpp). on_read,
// when given, is told the file actually read (the pack for a member).
Expected<std::vector<uint8_t>> read_input(const std::string& path, uint64_t max_bytes = 1ull << 31,
                                          const std::function<void(const std::string& path)>& on_read = nullptr);
// The same through options: options.read_file when set (else the disk), max_file_bytes, on_read.
Expected<std::vector<uint8_t>> read_input(const std::string& path, const LoadOptions& options);

// Writes to a temporary file beside path, then renames it over path: a failure never leaves a
// partial file and never destroys the old one. The checks of check_output apply.
Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes, const WriteOptions& options = {});

Expected<Scene> load(const std::string& path, const LoadOptions& options = {});
// path is used for format detection by extension and in error messages only.
Expected<Scene> load_bytes(std::span<const uint8_t> bytes, const std::string& path,
                           const LoadOptions& options = {});

// The writer's output for path (format from options.format, else path's extension), in memory.
Expected<Output> save_output(const Scene& scene, const std::string& path, const SaveOptions& options = {});
// One file in memory: as save_output with gltf.embed_buffer set, so a .gltf carries its buffer
// inline; a writer that still produces side files is an Unsupported error.
Expected<std::vector<uint8_t>> save_bytes(const Scene& scene, const std::string& path,
                                          const SaveOptions& options = {});
// Writes the main file and its side files (beside path) together: each is checked (check_output)
// and staged under a temporary name ("NAME.rigport-tmp-PID-XXXXXXXX") before any is renamed into
// place, and the renames run under a lock on the output's folder, so a failure leaves every old
// file as it was and two runs writing the same output never mix their files. Temporaries left by
// a process that no longer runs are removed. A stdout path (is_stdout_path) streams the main file.
// A WriteGroup of one output: the files are made durable in one step before the renames.
Status write_output(const std::string& path, const Output& output, const WriteOptions& options = {});

// Outputs written as one, with one durability step for all of them (a JPK extract's members, a
// batch's models). stage() checks an output as write_output does and writes each of its files
// under a temporary name beside it, without syncing; commit() then makes every staged byte
// durable at once (an fsync per file for up to 8 files, else one syncfs per filesystem), renames
// each output's files into place (side files first, the main file last, under a lock on its
// folder) and makes the renames durable once (each folder's fsync for up to 8 folders, else one
// syncfs per filesystem again). So a failure while staging, or a crash before
// the commit, replaces nothing and leaves only temporaries (removed by the next write into that
// folder); a crash during the commit leaves each file old or new, never partial. A failed rename
// stops its group there: earlier outputs of it are in place, the rest are discarded. What is
// still staged when the group is destroyed is removed. One group is used by one thread at a time.
class WriteGroup {
public:
    WriteGroup();
    WriteGroup(WriteGroup&& other) noexcept;
    WriteGroup& operator=(WriteGroup&& other) noexcept;
    ~WriteGroup();

    // One output: the main file at path and output's side files beside it (not standard output).
    Status stage(const std::string& path, const Output& output, const WriteOptions& options = {});
    Status stage(const std::string& path, std::span<const uint8_t> bytes, const WriteOptions& options = {});
    Status commit();
    // Removes every staged temporary; nothing is replaced.
    void discard() noexcept;
    size_t file_count() const;

private:
    friend std::vector<Status> commit_groups(std::span<WriteGroup* const> groups);
    static std::vector<Status> commit_all(std::span<WriteGroup* const> groups);
    Status stage_files(const std::string& path, std::span<const uint8_t> main_bytes, std::span<const OutputFile> side_files,
                       const WriteOptions& options);

    struct File {
        std::string temporary, path, shown;  // shown: the name errors give (before following symlinks)
    };
    struct Staged {
        std::vector<File> files;  // side files first, the main file last
    };
    std::vector<Staged> outputs_;
    std::vector<std::string> cleaned_;  // folders whose stale temporaries were removed
};

// Commits several groups with one durability step for all (WriteGroup::commit for each, but one
// syncfs): one Status per group, in order. A batch commits its models' groups this way.
std::vector<Status> commit_groups(std::span<WriteGroup* const> groups);

// save_output + write_output.
Status save(const Scene& scene, const std::string& path, const SaveOptions& options = {});

}  // namespace rigport

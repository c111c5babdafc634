// Errors, typed warnings and Expected<T>: how every library call reports failure (docs/library.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace rigport {

enum class ErrorCode : uint8_t {
    InvalidArgument,  // the caller asked for something impossible (bad option values)
    NotFound,         // input file missing
    ReadFailed,       // the OS refused to read
    WriteFailed,      // the OS refused to write; the old output is untouched
    UnknownFormat,    // content and extension match no registered format
    Unsupported,      // recognised but not (yet) handled: version, feature, target format
    Malformed,        // the input breaks its format's rules
    LimitExceeded,    // the input asks for more than LoadOptions allows
};

const char* to_string(ErrorCode code);

// An error names the file and the place in it: a byte offset for binary input, line:col for text.
struct Error {
    ErrorCode code = ErrorCode::Malformed;
    std::string message;
    std::string path;                // may be empty for in-memory input
    std::optional<uint64_t> offset;  // byte offset in binary input
    uint32_t line = 0;               // 1-based; 0 = not a text position
    uint32_t column = 0;

    // "path: offset 124: message" / "path:12:5: message" / "path: message".
    std::string to_string() const;
};

inline Error make_error(ErrorCode code, std::string message, std::optional<uint64_t> offset = {}) {
    Error e;
    e.code = code;
    e.message = std::move(message);
    e.offset = offset;
    return e;
}

enum class WarningCode : uint16_t {
    UnalignedOffset,        // an ofs_* or vertex-array offset not aligned as the spec asks
    AnimationOnly,          // poses without joints: no names, no bind pose
    FramesWithoutData,      // num_frames > 0 with ofs_frames == 0 (all channels constant)
    CommentNotTerminated,   // comment without a final NUL (the EXM count quirk)
    SeveralRoots,           // more than one root joint
    NonStandardFormat,      // a standard vertex array in a non-recommended component format
    ReservedArrayType,      // vertex array type 7..15
    DuplicateArray,         // the same vertex array type twice; the later one ignored
    ArrayOrder,             // vertex arrays not in ascending type order
    FileSizeMismatch,       // header filesize smaller than the data
    PoseParentMismatch,     // pose parent differs from joint parent
    NonUnitQuaternion,      // normalized on read
    TriangleOutsideMesh,    // a triangle uses a vertex outside its mesh's range; the vertex is copied
    DegenerateTriangle,
    ZeroFrameRate,          // framerate 0 or not finite
    UnknownFlags,
    TextOffsetInsideString, // a name pointing into the middle of a string
    ExtensionCountMismatch, // list length differs from num_extensions
    DroppedData,            // the target format cannot hold something the scene has
    UnknownCommand,         // text formats: unknown keyword
    ImageFormatNotGltf,     // glTF: an image that is not PNG or JPEG (the only core formats)
    InvalidNormal,          // a zero or non-finite normal / tangent replaced by a unit fallback
    UnweightedVertex,       // a skinned mesh's vertex without influences, bound to a fallback joint
    TextureNotFound,        // a material's texture file is not where the model says
    PartMissing,            // a file a model names (.cfg member) is missing; left out (allow_missing)
    CountMismatch,          // a stated count differs from the elements present; what is read is said
    NonFiniteValue,         // NaN or infinity replaced (by 0 unless the message says otherwise)
    ValueClamped,           // a value outside its range clamped into it (colours, sizes, counts)
    Ignored,                // something read and left unused (an extension, a stray command, options that do not apply)
    Tolerated,              // breaks the format's rules in a way its tools accept; read as meant
    KeysAdjusted,           // animation keys sorted, filled in, resampled, or a length written for them
    BindPoseMismatch,       // stored bind pose and inverse bind disagree (or cannot be exact); what is used is said
    ReaderDifference,       // a reference reader (VDrift, upstream Cal3D, IMVU) treats this otherwise; rigport's choice is said
    Substituted,            // a stand-in for what the data lacks (a default material, zero normals, identity rotations)
    ArchiveLayout,          // a pack's entries repeat, overlap or leave stale bytes
    Interpreted,            // data whose meaning the file leaves open, read by the stated rule
    Unmapped,               // retargeting: joints no bone-map pair drives (kept at rest), or motion not carried over
    Other,                  // not used by rigport's readers and writers; kept for callers' own warnings
};

const char* to_string(WarningCode code);

// Warnings are typed and deduplicated: the same (code, message, path) is counted, never repeated.
struct Warning {
    WarningCode code = WarningCode::Other;
    std::string message;
    uint32_t count = 1;
    std::optional<uint64_t> offset;  // first occurrence
    // The file it is about: the input a reader read (load, compile and validate name it; a member
    // of a .cfg names the member), or the output a writer wrote. Empty for unnamed bytes.
    std::string path;

    // "path: offset 124: message" / "path: message" / "message" (as Error::to_string).
    std::string to_string() const;
};

struct Warnings {
    std::vector<Warning> items;
    // Constant time per call: a file with 50,000 distinct warnings costs linear time, not quadratic.
    void add(WarningCode code, std::string message, std::optional<uint64_t> offset = {}, std::string path = {});
    // Another list's warning, counts added to an equal one's.
    void add_warning(const Warning& warning);
    // Every warning without a path gets this one (a reader's warnings name the file it read).
    void set_path(const std::string& path);
    bool has(WarningCode code) const;

    // items by hash of (code, message, path); rebuilt whenever it does not cover items exactly.
    std::unordered_multimap<uint64_t, size_t> index;
};

// A value or an Error; the library's only way to fail (no exceptions cross the API).
template <class T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : v_(std::move(value)) {}
    Expected(Error error) : v_(std::move(error)) {}

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(v_); }
    Error& error() { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Expected<Ok>;

}  // namespace rigport

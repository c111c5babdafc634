// Error and warning text, and the deduplicating warning list.
#include "rigport/error.hpp"

#include <fmt/format.h>

namespace rigport {

const char* to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::InvalidArgument: return "invalid argument";
        case ErrorCode::NotFound: return "not found";
        case ErrorCode::ReadFailed: return "read failed";
        case ErrorCode::WriteFailed: return "write failed";
        case ErrorCode::UnknownFormat: return "unknown format";
        case ErrorCode::Unsupported: return "unsupported";
        case ErrorCode::Malformed: return "malformed";
        case ErrorCode::LimitExceeded: return "limit exceeded";
    }
    return "error";
}

std::string Error::to_string() const {
    std::string where = path;
    if (line > 0) {
        where += fmt::format(":{}:{}", line, column);
    } else if (offset) {
        where += where.empty() ? fmt::format("offset {}", *offset) : fmt::format(": offset {}", *offset);
    }
    return where.empty() ? message : where + ": " + message;
}

const char* to_string(WarningCode code) {
    switch (code) {
        case WarningCode::UnalignedOffset: return "unaligned-offset";
        case WarningCode::AnimationOnly: return "animation-only";
        case WarningCode::FramesWithoutData: return "frames-without-data";
        case WarningCode::CommentNotTerminated: return "comment-not-terminated";
        case WarningCode::SeveralRoots: return "several-roots";
        case WarningCode::NonStandardFormat: return "non-standard-format";
        case WarningCode::ReservedArrayType: return "reserved-array-type";
        case WarningCode::DuplicateArray: return "duplicate-array";
        case WarningCode::ArrayOrder: return "array-order";
        case WarningCode::FileSizeMismatch: return "file-size-mismatch";
        case WarningCode::PoseParentMismatch: return "pose-parent-mismatch";
        case WarningCode::NonUnitQuaternion: return "non-unit-quaternion";
        case WarningCode::TriangleOutsideMesh: return "triangle-outside-mesh";
        case WarningCode::DegenerateTriangle: return "degenerate-triangle";
        case WarningCode::ZeroFrameRate: return "zero-frame-rate";
        case WarningCode::UnknownFlags: return "unknown-flags";
        case WarningCode::TextOffsetInsideString: return "text-offset-inside-string";
        case WarningCode::ExtensionCountMismatch: return "extension-count-mismatch";
        case WarningCode::DroppedData: return "dropped-data";
        case WarningCode::UnknownCommand: return "unknown-command";
        case WarningCode::ImageFormatNotGltf: return "image-format-not-gltf";
        case WarningCode::InvalidNormal: return "invalid-normal";
        case WarningCode::UnweightedVertex: return "unweighted-vertex";
        case WarningCode::TextureNotFound: return "texture-not-found";
        case WarningCode::PartMissing: return "part-missing";
        case WarningCode::Other: return "other";
    }
    return "other";
}

namespace {

uint64_t warning_key(WarningCode code, const std::string& message) {
    return std::hash<std::string>{}(message) * 31 + uint64_t(code);
}

}  // namespace

void Warnings::add(WarningCode code, std::string message, std::optional<uint64_t> offset) {
    // The index is trusted only while it covers items exactly; a caller that appended to items
    // (merging two lists) makes it stale, and it is rebuilt once.
    if (index.size() != items.size()) {
        index.clear();
        for (size_t i = 0; i < items.size(); ++i) index.emplace(warning_key(items[i].code, items[i].message), i);
    }
    const uint64_t key = warning_key(code, message);
    for (auto [it, end] = index.equal_range(key); it != end; ++it) {
        if (it->second < items.size() && items[it->second].code == code && items[it->second].message == message) {
            ++items[it->second].count;
            return;
        }
    }
    index.emplace(key, items.size());
    items.push_back(Warning{code, std::move(message), 1, offset});
}

bool Warnings::has(WarningCode code) const {
    for (auto& w : items)
        if (w.code == code) return true;
    return false;
}

}  // namespace rigport

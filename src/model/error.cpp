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
        case WarningCode::CountMismatch: return "count-mismatch";
        case WarningCode::NonFiniteValue: return "non-finite-value";
        case WarningCode::ValueClamped: return "value-clamped";
        case WarningCode::Ignored: return "ignored";
        case WarningCode::Tolerated: return "tolerated";
        case WarningCode::KeysAdjusted: return "keys-adjusted";
        case WarningCode::BindPoseMismatch: return "bind-pose-mismatch";
        case WarningCode::ReaderDifference: return "reader-difference";
        case WarningCode::Substituted: return "substituted";
        case WarningCode::ArchiveLayout: return "archive-layout";
        case WarningCode::Interpreted: return "interpreted";
        case WarningCode::Unmapped: return "unmapped";
        case WarningCode::Other: return "other";
    }
    return "other";
}

std::string Warning::to_string() const {
    std::string where = path;
    if (offset) where += where.empty() ? fmt::format("offset {}", *offset) : fmt::format(": offset {}", *offset);
    return where.empty() ? message : where + ": " + message;
}

namespace {

uint64_t warning_key(const Warning& w) {
    return (std::hash<std::string>{}(w.message) * 31 + std::hash<std::string>{}(w.path)) * 31 + uint64_t(w.code);
}

}  // namespace

void Warnings::add_warning(const Warning& warning) {
    // The index is trusted only while it covers items exactly; a caller that appended to items
    // (merging two lists) makes it stale, and it is rebuilt once.
    if (index.size() != items.size()) {
        index.clear();
        for (size_t i = 0; i < items.size(); ++i) index.emplace(warning_key(items[i]), i);
    }
    const uint64_t key = warning_key(warning);
    for (auto [it, end] = index.equal_range(key); it != end; ++it) {
        if (it->second >= items.size()) continue;
        Warning& w = items[it->second];
        if (w.code == warning.code && w.message == warning.message && w.path == warning.path) {
            w.count += warning.count;
            return;
        }
    }
    index.emplace(key, items.size());
    items.push_back(warning);
}

void Warnings::add(WarningCode code, std::string message, std::optional<uint64_t> offset, std::string path) {
    add_warning(Warning{code, std::move(message), 1, offset, std::move(path)});
}

void Warnings::set_path(const std::string& path) {
    if (path.empty()) return;
    for (auto& w : items)
        if (w.path.empty()) w.path = path;
    index.clear();  // keys include the path
}

bool Warnings::has(WarningCode code) const {
    for (auto& w : items)
        if (w.code == code) return true;
    return false;
}

}  // namespace rigport

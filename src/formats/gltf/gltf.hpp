// glTF 2.0 constants (Khronos glTF 2.0 specification §3.6, §4.4 GLB) and the writer's entry points.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::gltf {

// accessor.componentType
inline constexpr uint32_t BYTE = 5120;
inline constexpr uint32_t UNSIGNED_BYTE = 5121;
inline constexpr uint32_t SHORT = 5122;
inline constexpr uint32_t UNSIGNED_SHORT = 5123;
inline constexpr uint32_t UNSIGNED_INT = 5125;
inline constexpr uint32_t FLOAT = 5126;

// bufferView.target
inline constexpr uint32_t ARRAY_BUFFER = 34962;
inline constexpr uint32_t ELEMENT_ARRAY_BUFFER = 34963;

// mesh.primitive.mode
inline constexpr uint32_t POINTS = 0;
inline constexpr uint32_t TRIANGLES = 4;

// GLB container: 12-byte header, then chunks of (length, type, data) padded to 4 bytes.
inline constexpr uint32_t GLB_MAGIC = 0x46546C67;       // "glTF"
inline constexpr uint32_t GLB_VERSION = 2;
inline constexpr uint32_t GLB_CHUNK_JSON = 0x4E4F534A;  // "JSON"
inline constexpr uint32_t GLB_CHUNK_BIN = 0x004E4942;   // "BIN\0"
inline constexpr uint32_t GLB_HEADER_SIZE = 12;
inline constexpr uint32_t GLB_CHUNK_HEADER_SIZE = 8;

inline constexpr const char* generator = "rigport";

// A GLB header ("glTF", version 2). JSON files are recognised by extension only.
bool detect(std::span<const uint8_t> bytes);
// .glb or .gltf -> Scene (gltf_read.cpp): Y up, right-handed, counter-clockwise, as glTF is.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);
// GLB when path ends in .glb (any case), else JSON with the buffer in <stem>.bin (or inline when
// options.gltf.embed_buffer).
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);
// Always GLB.
Expected<Output> write_glb(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::gltf

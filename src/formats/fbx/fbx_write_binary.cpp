// Binary FBX 7.x output (docs/fbx.md §1.1 for the layout, "Writing FBX" for what is written):
// little-endian records with 32-bit offsets before 7500 and 64-bit ones from 7500, arrays of more
// than Encoding::deflate_from_bytes deflated (zlib stream, as FBX SDK files store them), and the
// footer the FBX SDK checks.
#include <libdeflate.h>

#include <bit>
#include <cstring>
#include <memory>

#include "formats/fbx/fbx_write_tree.hpp"

namespace rigport::fbx::out {

namespace {

// The FBX SDK refuses a file whose footer code does not go with its FileId and CreationTime
// (written by encode: fbx_write.cpp fixes both). This footer code, FileId and creation time are the
// triple Blender's exporter writes, which Autodesk's importers (Maya, MotionBuilder, Unity's and
// Unreal's FBX SDK) accept; a fixed triple also keeps the bytes the same on every run.
constexpr uint8_t footer_id[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66, 0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
constexpr uint8_t footer_magic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};

struct CompressorFree {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

class BinaryEncoder {
public:
    explicit BinaryEncoder(const Encoding& e) : e_(e), wide_(e.version >= 7500) {}

    std::vector<uint8_t> run(const std::vector<Node>& top) {
        static constexpr char magic[] = "Kaydara FBX Binary  ";
        out_.assign(magic, magic + 20);
        out_.insert(out_.end(), {0x00, 0x1a, 0x00});
        put(e_.version, 4);
        for (const Node& n : top) node(n);
        null_record();
        footer();
        return std::move(out_);
    }

private:
    void put(uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    void patch(size_t at, uint64_t v) {
        for (unsigned i = 0; i < width(); ++i) out_[at + i] = uint8_t(v >> (8 * i));
    }
    unsigned width() const { return wide_ ? 8 : 4; }
    void null_record() { out_.insert(out_.end(), 3 * width() + 1, 0); }

    void node(const Node& n) {
        const size_t at = out_.size();
        put(0, width());  // EndOffset, patched below
        put(n.values.size(), width());
        put(0, width());  // PropertyListLen, patched below
        out_.push_back(uint8_t(n.name.size()));
        out_.insert(out_.end(), n.name.begin(), n.name.end());
        const size_t values_at = out_.size();
        for (const Value& v : n.values) value(v);
        patch(at + 2 * width(), out_.size() - values_at);
        for (const Node& c : n.children) node(c);
        // The FBX SDK ends a record's child list with a null record, and writes one for a record
        // with neither values nor children too (an empty Properties70).
        if (!n.children.empty() || n.values.empty() || n.scope) null_record();
        patch(at, out_.size());
    }

    template <typename T>
    void array(char type, const std::vector<T>& values) {
        out_.push_back(uint8_t(type));
        put(values.size(), 4);
        const size_t bytes = values.size() * sizeof(T);
        std::vector<uint8_t> rawbytes(bytes);
        for (size_t i = 0; i < values.size(); ++i) {
            uint64_t bits = 0;
            if constexpr (sizeof(T) == 4) bits = std::bit_cast<uint32_t>(values[i]);
            else bits = std::bit_cast<uint64_t>(values[i]);
            for (size_t k = 0; k < sizeof(T); ++k) rawbytes[i * sizeof(T) + k] = uint8_t(bits >> (8 * k));
        }
        if (bytes > e_.deflate_from_bytes) {
            if (!compressor_) compressor_.reset(libdeflate_alloc_compressor(6));
            if (compressor_) {
                std::vector<uint8_t> packed(libdeflate_zlib_compress_bound(compressor_.get(), bytes));
                const size_t n = libdeflate_zlib_compress(compressor_.get(), rawbytes.data(), bytes, packed.data(), packed.size());
                if (n > 0) {
                    put(1, 4);
                    put(n, 4);
                    out_.insert(out_.end(), packed.begin(), packed.begin() + std::ptrdiff_t(n));
                    return;
                }
            }
        }
        put(0, 4);
        put(bytes, 4);
        out_.insert(out_.end(), rawbytes.begin(), rawbytes.end());
    }

    void text(char type, std::string_view s) {
        out_.push_back(uint8_t(type));
        put(s.size(), 4);
        out_.insert(out_.end(), s.begin(), s.end());
    }

    void value(const Value& v) {
        switch (v.type) {
            case 'C': out_.push_back('C'); out_.push_back(uint8_t(v.integer ? 1 : 0)); return;
            case 'I': out_.push_back('I'); put(uint32_t(int32_t(v.integer)), 4); return;
            case 'L': out_.push_back('L'); put(uint64_t(v.integer), 8); return;
            case 'D': out_.push_back('D'); put(std::bit_cast<uint64_t>(v.number), 8); return;
            case 'S': case 'R': text(v.type, v.text); return;
            case 'N': {
                std::string s = v.text;
                s.append("\0\1", 2);
                s += v.object_class;
                text('S', s);
                return;
            }
            case 'i': array('i', v.ints); return;
            case 'l': array('l', v.longs); return;
            case 'f': array('f', v.floats); return;
            case 'd': array('d', v.doubles); return;
            default: return;
        }
    }

    // After the top-level null record: the footer code, 4 zero bytes, padding to 16 bytes (a
    // whole 16 when already aligned), the version, 120 zero bytes and the footer magic.
    void footer() {
        out_.insert(out_.end(), footer_id, footer_id + 16);
        put(0, 4);
        size_t pad = ((out_.size() + 15) & ~size_t(15)) - out_.size();
        if (pad == 0) pad = 16;
        out_.insert(out_.end(), pad, 0);
        put(e_.version, 4);
        out_.insert(out_.end(), 120, 0);
        out_.insert(out_.end(), footer_magic, footer_magic + 16);
    }

    Encoding e_;
    bool wide_;
    std::vector<uint8_t> out_;
    std::unique_ptr<libdeflate_compressor, CompressorFree> compressor_;
};

}  // namespace

std::vector<uint8_t> encode_binary(const std::vector<Node>& top, const Encoding& encoding) { return BinaryEncoder(encoding).run(top); }

}  // namespace rigport::fbx::out

// Binary FBX node records (docs/fbx.md §1.1): 32-bit record headers before 7.5, 64-bit from 7.5,
// either byte order, arrays raw or zlib-deflated. Every offset is checked against the record that
// holds it and the file; inflation is bounded by the size the array declares. Arrays are inflated
// with libdeflate (docs/fbx.md §1.1): whole-buffer, into exactly the declared size.
#include <libdeflate.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "formats/fbx/fbx_document.hpp"
#include "formats/fbx/fbx_limits.hpp"

namespace rigport::fbx {

namespace {

class BinaryParser {
public:
    BinaryParser(std::span<const uint8_t> bytes, const LoadOptions& options) : bytes_(bytes), budget_(options), max_depth_(options.max_depth) {}

    Expected<Document> run() {
        Document doc;
        doc_ = &doc;
        doc.binary = true;
        if (bytes_.size() < 27) return fail(bytes_.size(), "the file ends inside the 27-byte header");
        doc.big_endian = bytes_[22] == 1;
        big_ = doc.big_endian;
        pos_ = 23;
        doc.version = uint32_t(read(4));
        // Files before 6.1 (3ds Max 7's FBX 5.0 says 3000 here) lay their records out as 6.1 does.
        if (doc.version < 3000 || doc.version > 7700)
            return make_error(ErrorCode::Unsupported, fmt::format("FBX version {}: rigport reads binary FBX 3.0 to 7.7 (3000-7700)", doc.version), 23);
        wide_ = doc.version >= 7500;
        // Top-level records run to a null record (the footer follows it) or, in some writers'
        // files, to the end.
        while (pos_ < bytes_.size()) {
            bool end = false;
            if (!record(level(0), bytes_.size(), 0, end)) return error_;
            if (end) break;
        }
        adopt(doc.root, 0, 0);
        // Before 6.0 the header's number is the binary layout's; the scene's version is the
        // FBXHeaderExtension's FBXVersion (5000 under a 3000 header), read as ufbx reads it.
        if (doc.version < 6000)
            if (const Node* header = doc.root.child("FBXHeaderExtension"))
                if (const Node* v = header->child("FBXVersion"); v && !v->properties.empty() && v->properties[0].is_number()) {
                    const int64_t named = v->properties[0].integer;
                    if (named > int64_t(doc.version) && named < 6000) doc.version = uint32_t(named);
                }
        return doc;
    }

private:
    uint64_t header_size() const { return wide_ ? 25 : 13; }

    Document* doc_ = nullptr;  // the document run() builds

    // n (1 to 8) bytes at pos_ in the file's byte order; the caller checked they are there.
    uint64_t read(unsigned n) {
        uint64_t v = 0;
        if (!big_ && std::endian::native == std::endian::little) {
            std::memcpy(&v, bytes_.data() + pos_, n);
        } else {
            for (unsigned i = 0; i < n; ++i) v |= uint64_t(bytes_[pos_ + i]) << (8 * (big_ ? n - 1 - i : i));
        }
        pos_ += n;
        return v;
    }
    bool has(uint64_t n, uint64_t limit) const { return pos_ <= limit && n <= limit - pos_; }

    bool fail_at(uint64_t at, std::string message, ErrorCode code = ErrorCode::Malformed) {
        error_ = make_error(code, std::move(message), at);
        return false;
    }
    Error fail(uint64_t at, std::string message) {
        fail_at(at, std::move(message));
        return error_;
    }

    // The records being read at one depth: a node's children gather here (on the heap, reused
    // from node to node) and are copied into the arena, sized once, when the node ends.
    std::vector<Node>& level(uint32_t depth) {
        if (depth < levels_.size()) [[likely]]
            return *levels_[depth];
        while (levels_.size() <= depth) levels_.push_back(std::make_unique<std::vector<Node>>());
        return *levels_[depth];
    }
    void adopt(Node& node, uint32_t depth, size_t first) {
        std::vector<Node>& gathered = level(depth);
        node.children = doc_->copy(std::span<const Node>(gathered).subspan(first));
        gathered.resize(first);
    }

    // One record and its children, appended to `siblings`; `limit` is where the parent record
    // ends. A null record (all header fields zero) ends the parent's list: `end` is set.
    bool record(std::vector<Node>& siblings, uint64_t limit, uint32_t depth, bool& end) {
        const uint64_t at = pos_;
        const unsigned w = wide_ ? 8 : 4;
        if (!has(header_size(), limit)) return fail_at(at, fmt::format("a node record's {}-byte header runs past the end of its parent at {}", header_size(), limit));
        const uint64_t end_offset = read(w), num_properties = read(w), property_bytes = read(w);
        const uint8_t name_len = uint8_t(read(1));
        if (end_offset == 0 && num_properties == 0 && property_bytes == 0 && name_len == 0) {
            end = true;
            return true;
        }
        if (depth >= max_depth_) return fail_at(at, fmt::format("nodes nested deeper than {} (LoadOptions::max_depth)", max_depth_), ErrorCode::LimitExceeded);
        // Some exporters write 0 for every record's end offset: such a record has no children
        // and ends where its properties end (docs/fbx.md §1.1), as ufbx and the FBX SDK read it.
        const bool zero_end = end_offset == 0;
        if (zero_end) {
            ++doc_->zero_end_records;
            if (!has(uint64_t(name_len) + property_bytes, limit))
                return fail_at(at, fmt::format("node record (end offset 0): name ({} bytes) and properties ({} bytes) run past the end of its parent at {}",
                                               name_len, property_bytes, limit));
        } else if (end_offset <= at || end_offset > limit)
            return fail_at(at, fmt::format("node record ends at {}, outside {}..{}", end_offset, at, limit));
        if (!zero_end && !has(uint64_t(name_len) + property_bytes, end_offset))
            return fail_at(at, fmt::format("node record: name ({} bytes) and properties ({} bytes) run past its end at {}", name_len, property_bytes, end_offset));
        if (num_properties > property_bytes / 2)  // the smallest property (a 'C') takes 2 bytes
            return fail_at(at, fmt::format("node record: {} properties cannot fit in {} bytes", num_properties, property_bytes));
        if (!budget_.add_node(num_properties)) return fail_at(at, budget_.message(), ErrorCode::LimitExceeded);
        Node& node = siblings.emplace_back();
        node.offset = at;
        node.name = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), name_len);
        pos_ += name_len;
        const uint64_t properties_end = pos_ + property_bytes;
        node.properties = doc_->make<Property>(num_properties);
        for (size_t k = 0; k < node.properties.size(); ++k) {
            // A type this parser does not know (Maya's audio nodes write 0x5a) has no size of its
            // own: the node's property list is skipped from there by its declared length, the
            // properties before it kept (docs/fbx.md §1.1), and the reader warns.
            if (pos_ < properties_end && !known_type(char(bytes_[pos_]))) {
                ++doc_->unknown_properties;
                node.properties = node.properties.first(k);
                pos_ = properties_end;
                break;
            }
            if (!property(node.properties[k], properties_end)) return false;
        }
        if (pos_ != properties_end)
            return fail_at(pos_, fmt::format("node '{}': its {} properties end at {}, not at {} as its header says", detail::excerpt(node.name), num_properties, pos_, properties_end));
        if (zero_end) return true;
        std::vector<Node>& children = level(depth + 1);
        const size_t first = children.size();
        while (pos_ < end_offset) {
            bool child_end = false;
            if (!record(children, end_offset, depth + 1, child_end)) return false;
            if (child_end) break;
        }
        adopt(node, depth + 1, first);
        if (pos_ != end_offset) return fail_at(pos_, fmt::format("node '{}': its children end at {}, not at {} as its header says", detail::excerpt(node.name), pos_, end_offset));
        return true;
    }

    static bool known_type(char t) {
        switch (t) {
            case 'C': case 'Y': case 'I': case 'L': case 'F': case 'D': case 'S': case 'R':
            case 'f': case 'd': case 'i': case 'l': case 'b': case 'c': return true;
            default: return false;
        }
    }

    bool property(Property& p, uint64_t limit) {
        const uint64_t at = pos_;
        if (!has(1, limit)) return fail_at(at, "a property runs past the end of its node's property list");
        p.type = char(read(1));
        auto scalar = [&](unsigned n) {
            if (!has(n, limit)) return fail_at(at, fmt::format("property '{}' runs past the end of its node's property list", p.type));
            return true;
        };
        switch (p.type) {
            case 'C':
                // A bool, or in binary 6.1 key lists a letter ('U', 's', 'n' ...): both kept.
                if (!scalar(1)) return false;
                p.text = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), 1);
                p.integer = int64_t(read(1) != 0);
                break;
            case 'Y': if (!scalar(2)) return false; p.integer = int16_t(read(2)); break;
            case 'I': if (!scalar(4)) return false; p.integer = int32_t(read(4)); break;
            case 'L': if (!scalar(8)) return false; p.integer = int64_t(read(8)); break;
            case 'F': {
                if (!scalar(4)) return false;
                const uint32_t b = uint32_t(read(4));
                float f;
                std::memcpy(&f, &b, 4);
                p.number = f;
                return true;
            }
            case 'D': {
                if (!scalar(8)) return false;
                const uint64_t b = read(8);
                std::memcpy(&p.number, &b, 8);
                return true;
            }
            case 'S': case 'R': {
                if (!scalar(4)) return false;
                const uint64_t n = read(4);
                if (!has(n, limit)) return fail_at(at, fmt::format("a {}-byte {} property runs past the end of its node's property list", n, p.type == 'S' ? "string" : "raw"));
                p.text = std::string_view(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
                pos_ += n;
                return true;
            }
            case 'f': case 'd': case 'i': case 'l': case 'b': case 'c': return array(p, at, limit);
            default: return fail_at(at, fmt::format("unknown property type 0x{:02x}", uint8_t(p.type)));
        }
        p.number = double(p.integer);
        return true;
    }

    bool array(Property& p, uint64_t at, uint64_t limit) {
        if (!has(12, limit)) return fail_at(at, fmt::format("array property '{}': its 12-byte header runs past the end of its node's property list", p.type));
        const uint64_t count = read(4), encoding = read(4), stored = read(4);
        const unsigned size = p.type == 'd' || p.type == 'l' ? 8 : p.type == 'b' || p.type == 'c' ? 1 : 4;
        if (!has(stored, limit)) return fail_at(at, fmt::format("array property '{}': {} stored bytes run past the end of its node's property list", p.type, stored));
        if (!budget_.add_array(count)) return fail_at(at, budget_.message(), ErrorCode::LimitExceeded);
        const uint64_t want = count * size;
        if (encoding == 1 && want >= UINT32_MAX) return fail_at(at, fmt::format("array property '{}' of {} elements: more than 4 GiB to inflate", p.type, count), ErrorCode::LimitExceeded);
        std::span<const uint8_t> raw = bytes_.subspan(pos_, stored);
        pos_ += stored;
        p.count = uint32_t(count);
        const bool native = size == 1 || big_ == (std::endian::native == std::endian::big);  // the file's byte order is the machine's
        if (encoding == 1) {
            // Deflate expands at most 1032:1: a larger claim is refused before any allocation.
            if (want / 1032 > stored + 1)
                return fail_at(at, fmt::format("array property '{}' of {} elements: {} zlib bytes cannot hold {} bytes", p.type, count, stored, want));
            // Inflated straight into the arena, in the width the file stores (docs/fbx.md §1.3).
            auto* out = static_cast<uint8_t*>(doc_->arena->allocate(std::max<uint64_t>(want, 1), 8));
            if (const char* why = inflate_exactly(raw, out, want))
                return fail_at(at, fmt::format("array property '{}' of {} elements: its {} zlib bytes do not inflate to exactly {} bytes ({})", p.type, count, stored, want, why));
            if (!native) swap_elements(out, count, size);
            p.data = out;
            return true;
        }
        if (encoding != 0)
            return fail_at(at + 5, fmt::format("array property '{}': encoding {} (0 = raw and 1 = zlib are defined)", p.type, encoding));
        if (stored != want)
            return fail_at(at, fmt::format("array property '{}': {} elements of {} bytes stored in {} bytes", p.type, count, size, stored));
        if (native) {  // no copy: the elements are read where the file holds them
            p.data = raw.data();
            return true;
        }
        auto* out = static_cast<uint8_t*>(doc_->arena->allocate(std::max<uint64_t>(want, 1), 8));
        if (want) std::memcpy(out, raw.data(), want);
        swap_elements(out, count, size);
        p.data = out;
        return true;
    }

    // Elements in the other byte order turned into the machine's, in place.
    static void swap_elements(uint8_t* data, uint64_t count, unsigned size) {
        for (uint64_t k = 0; k < count; ++k) std::reverse(data + k * size, data + (k + 1) * size);
    }

    // One zlib stream into exactly `want` bytes at `out`: null when it does, else why not. More
    // output than declared is refused when the buffer is full, so nothing past it is written or
    // allocated. One decompressor serves every array of the document.
    const char* inflate_exactly(std::span<const uint8_t> in, uint8_t* out, size_t want) {
        if (!inflater_) {
            inflater_.reset(libdeflate_alloc_decompressor());
            if (!inflater_) throw std::bad_alloc();  // turned into an error by the entry point's guard
        }
        static uint8_t none;  // an empty array still needs somewhere to point
        switch (libdeflate_zlib_decompress(inflater_.get(), in.data(), in.size(), want ? out : &none, want, nullptr)) {
            case LIBDEFLATE_SUCCESS: return nullptr;
            case LIBDEFLATE_SHORT_OUTPUT: return "fewer bytes";
            case LIBDEFLATE_INSUFFICIENT_SPACE: return "more bytes";
            default: return "broken zlib data or checksum";
        }
    }

    struct FreeInflater {
        void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
    };

    std::span<const uint8_t> bytes_;
    Budget budget_;
    uint32_t max_depth_;
    uint64_t pos_ = 0;
    bool big_ = false, wide_ = false;
    Error error_;
    std::unique_ptr<libdeflate_decompressor, FreeInflater> inflater_;  // made at the first deflated array
    // By depth: records read, not yet given to their parent. Each level has its own place, so it
    // stays where it is while deeper ones are added.
    std::vector<std::unique_ptr<std::vector<Node>>> levels_;
};

}  // namespace

bool is_binary(std::span<const uint8_t> bytes) {
    return bytes.size() >= binary_magic.size() && std::memcmp(bytes.data(), binary_magic.data(), binary_magic.size()) == 0;
}

Expected<Document> parse_binary(std::span<const uint8_t> bytes, const LoadOptions& options) { return BinaryParser(bytes, options).run(); }

}  // namespace rigport::fbx

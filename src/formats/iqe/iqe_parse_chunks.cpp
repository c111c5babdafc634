// IQE parse in parallel chunks: the text is cut at line breaks into chunks of a fixed size, each
// chunk's hot lines (vp vt vn vx vc vs vb, fm fa, pq pm pa) are read on the thread pool into its
// own arrays, and the chunks are joined into the one serial parser in file order (while later
// chunks are still being read), which reads every other line (mesh, joint, frame, v0..v9, fs ...)
// and any stretch a chunk could not read alone itself; so the Document, its warnings and the first
// error are those of a serial parse, for any thread count.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "support/thread_pool.hpp"
#include "formats/iqe/iqe_parser.hpp"

namespace rigport::iqe {

namespace {

constexpr size_t default_chunk_bytes = size_t(512) << 10;  // files of two chunks (1 MiB) or more are split
std::atomic<size_t> chunk_bytes_override{0};

size_t chunk_bytes() {
    const size_t b = chunk_bytes_override.load();
    return b > 0 ? b : default_chunk_bytes;
}

// The lines a chunk parser reads; every other line cuts its segment.
bool is_hot(std::string_view cmd) {
    if (cmd.size() != 2) return false;
    switch (cmd[0]) {
        case 'v': return cmd[1] == 'p' || cmd[1] == 't' || cmd[1] == 'n' || cmd[1] == 'x' || cmd[1] == 'c' || cmd[1] == 's' || cmd[1] == 'b';
        case 'f': return cmd[1] == 'm' || cmd[1] == 'a';
        case 'p': return cmd[1] == 'q' || cmd[1] == 'm' || cmd[1] == 'a';
        default: return false;
    }
}

// A line that refers to the line before it (a vertex attribute, fs): a chunk does not start there,
// or its first segment would belong to the previous chunk's last vertex or face.
bool continues_previous(std::string_view text, size_t p) {
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (text.size() - p < 2) return false;
    if (text.size() - p > 2 && !io::TextCursor::is_blank(text[p + 2]) && text[p + 2] != '\n') return false;
    return (text[p] == 'v' && text[p + 1] != 'p') || (text[p] == 'f' && text[p + 1] == 's');
}

// Where the chunk that should end near `nominal` ends: a line start that depends only on the text.
size_t chunk_end(std::string_view text, size_t nominal) {
    if (nominal >= text.size()) return text.size();
    size_t p = nominal;
    if (text[p - 1] != '\n') p = text.find('\n', p);
    for (;;) {
        if (p == std::string_view::npos) return text.size();
        if (text[p] == '\n') ++p;  // p was the end of the previous line
        if (p >= text.size()) return text.size();
        if (!continues_previous(text, p)) return p;
        p = text.find('\n', p);
    }
}

// Appends local[a, min(b, size)) to a per-vertex array whose next vertex is g (holes = missing,
// as Parser::set leaves them).
template <class T>
void append_values(std::vector<T>& global, const std::vector<T>& local, uint32_t g, uint32_t a, uint32_t b, const T& missing) {
    if (local.size() <= a) return;
    if (global.size() < g) global.resize(g, missing);
    global.insert(global.end(), local.begin() + a, local.begin() + std::min<size_t>(local.size(), b));
}

}  // namespace

void set_chunk_bytes_for_testing(size_t bytes) { chunk_bytes_override = bytes; }

namespace detail {

struct Parser::Chunk {
    size_t begin = 0, end = 0;  // in the file
    uint32_t line_base = 0;     // lines before the chunk
    std::unique_ptr<Parser> parser;
    std::vector<ChunkCut> cuts;  // the last one is the chunk's end
    size_t bad_segment = SIZE_MAX;
    uint32_t lines = 0;
    uint64_t last_line_offset = 0;
};

ChunkCut Parser::cut_segment() {
    ChunkCut c;
    c.offset = cur_.line_offset();
    c.line = cur_.line();
    c.vertices = uint32_t(positions_.size());
    c.influences = uint32_t(influences_.size());
    c.triangles = meshes_.empty() ? 0 : uint32_t(meshes_[0].triangles.size());
    c.poses = uint32_t(bind_poses_.size());
    c.bitangents = uint32_t(bitangents_.size());
    c.relative = segment_face_kind_ == 1;
    c.has_normals = doc_.has_normals, c.has_tangents = doc_.has_tangents, c.any_vs = any_vs_, c.any_face = any_face_;
    c.max_face_index = max_face_index_, c.max_face_line = max_face_line_, c.max_face_column = max_face_column_;
    c.max_vb_joint = max_vb_joint_, c.max_vb_line = max_vb_line_, c.max_vb_column = max_vb_column_;
    c.last_face_first = last_face_first_, c.last_face_corners = last_face_corners_;
    c.first_face_offset = segment_first_face_offset_;
    // The next segment starts afresh: its attributes need its own vp, its faces find their block.
    doc_.has_normals = doc_.has_tangents = any_vs_ = any_face_ = false;
    max_face_index_ = max_vb_joint_ = -1;
    segment_face_kind_ = -1;
    block_mesh_ = -1;
    segment_first_vertex_ = uint32_t(positions_.size());
    return c;
}

void Parser::parse_chunk(std::vector<ChunkCut>& cuts, size_t& bad_segment, uint32_t& lines, uint64_t& last_line_offset) {
    chunk_mode_ = true;
    while (cur_.next_line()) {
        if (cur_.line_text().size() >= 512) [[unlikely]] {
            bad_ = true;
            break;
        }
        std::string_view cmd = cur_.token();
        if (cmd.empty() || cmd[0] == '#') continue;
        if (!is_hot(cmd)) {
            cuts.push_back(cut_segment());
            continue;
        }
        if (auto e = command(cmd); e || bad_) [[unlikely]] {
            bad_ = true;
            break;
        }
    }
    if (bad_) {
        bad_segment = cuts.size();
        while (cur_.next_line()) {
        }  // only counting the lines
    }
    cuts.push_back(cut_segment());
    cuts.back().offset = text_.size();
    lines = cur_.line();
    last_line_offset = cur_.line_offset();
}

// The segment [from, to) of a chunk into this (the serial) parser, as its lines would have been
// read here; false, with nothing changed, when a limit or an index may fail: the serial parser
// then reads those lines and gives the error or warning at its place.
bool Parser::apply_segment(const Chunk& chunk, const ChunkCut& from, const ChunkCut& to) {
    const Parser& c = *chunk.parser;
    const uint64_t max = options_.max_elements;
    const uint32_t a = from.vertices, b = to.vertices, nv = b - a;
    const uint32_t ni = to.influences - from.influences, nt = to.triangles - from.triangles, np = to.poses - from.poses;
    const uint32_t g = uint32_t(positions_.size());
    const int64_t base = to.relative ? int64_t(fm_base_) : 0;
    if (nv > 0 && g + uint64_t(nv) > max) return false;
    if (ni > 0 && influences_.size() + uint64_t(ni) > max) return false;
    if (nt > 0 && (triangle_total_ + nt > max || base + to.max_face_index >= int64_t(UINT32_MAX))) return false;
    if (np > 0 && (pose_total_ + np > max || (!anims_.empty() && anims_.back().frames.empty() && frame_total_ >= max))) return false;

    positions_.insert(positions_.end(), c.positions_.begin() + a, c.positions_.begin() + b);
    has_.insert(has_.end(), c.has_.begin() + a, c.has_.begin() + b);
    const uint32_t i0 = uint32_t(influences_.size()) - from.influences;  // wraps back in the sum
    const size_t s0 = skin_offsets_.size();
    skin_offsets_.resize(s0 + nv);  // grows geometrically, as push_back does
    for (uint32_t v = a; v < b; ++v) skin_offsets_[s0 + (v - a)] = i0 + c.skin_offsets_[v + 1];
    influences_.insert(influences_.end(), c.influences_.begin() + from.influences, c.influences_.begin() + to.influences);
    append_values(texcoords_, c.texcoords_, g, a, b, Vec2{0, 0});
    append_values(normals_, c.normals_, g, a, b, Vec3{0, 0, 0});
    append_values(tangents_, c.tangents_, g, a, b, Vec4{0, 0, 0, 1});
    append_values(colors_, c.colors_, g, a, b, Vec4{0, 0, 0, 1});
    append_values(smooth_index_, c.smooth_index_, g, a, b, int32_t(0));
    for (uint32_t k = from.bitangents; k < to.bitangents; ++k)
        bitangents_.emplace_back(g + (c.bitangents_[k].first - a), c.bitangents_[k].second);
    doc_.has_normals |= to.has_normals;
    doc_.has_tangents |= to.has_tangents;
    any_vs_ |= to.any_vs;
    any_face_ |= to.any_face;
    if (to.max_vb_joint > max_vb_joint_)
        max_vb_joint_ = to.max_vb_joint, max_vb_line_ = chunk.line_base + to.max_vb_line, max_vb_column_ = to.max_vb_column;

    if (nt > 0) {
        const uint32_t m = block_mesh(chunk.begin + to.first_face_offset);
        OutMesh& mesh = meshes_[m];
        const uint32_t t0 = uint32_t(mesh.triangles.size());
        const auto& source = c.meshes_[0].triangles;
        const uint32_t offset = uint32_t(base);
        mesh.triangles.resize(t0 + nt);
        Triangle* out = mesh.triangles.data() + t0;
        for (uint32_t t = from.triangles; t < to.triangles; ++t)
            *out++ = Triangle{source[t][0] + offset, source[t][1] + offset, source[t][2] + offset};
        mesh.smoothing.insert(mesh.smoothing.end(), nt, smoothing_);
        triangle_total_ += nt;
        last_face_mesh_ = m;
        last_face_first_ = t0 + (to.last_face_first - from.triangles);
        last_face_corners_ = to.last_face_corners;
        last_face_valid_ = true;
        if (base + to.max_face_index > max_face_index_) {
            max_face_index_ = base + to.max_face_index;
            max_face_written_ = to.max_face_index;
            max_face_relative_ = to.relative;
            max_face_line_ = chunk.line_base + to.max_face_line;
            max_face_column_ = to.max_face_column;
        }
    }
    if (np > 0) {
        const auto first = c.bind_poses_.begin() + from.poses, last = c.bind_poses_.begin() + to.poses;
        if (anims_.empty()) {
            bind_poses_.insert(bind_poses_.end(), first, last);
        } else {
            auto& frames = anims_.back().frames;
            if (frames.empty()) {
                ++frame_total_;
                frames.emplace_back();
            }
            frames.back().poses.insert(frames.back().poses.end(), first, last);
        }
        pose_total_ += np;
    }
    return true;
}

// One chunk into this (the serial) parser, in file order: its segments joined, the lines between
// them and whatever it could not read alone read here.
std::optional<Error> Parser::join_chunk(Chunk& ch) {
    size_t segment_begin = ch.begin;
    uint32_t segment_line = ch.line_base;  // lines before the segment
    const ChunkCut start;
    for (size_t s = 0; s < ch.cuts.size(); ++s) {
        const ChunkCut& to = ch.cuts[s];
        if (s == ch.bad_segment) {  // from here on the chunk is the serial parser's
            cur_.seek(segment_begin, segment_line);
            return parse_lines(ch.end);
        }
        if (!apply_segment(ch, s > 0 ? ch.cuts[s - 1] : start, to)) {
            cur_.seek(segment_begin, segment_line);
            if (auto e = parse_lines(ch.begin + to.offset)) return e;
            if (comment_) return std::nullopt;
        }
        if (s + 1 == ch.cuts.size()) break;  // the chunk's end
        cur_.seek(ch.begin + to.offset, ch.line_base + to.line - 1);
        cur_.next_line();
        if (auto e = parse_line()) return e;
        if (comment_) return std::nullopt;  // the cursor stays on the comment line, as in a serial parse
        segment_begin = cur_.next_offset();
        segment_line = cur_.line();
    }
    return std::nullopt;
}

std::optional<Error> Parser::run_chunks(uint32_t threads) {
    const size_t first = cur_.next_offset(), bytes = chunk_bytes();
    if (threads == 1 || text_.size() - first < 2 * bytes) return parse_lines(text_.size());

    std::vector<Chunk> chunks;
    for (size_t begin = first; begin < text_.size();) {
        Chunk& ch = chunks.emplace_back();
        ch.begin = begin;
        ch.end = begin = chunk_end(text_, begin + bytes);
    }
    // Chunks are joined in file order by the calling thread, between the chunks it reads itself
    // and then after the last: the join overlaps the reading of later chunks, each chunk's arrays
    // are freed once joined, and the joined arrays grow in the caller's malloc arena, where the
    // later steps reuse the memory (grown on a worker, they raised the compile's peak RSS).
    const std::thread::id caller = std::this_thread::get_id();
    std::mutex mutex;
    std::vector<uint8_t> ready(chunks.size(), 0);
    size_t next_join = 0;
    std::atomic<bool> stop{false};  // an error or `comment`: later chunks are not needed
    std::optional<Error> error;
    uint32_t line_base = cur_.line();
    auto join = [&](Chunk& ch) {
        if (!stop.load()) {
            ch.line_base = line_base;
            error = join_chunk(ch);
            line_base += ch.lines;
            if (error || comment_) stop = true;
        }
        ch.parser.reset();
        ch.cuts = {};
    };
    ::rigport::detail::parallel_for(chunks.size(), 1, threads, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
            Chunk& ch = chunks[i];
            if (!stop.load()) {
                ch.parser = std::make_unique<Parser>(text_.substr(ch.begin, ch.end - ch.begin), options_);
                ch.parser->parse_chunk(ch.cuts, ch.bad_segment, ch.lines, ch.last_line_offset);
            }
            std::unique_lock lock(mutex);
            ready[i] = 1;
            if (std::this_thread::get_id() != caller) continue;
            while (next_join < chunks.size() && ready[next_join]) {
                Chunk& next = chunks[next_join++];
                lock.unlock();
                join(next);
                lock.lock();
            }
        }
    });
    while (next_join < chunks.size()) join(chunks[next_join++]);  // every chunk is read by now
    if (error) return error;
    if (comment_) return std::nullopt;
    // Where a serial parse leaves the cursor: on the last line (finish() places errors there).
    const Chunk& last = chunks.back();
    cur_.seek(last.begin + last.last_line_offset, line_base - 1);
    cur_.next_line();
    return std::nullopt;
}

}  // namespace detail

}  // namespace rigport::iqe

// SHA-256 through Nettle (docs/scale.md "The key" says why this one): a plain context on the
// object, no global or per-thread state to set up or free.
#include "support/sha256.hpp"

#include <nettle/sha2.h>

namespace rigport::support {

struct Sha256::State {
    sha256_ctx context;
};

Sha256::Sha256() : state_(std::make_unique<State>()) { sha256_init(&state_->context); }

Sha256::~Sha256() = default;

void Sha256::add(std::span<const uint8_t> bytes) {
    if (!bytes.empty()) sha256_update(&state_->context, bytes.size(), bytes.data());
}

void Sha256::add(std::string_view text) {
    if (!text.empty()) sha256_update(&state_->context, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
}

void Sha256::add_field(std::string_view text) {
    const std::string length = std::to_string(text.size()) + ":";
    add(length);
    add(text);
}

std::string Sha256::hex() {
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&state_->context, sizeof digest, digest);
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(sizeof digest * 2);
    for (uint8_t b : digest) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
    Sha256 h;
    h.add(bytes);
    return h.hex();
}

}  // namespace rigport::support

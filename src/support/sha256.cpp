// SHA-256 through OpenSSL's EVP interface (libcrypto; docs/scale.md "The key" says why this one).
#include "support/sha256.hpp"

#include <openssl/evp.h>

#include <new>

namespace rigport::support {

struct Sha256::State {
    EVP_MD_CTX* context = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
    state_->context = EVP_MD_CTX_new();
    if (!state_->context || EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
}

Sha256::~Sha256() { EVP_MD_CTX_free(state_->context); }

void Sha256::add(std::span<const uint8_t> bytes) {
    if (!bytes.empty()) EVP_DigestUpdate(state_->context, bytes.data(), bytes.size());
}

void Sha256::add(std::string_view text) {
    if (!text.empty()) EVP_DigestUpdate(state_->context, text.data(), text.size());
}

void Sha256::add_field(std::string_view text) {
    const std::string length = std::to_string(text.size()) + ":";
    add(length);
    add(text);
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(state_->context, digest, &size);
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (unsigned int i = 0; i < size; ++i) {
        out.push_back(digits[digest[i] >> 4]);
        out.push_back(digits[digest[i] & 15]);
    }
    return out;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
    Sha256 h;
    h.add(bytes);
    return h.hex();
}

}  // namespace rigport::support

// SHA-256 digests as lower-case hex, through Nettle (docs/scale.md "The key"): the
// cache's keys and its entries' check digests.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace rigport::support {

// Bytes fed in pieces; hex() ends it. One object per digest, on one thread.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void add(std::span<const uint8_t> bytes);
    void add(std::string_view text);
    // A piece with its length before it, so ("ab", "c") and ("a", "bc") differ.
    void add_field(std::string_view text);
    std::string hex();

private:
    struct State;
    std::unique_ptr<State> state_;
};

std::string sha256_hex(std::span<const uint8_t> bytes);

}  // namespace rigport::support

// How much an FBX node tree may make us allocate (docs/fbx.md §1.3): one array at most
// LoadOptions::max_elements elements, and the whole tree (nodes, values, decoded arrays) at most
// 32 bytes x max_elements (2 GiB by default), so a small hostile file cannot ask for more.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "formats/fbx/fbx_document.hpp"

namespace rigport::fbx {

class Budget {
public:
    explicit Budget(const LoadOptions& options) : max_elements_(options.max_elements), bytes_(options.max_elements > UINT64_MAX / 32 ? UINT64_MAX : options.max_elements * 32) {}

    bool add_node(uint64_t properties) {
        if (properties > max_elements_) return refuse(fmt::format("{} values in one node: more than {} (LoadOptions::max_elements)", properties, max_elements_));
        return take(sizeof(Node) + properties * sizeof(Property));
    }
    bool add_values(uint64_t n) { return take(n * sizeof(Property)); }
    bool add_array(uint64_t count) {
        if (count > max_elements_) return refuse(fmt::format("an array of {} elements: more than {} (LoadOptions::max_elements)", count, max_elements_));
        return take(count * 8);
    }
    const std::string& message() const { return message_; }

private:
    bool take(uint64_t n) {
        if (n > bytes_) return refuse(fmt::format("the file's nodes and arrays need more than {} bytes (32 x LoadOptions::max_elements)", max_elements_ * 32));
        bytes_ -= n;
        return true;
    }
    bool refuse(std::string m) {
        message_ = std::move(m);
        return false;
    }
    uint64_t max_elements_;
    uint64_t bytes_;
    std::string message_;
};

}  // namespace rigport::fbx

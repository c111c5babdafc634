// Validation: structural and semantic checks of a file, each a typed finding with a severity.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"

namespace rigport {

enum class Severity : uint8_t { Info, Warning, Error };
const char* to_string(Severity severity);

struct Finding {
    Severity severity = Severity::Info;
    std::string code;     // stable identifier, e.g. "adjacency.incomplete"
    std::string message;  // with the numbers: "706 of 8964 entries missing"
    std::optional<uint64_t> offset;
    uint64_t count = 1;
};

// Counts a format's checker measured over data the file stores, e.g. IQM's stored adjacency
// against a correct computation: "adjacency" {valid, wrong, missing, open}. `rigport validate`
// prints each as "<name>: <value> <key>, ..." and in JSON as {"<name>": {"<key>": value}}.
struct Tally {
    std::string name;
    std::vector<std::pair<std::string, uint64_t>> counts;  // in the order printed
};

struct ValidationReport {
    std::string path;
    std::string format;
    std::vector<Finding> findings;
    std::vector<Tally> tallies;
    std::vector<std::string> companions;  // files beside the model checked with it (validate_model)

    uint64_t count(Severity severity) const;
    // The count `key` of the tally `name`, when the checker measured it.
    std::optional<uint64_t> tally(std::string_view name, std::string_view key) const;
    void add(Severity severity, std::string code, std::string message, std::optional<uint64_t> offset = {},
             uint64_t count = 1);
};

// Reads and checks the file. A file that cannot be read at all gives a report with one Error
// finding (not an Error return); the Error return is for I/O failures.
Expected<ValidationReport> validate_file(const std::string& path, const LoadOptions& options = {});
ValidationReport validate_bytes(std::span<const uint8_t> bytes, const std::string& path,
                                const LoadOptions& options = {});

// Format-independent checks of a loaded scene (weights, quaternions, winding, parent order ...).
void validate_scene(const Scene& scene, ValidationReport& report);

}  // namespace rigport

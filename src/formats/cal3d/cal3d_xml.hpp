// Cal3D XML reading helpers over pugixml: both header forms, any letter case, junk text (docs/cal3d.md §3.1).
#pragma once

#include <pugixml.hpp>

#include <span>
#include <string>
#include <string_view>

#include "formats/cal3d/cal3d.hpp"

namespace rigport::cal3d::xml {

// The document and its body element (SKELETON, MESH ...), after the header check.
struct Document {
    pugi::xml_document doc;
    pugi::xml_node body;
    int32_t version = 0;
    bool header_form = false;
    std::span<const uint8_t> bytes;
    std::string buffer;  // the text pugixml parsed (a copy, fixed up for unquoted attributes)
};

// Parses as a fragment (the HEADER form has two top-level elements), fixing unquoted attribute
// values and warning about them and about junk text between elements. Elements nested deeper
// than max_depth (LoadOptions::max_depth) are a LimitExceeded error at the first such element.
std::optional<Error> parse(std::span<const uint8_t> bytes, FileType type, Document& out, Warnings& warnings, uint32_t max_depth);

bool is(pugi::xml_node node, std::string_view name);  // element name, any case
pugi::xml_node child(pugi::xml_node node, std::string_view name);
pugi::xml_node next(pugi::xml_node node, std::string_view name);  // next sibling of that name
const char* attribute(pugi::xml_node node, std::string_view name);  // any case; nullptr if absent

// An error at a node: line:col and byte offset of the element, and its path (SKELETON/BONE[3]/ROTATION).
Error error_at(const Document& d, pugi::xml_node node, std::string message);

// Whitespace-separated numbers; false when fewer than n parse. Non-finite values become 0
// (as IM does) and set non_finite.
bool floats(const char* text, float* out, int n, bool& non_finite);
bool integer(const char* text, int32_t& out);

// Readers' conveniences: required attribute / element text as numbers, errors at the node.
std::optional<Error> int_attribute(const Document& d, pugi::xml_node node, std::string_view name, int32_t& out,
                                   bool required = true);
std::optional<Error> float_attribute(const Document& d, pugi::xml_node node, std::string_view name, float& out,
                                     Warnings& warnings);
std::optional<Error> element_floats(const Document& d, pugi::xml_node parent, std::string_view name, float* out, int n,
                                    Warnings& warnings, bool required = true, bool* found = nullptr);

}  // namespace rigport::cal3d::xml

// Confinement of the files a model names (a buffer, an image, a .cfg member): resolved through
// '..' and symbolic links, they must lie in the model's folder or below (LoadOptions::root).
#pragma once

#include <string>
#include <vector>

#include "rigport/error.hpp"

namespace rigport::detail {

// The folder a model's references are confined to: root when set, else the folder of model_path
// ("." for a bare file name).
std::string confinement_root(const std::string& model_path, const std::string& root);

// target (a path already joined to the folder it is relative to) resolved: made absolute, '..'
// removed and the symbolic links of its existing part followed (std::filesystem::weakly_canonical).
// When the result is not root (resolved the same way) or below it, component by component, a
// ReadFailed error without path whose message says what `target` resolves to and that it was
// refused; allow_outside skips the check (the path is still resolved).
Expected<std::string> confine(const std::string& target, const std::string& root, bool allow_outside);
// The same with several roots: target may lie in or below any of them (a texture: the model's
// folder and each LoadOptions texture path, docs/cli.md "Textures"). One root gives the message
// above; several are all named.
Expected<std::string> confine(const std::string& target, const std::vector<std::string>& roots, bool allow_outside);

}  // namespace rigport::detail

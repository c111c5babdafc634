// Shared pieces of the Python module rigport (pybind11): the scene classes and the error type.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "rigport/error.hpp"
#include "rigport/scene.hpp"

namespace rigport::python {

namespace py = pybind11;

// A loaded scene as Python sees it. Arrays handed out view the scene's vectors and own a
// reference to it, so the scene lives as long as any of them does.
struct SceneRef {
    std::shared_ptr<Scene> scene;
};

// Registers Scene, Mesh, Skeleton, Animation and Track (scene_view.cpp).
void bind_scene(py::module_& m);

// Creates rigport.Error (a subclass of Exception) in m.
void bind_error(py::module_& m);
// Raises rigport.Error for e: str() is Error::to_string() (what the CLI prints after "Error: "),
// with .code, .path, .offset, .line and .column (None when absent). Needs the GIL.
[[noreturn]] void raise_error(const Error& e);

}  // namespace rigport::python

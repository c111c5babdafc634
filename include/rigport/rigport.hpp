// Umbrella header: the whole public API.
#pragma once

#include "rigport/anim.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/compile.hpp"
#include "rigport/convert.hpp"
#include "rigport/error.hpp"
#include "rigport/formats.hpp"
#include "rigport/images.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/process.hpp"
#include "rigport/render.hpp"
#include "rigport/report.hpp"
#include "rigport/sample.hpp"
#include "rigport/scene.hpp"
#include "rigport/validate.hpp"
#include "rigport/version.hpp"

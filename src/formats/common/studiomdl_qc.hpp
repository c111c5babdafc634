// The studiomdl .qc lines a model read from a compiled studio model keeps for the .qc an SMD
// writer makes (docs/hlmdl.md "Kept for the .qc", docs/smd.md "The .qc the writer writes"):
// the extension's name and how its lengths scale live with the scene's transforms.
#pragma once

#include "process/studiomdl_qc.hpp"

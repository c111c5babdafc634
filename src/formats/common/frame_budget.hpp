// The frame-based writers' common guard (IQM, IQE): they sample every keyed animation into
// frames of every joint, and a few keys at huge times (a 37 KB .caf) would otherwise sample
// millions of frames and run out of memory. Refused before any frame is sampled.
#pragma once

#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::detail {

// Ok, or a LimitExceeded error naming the animation at which the sampled frames in all pass
// LoadOptions::max_frames (a reader would refuse the file) or frames x joints pass
// options.max_poses. `format` names the writer in the message.
Status check_frame_budget(const Scene& scene, const SaveOptions& options, const char* format);

}  // namespace rigport::detail

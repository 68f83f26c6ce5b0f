// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/studio_model.h"

namespace passlab::views {

void StudioModel::select(const std::vector<std::uint32_t>& ids, const QObject* origin) {
  selection_ = ids;
  emit selection_changed(selection_, origin);
}

void StudioModel::set_target(const partition::TargetDesc& t, bool edited) {
  target_ = t;
  target_edited_ = edited;
  emit target_changed(target_, edited);
}

void StudioModel::set_frame(const TraceFrame& f) {
  frame_ = f;
  emit frame_changed(frame_);
}

}  // namespace passlab::views

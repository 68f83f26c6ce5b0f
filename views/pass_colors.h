// SPDX-License-Identifier: GPL-3.0-or-later
// The colours passes are drawn in, shared by every view so pass 3 is the same colour everywhere.
#pragma once

#include <QColor>

namespace passlab::views {

inline QColor pass_color(int pass, bool dark) {
  static const QColor light[] = {{141, 211, 199}, {255, 255, 179}, {190, 186, 218}, {251, 128, 114},
                                 {128, 177, 211}, {253, 180, 98},  {179, 222, 105}, {252, 205, 229},
                                 {188, 128, 189}, {204, 235, 197}, {255, 237, 111}, {217, 217, 217}};
  QColor c = light[pass % 12];
  return dark ? c.darker(170) : c;
}

}  // namespace passlab::views

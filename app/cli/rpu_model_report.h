// SPDX-License-Identifier: GPL-3.0-or-later
// The machine model's figures as `rpu render --model` prints them: JSON and text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/rpu/machine_model.h"

namespace passlab::cli {

nlohmann::ordered_json model_json(const rpu::ModelStats& s);
std::string model_text(const rpu::ModelStats& s);
// One line per number of chunks in flight: cycles, utilisation, trace-unit occupancy, stalls.
std::string sweep_text(const std::vector<rpu::ModelStats>& sweep);

}  // namespace passlab::cli

// Renderers for an occupancy result: text (a table of the four limits, the
// limiter and the next step up, for people) and JSON (one object, stable key
// names, for tools). They turn results into bytes and never print.
#pragma once

#include <optional>
#include <string>

#include "tileplan/device.hpp"
#include "tileplan/occupancy.hpp"

namespace tileplan::render {

struct OccupancyReport {
  const Device* device = nullptr;
  OccupancyInput input;
  Occupancy result;
  std::optional<NextStep> next;
  CarveoutChoice min_carveout;
};

// Computes every part of the report.
//   Requires: check_occupancy_input(dev, in) returns nothing; `dev` outlives the report.
OccupancyReport make_occupancy_report(const Device& dev, const OccupancyInput& in);

std::string occupancy_text(const OccupancyReport& r);
std::string occupancy_json(const OccupancyReport& r);

}  // namespace tileplan::render

// Renderers for an occupancy result: text (a table of the four limits, the
// limiter and the next step up, for people) and JSON (one object, stable key
// names, for tools). They turn results into bytes and never print.
#pragma once

#include <optional>
#include <string>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/occupancy.hpp"

namespace tileplan::render {

struct OccupancyReport {
  const Device* device = nullptr;
  OccupancyInput input;
  Occupancy result;
  std::optional<NextStep> next;
  CarveoutChoice min_carveout;
};

// Computes every part of the report; `dev` must outlive it.
// Error: as occupancy() (a launch check_occupancy_input refuses still gets a
//   report: 0 blocks per SM and the reason).
Result<OccupancyReport> make_occupancy_report(const Device& dev, const OccupancyInput& in);

// Requires: `r` from make_occupancy_report, its device alive.
std::string occupancy_text(const OccupancyReport& r);
std::string occupancy_json(const OccupancyReport& r);

}  // namespace tileplan::render

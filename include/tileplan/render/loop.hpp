// Renderers for loop partitions: text (for people), JSON (stable keys for
// tools), SVG (the nest as a grid coloured by thread). Bytes out, never printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/loop.hpp"

namespace tileplan::render {

// Text lists every point up to this many points; JSON holds the per-point map
// up to kJsonPointsLimit. --points lifts both.
inline constexpr int64_t kTextPointsLimit = 256;
inline constexpr int64_t kJsonPointsLimit = 65536;
// The SVG draws at most this many cells a side; beyond, it groups lanes or
// shows the top-left corner.
inline constexpr int64_t kSvgCellsPerSide = 64;

struct LoopReport {
  const Device* device = nullptr;
  LoopNest nest;
  LoopSummary summary;
  std::optional<VectorChoice> vector_choice;  // --vector auto
  std::string dtype;                          // the element type's name
  Access access;
  MemoryReport memory;     // analysed with listing when points are listed
  bool list_points = false;  // --points
};

// True when the report lists every point (and every memory instruction) in `format`.
bool lists_points(const LoopReport& r, std::string_view format);

std::string loop_text(const LoopReport& r);
std::string loop_json(const LoopReport& r);
std::string loop_svg(const LoopReport& r);

struct CompareReport {
  int64_t threads = 8;
  int64_t vector = 2;
  std::vector<ShapeComparison> rows;
};
std::string compare_text(const CompareReport& r);
std::string compare_json(const CompareReport& r);

}  // namespace tileplan::render

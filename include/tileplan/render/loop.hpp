// Renderers for loop partitions: text (for people), JSON (stable keys for
// tools), SVG (the nest as a grid coloured by thread). Bytes out, never printed.
// Text and JSON can list every point; they hand their bytes to a sink piece
// by piece, so a listing of any length takes little memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/loop.hpp"

namespace tileplan::render {

// Text lists every point up to this many points; JSON holds the per-point map
// up to kJsonPointsLimit. list_points lifts both, up to kMaxListedPoints
// (thread, point) pairs: points times replicas, for the threads' listing
// repeats a replicated point once per replica.
inline constexpr int64_t kTextPointsLimit = 256;
inline constexpr int64_t kJsonPointsLimit = 65536;
inline constexpr int64_t kMaxListedPoints = int64_t{1} << 24;
// The SVG draws at most this many cells a side; beyond, it groups lanes or
// shows the top-left corner.
inline constexpr int64_t kSvgCellsPerSide = 64;

enum class LoopFormat { text, json, svg };

struct LoopReport {
  const Device* device = nullptr;
  LoopPlan plan;
  LoopSummary summary;
  std::optional<VectorChoice> vector_choice;  // --vector auto
  std::string dtype;                          // the element type's name
  Access access;
  MemoryReport memory;       // analysed round by round when the points are listed
  bool list_points = false;  // every point at any size (up to kMaxListedPoints)
};

struct LoopReportOptions {
  std::string dtype;                          // the element type's name, for the captions
  std::optional<VectorChoice> vector_choice;  // how the plan's vector was chosen, if it was
  bool list_points = false;
  LoopFormat format = LoopFormat::text;       // the listing and the analysis depend on it
};
// Computes the summary and the memory analysis; `dev` must outlive the report.
// Error: analyze_memory(plan, access, dev)'s; list_points with more than
//   kMaxListedPoints points times replicas (param list_points).
Result<LoopReport> make_loop_report(const Device& dev, const LoopPlan& plan, const Access& access,
                                    LoopReportOptions options);

// True when the report lists every point (and, in JSON, every memory
// instruction) in `format`: list_points, or few enough points for the format's
// limit above; never when the listing's memory analysis of every round would
// pass kMaxEveryRoundAccesses thread accesses.
bool lists_points(const LoopReport& r, LoopFormat format);

// Receives the output in order, in pieces of about 64 KB.
using Sink = std::function<void(std::string_view)>;

// Requires (all renderers): `r` from make_loop_report, its device alive.
void loop_text(const LoopReport& r, const Sink& sink);
void loop_json(const LoopReport& r, const Sink& sink);
std::string loop_text(const LoopReport& r);  // the whole output as one string
std::string loop_json(const LoopReport& r);
std::string loop_svg(const LoopReport& r);   // at most kSvgCellsPerSide^2 cells: bounded

struct CompareReport {
  int64_t threads = 8;
  int64_t vector = 2;
  std::vector<ShapeComparison> rows;
};
std::string compare_text(const CompareReport& r);
std::string compare_json(const CompareReport& r);

}  // namespace tileplan::render

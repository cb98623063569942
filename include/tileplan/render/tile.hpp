// Renderers for tile-decision results: text (a table for people), JSON (one
// object, stable key names for tools), CSV, and JSON Lines for batches.
// They turn results into bytes and never print.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"

namespace tileplan::render {

struct TileReport {
  const Device* device = nullptr;
  GemmProblem problem;
  Instr instr = Instr::wgmma;
  Model model = Model::seed;
  std::string family = "triton";   // the calibrated model's kernel family (the seed model's is "seed")
  int64_t group_m = 8;             // the family's grouped program order (emit)
  bool diagnose = false;
  std::size_t space_size = 0;      // configurations in the search space
  std::size_t feasible_count = 0;  // of those, feasible for this problem
  std::size_t c1_c3_count = 0;     // sweep: of those, passing C1-C3 whatever the problem's K
  bool stages_inert = false;       // sweep: stages_have_no_effect (one configuration per tile)
  // Calibrated model: the space its family was measured and fitted on; a
  // candidate outside it is marked extrapolated (JSON in_measured_space).
  std::optional<SearchSpace> measured_space;
  std::vector<Verdict> candidates; // ranked (sweep) or the one diagnosed
  bool split_space = false;        // the space holds split_k > 1: show the split column, emit SPLIT_K
  int64_t min_split_k = 1;         // sweep: the space's smallest split factor
  std::optional<SplitAdvice> split_advice;  // diagnose: whether splitting K pays for the tile
  std::optional<PaddingAdvice> padding;     // calibrated: what rounding M, N, K or the leading dimensions up buys
  // Calibrated: the family's held-out scores (KernelFamily::validation), where
  // the device is that record's preset as shipped (no field overridden); the
  // renderers report the problem's class from them (validation_for), unless
  // the space splits K (the scores are of unsplit picks).
  const FamilyValidation* validation = nullptr;
  // The device as JSON, rendered once by device_json() when many reports
  // share one device (batch mode); nothing = render it each time.
  const std::string* device_json = nullptr;
};

std::string tile_text(const TileReport& r);
std::string tile_json(const TileReport& r);
std::string tile_csv(const TileReport& r);
// One line of JSON (no trailing newline) in the tile_json schema, appended to out.
void append_tile_json_line(const TileReport& r, std::string& out);
// Batch mode (--shapes) for people and spreadsheets: one row per shape and
// rank (the report's candidates, best first). The header once (from any
// report of the batch: the device, model and family), the rows per shape,
// the footer once with what the CLI summed over the batch.
struct PlanTotals {
  std::size_t shapes = 0;   // lines of the shapes file
  std::size_t planned = 0;  // of those, with at least one feasible configuration
  double pick_us = 0;       // calibrated model: the first picks' predicted times, summed
  double flops = 0;         // 2*M*N*K of the shapes in pick_us, summed
};
std::string plan_text_header(const TileReport& r);
void append_plan_text_rows(const TileReport& r, std::string& out);
std::string plan_text_footer(const PlanTotals& t);
std::string plan_csv_header();
void append_plan_csv_rows(const TileReport& r, std::string& out);

// Why a sweep has no candidate, on one line (no newline): the report's
// c1_c3_count, min_split_k and problem say which rule left none.
std::string no_candidate_reason(const TileReport& r);

// What a padding option changes, e.g. "N 11001->11008, ldb 11001->11008".
std::string padding_summary(const GemmProblem& given, const PaddingOption& o);

// The problem's element types, e.g. "float8_e4m3 in, float16 out".
std::string types_summary(const GemmProblem& p);
// The problem's layouts and leading dimensions when any differs from the
// default (both row, packed), e.g. "A=col B=row lda=4112"; empty otherwise.
std::string layout_summary(const GemmProblem& p);
// The flags that reproduce the problem's types, layouts and leading
// dimensions where they are not the defaults, each after a space
// (" --dtype bfloat16 --a-layout col"); empty for a default problem.
std::string problem_flags(const GemmProblem& p);

// The `device` object of the JSON schema.
std::string device_json(const Device& d);

// JSON string escaping (RFC 8259) shared by the JSON renderers.
void append_json_string(std::string& out, std::string_view s);
// A JSON number; null for NaN and the infinities, which JSON cannot hold.
void append_json_number(std::string& out, double v);

}  // namespace tileplan::render

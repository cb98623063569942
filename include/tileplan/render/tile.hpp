// Renderers for tile-decision results: text (a table for people), JSON (one
// object, stable key names for tools), CSV, and JSON Lines for batches.
// They turn results into bytes and never print.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/gemm.hpp"

namespace tileplan::render {

struct TileReport {
  const Device* device = nullptr;
  GemmProblem problem;
  Instr instr = Instr::wgmma;
  Model model = Model::seed;
  Family family = Family::triton;  // the calibrated model's kernel family
  bool diagnose = false;
  std::size_t space_size = 0;      // configurations in the search space
  std::size_t feasible_count = 0;  // of those, feasible for this problem
  std::vector<Verdict> candidates; // ranked (sweep) or the one diagnosed
  // The device as JSON, rendered once by device_json() when many reports
  // share one device (batch mode); nothing = render it each time.
  const std::string* device_json = nullptr;
};

std::string tile_text(const TileReport& r);
std::string tile_json(const TileReport& r);
std::string tile_csv(const TileReport& r);
// One line of JSON (no trailing newline) in the tile_json schema, appended to out.
void append_tile_json_line(const TileReport& r, std::string& out);

// The `device` object of the JSON schema.
std::string device_json(const Device& d);

// JSON string escaping (RFC 8259) shared by the JSON renderers.
void append_json_string(std::string& out, std::string_view s);

}  // namespace tileplan::render

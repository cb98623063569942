// The shortlist as code for a user's autotuner: Triton's @triton.autotune
// configs, or TileLang's autotuner's list of dicts. Paste-ready text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tileplan/render/tile.hpp"

namespace tileplan::render {

enum class Emit { triton, tilelang };
std::string_view to_string(Emit e);
std::optional<Emit> parse_emit(std::string_view s);

// Triton: one line per candidate,
//   triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),
// with num_warps = threads / warp size and GROUP_M the family's grouped order.
// TileLang: a Python list of dicts with block_M, block_N, block_K, num_stages, threads.
// Each line ends in a comment with the rank and the predicted time (if any).
std::string emit(const TileReport& r, Emit e);

}  // namespace tileplan::render

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
// TileLang: a Python list of dicts with block_M, block_N, block_K, num_stages,
// threads and the problem's types in TileLang's names: in_dtype (A and B:
// "float16", "bfloat16", "float8_e4m3", "float8_e5m2", or "float32" for tf32
// operands), out_dtype (C) and accum_dtype ("float32").
// Both start with a comment naming the problem (its types; its layouts and
// leading dimensions when not the defaults), the device and the model, then
// one comment per problem warning (problem_findings). Each line ends in a
// comment with the rank and the predicted time (if any).
std::string emit(const TileReport& r, Emit e);

}  // namespace tileplan::render

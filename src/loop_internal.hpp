// The loop plan's arithmetic without the checks of its public entry points,
// for the library's own loops (the memory analysis, the renderers) over
// positions they have already bounded. Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "tileplan/error.hpp"

#include "tileplan/loop_memory.hpp"
#include "tileplan/loop_plan.hpp"

namespace tileplan {

// "1,2,3", for messages.
std::string list_text(std::span<const int64_t> v);

// An Error about the library parameter `param`; `message` starts with it.
inline Error loop_error(std::string_view param, std::string message, ErrorKind kind = ErrorKind::invalid_argument) {
  return Error{kind, std::string(param), std::move(message)};
}

// ceil(a / b) for a >= 0, b >= 1, without forming a + b.
inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

// flat -> (thread, slot).  Requires: 0 <= flat < plan.points().
ThreadSlot place_flat_unchecked(const LoopPlan& plan, int64_t flat);
// flat -> (i0, ..., i_{k-1}).  Requires: 0 <= flat < plan.points(), out.size() == plan.depth().
void unflatten_unchecked(const LoopPlan& plan, int64_t flat, std::span<int64_t> out);
// Requires: warp_size >= 1.
LoopSummary summarize_unchecked(const LoopPlan& plan, int64_t warp_size);

// for_each_instruction without its checks.
// Requires: for_each_instruction(plan, access, dev, ...) would return ok.
void for_each_instruction_unchecked(const LoopPlan& plan, const Access& access, const Device& dev,
                                    const std::function<void(const WarpAccess&)>& visit);

}  // namespace tileplan

// A TileLang `T.Parallel(e0, e1, ...)` nest: the partition plan
// (tileplan/loop_plan.hpp) and what it does to memory (tileplan/loop_memory.hpp).
#pragma once

#include "tileplan/loop_memory.hpp"
#include "tileplan/loop_plan.hpp"

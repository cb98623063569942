// tileplan_fit: fits a kernel family's constants to measured datasets,
// prints them with per-shape figures and writes the family as a file
// (tileplan/family.hpp's format) that `tileplan --family-file` loads and
// data/families/ ships.
//
//   tileplan_fit --registers DATASET...   register profile, on every compiled configuration
//   tileplan_fit --spill-rule DATASET...  the spill rule alone (spill_per_element, spill_reserve), on the
//                                         compiled configurations' spill flags
//   tileplan_fit --epilogue-rule DATASET... the epilogue rule alone (per_narrow_c_accumulator,
//                                         per_narrow_c_row, per_narrow_c_row_accumulator), on the
//                                         compiled configurations with narrow stores of C
//   tileplan_fit --time DATASET...        run-time constants, on calibration shapes only
//   common options: --family NAME | --family-file PATH  the family to start from (triton)
//                   --device NAME                       the preset the data were measured on (the family's)
//                   --name NAME                         the written family's name (the starting one's)
//                   --output FILE                       write the fitted family there
//
// The run-time fit never reads held-out shapes (split.json `held_out`), and
// keeps every fourth calibration shape (in split.json's order) aside as a
// check that it reports but does not fit on. A dataset without split.json
// contributes all its shapes that no other dataset holds out (marked * in the
// listing). `--set NAME=VALUE` starts a constant at VALUE (with `--fix NAME`,
// holds it there). It uses the library's own
// equations (src/detail.hpp, behind tileplan/model.hpp), so the tool and the
// fit cannot diverge.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <charconv>
#include <fstream>

#include "detail.hpp"
#include "tileplan/constraints.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/occupancy.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/validate.hpp"

namespace tileplan {
namespace {

// ---- Nelder-Mead on a vector of doubles ---------------------------------------------

template <std::size_t N>
using Vec = std::array<double, N>;

template <std::size_t N>
Vec<N> nelder_mead(const std::function<double(const Vec<N>&)>& f, Vec<N> x0, double step, int iterations,
                   double* best_value) {
  std::array<Vec<N>, N + 1> pts;
  std::array<double, N + 1> val;
  pts[0] = x0;
  for (std::size_t i = 0; i < N; ++i) {
    pts[i + 1] = x0;
    pts[i + 1][i] += step;
  }
  for (std::size_t i = 0; i <= N; ++i) val[i] = f(pts[i]);
  std::array<std::size_t, N + 1> order;
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t i = 0; i <= N; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return val[a] < val[b]; });
    const std::size_t worst = order[N], second = order[N - 1], best = order[0];
    Vec<N> centre{};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t d = 0; d < N; ++d) centre[d] += pts[order[i]][d] / static_cast<double>(N);
    auto along = [&](double t) {
      Vec<N> x;
      for (std::size_t d = 0; d < N; ++d) x[d] = centre[d] + t * (pts[worst][d] - centre[d]);
      return x;
    };
    const Vec<N> xr = along(-1.0);
    const double fr = f(xr);
    if (fr < val[best]) {
      const Vec<N> xe = along(-2.0);
      const double fe = f(xe);
      if (fe < fr) pts[worst] = xe, val[worst] = fe;
      else pts[worst] = xr, val[worst] = fr;
    } else if (fr < val[second]) {
      pts[worst] = xr, val[worst] = fr;
    } else {
      const Vec<N> xc = along(0.5);
      const double fc = f(xc);
      if (fc < val[worst]) {
        pts[worst] = xc, val[worst] = fc;
      } else {
        for (std::size_t i = 0; i <= N; ++i) {
          if (i == best) continue;
          for (std::size_t d = 0; d < N; ++d) pts[i][d] = pts[best][d] + 0.5 * (pts[i][d] - pts[best][d]);
          val[i] = f(pts[i]);
        }
      }
    }
  }
  const std::size_t b = static_cast<std::size_t>(std::min_element(val.begin(), val.end()) - val.begin());
  if (best_value) *best_value = val[b];
  return pts[b];
}

// ---- classes and input types ---------------------------------------------------------------

// A packed problem of a configuration's class ("dtype:LL:FFF", see
// problem_class): what the compiler was specialized on when it allocated the
// configuration's registers and shared memory; float16 for a dataset of one class.
GemmProblem class_problem(const std::string& klass) {
  GemmProblem p{256, 256, 256};
  if (klass.empty()) return p;
  const std::size_t c1 = klass.find(':'), c2 = klass.rfind(':');
  if (c1 == std::string::npos || c2 == c1 || klass.size() != c2 + 4 || c2 != c1 + 3) return p;
  if (const std::optional<DType> t = parse_dtype(klass.substr(0, c1))) p.dtype = *t;
  p.a_layout = klass[c1 + 1] == 'c' ? Layout::col : Layout::row;
  p.b_layout = klass[c1 + 2] == 'c' ? Layout::col : Layout::row;
  int64_t* dims[] = {&p.m, &p.n, &p.k};
  for (int i = 0; i < 3; ++i) *dims[i] = (klass[c2 + 1 + static_cast<std::size_t>(i)] >= 'a') ? 264 : 256;
  return p;
}

DType class_dtype(const std::string& klass) { return class_problem(klass).dtype; }

// ---- registers ---------------------------------------------------------------------------

// The type's override section of `fam`, added empty when it has none.
std::vector<TypeConstants>::iterator overrides_of(KernelFamily& fam, DType type) {
  auto it = std::find_if(fam.by_input_type.begin(), fam.by_input_type.end(),
                         [&](const TypeConstants& c) { return c.dtype == type; });
  if (it == fam.by_input_type.end()) it = fam.by_input_type.insert(fam.by_input_type.end(), TypeConstants{type, {}, {}, {}, {}, {}});
  return it;
}

struct RegisterFigures {
  std::size_t compiled = 0, blocks_equal = 0, within_16 = 0, spill_equal = 0;
  double mean_abs = 0;
  // Over the configurations the compiler or the estimate spills: the mean
  // |log((estimated + g) / (the compiler's + g))| of the registers spilled
  // (the epilogue's excess or the held tiles'), g the per-thread allocation
  // granule (reg_alloc_unit / warp_size, 8 registers): a ratio, so that the
  // few tiles that spill hundreds do not outweigh the many near the limit.
  std::size_t spilling = 0;
  double spill_log_error = 0;
};

// The instruction whose configurations a register fit reads (--instr): each
// dataset configuration's is the one tl.dot picked (read_configs). wgmma: the
// family's own profile; mma: its by_instr override.
Instr g_fit_instr = Instr::wgmma;
bool fits(const MeasuredConfig& c) { return (c.config.instr == Instr::mma) == (g_fit_instr == Instr::mma); }

// `narrow_c_only`: only the configurations whose C is stored with narrow stores.
RegisterFigures register_figures(const Device& dev, const RegisterProfile& prof, const Dataset& d, DType type,
                                 bool narrow_c_only = false) {
  RegisterFigures f;
  for (const MeasuredConfig& c : d.configs) {
    if (!c.compiled || class_dtype(c.klass) != type || !fits(c)) continue;
    const GemmProblem p = class_problem(c.klass);
    if (narrow_c_only && problem_access(p).c.vector_bytes >= kMaxVectorBytes) continue;
    ++f.compiled;
    const RegisterEstimate r = detail::estimate_registers(prof, dev, c.config, p);
    const Result<Occupancy> o = occupancy(dev, {c.config.threads, r.regs_per_thread, 0, c.smem_bytes, std::nullopt});
    if (!o.ok()) continue;  // a dataset row outside the occupancy rules' domain: not comparable
    f.blocks_equal += o->blocks_per_sm == c.blocks_per_sm;
    f.within_16 += std::llabs(r.regs_per_thread - c.regs_per_thread) <= 16;
    f.spill_equal += (r.spills || r.epilogue_spilled > 0) == (c.spills > 0);  // the compiler counts either
    f.mean_abs += static_cast<double>(std::llabs(r.regs_per_thread - c.regs_per_thread));
    const double est = std::max(r.epilogue_spilled, r.spills ? r.spilled_registers : 0.0);
    if (c.spills > 0 || est > 0) {
      const double g = static_cast<double>(dev.reg_alloc_unit) / static_cast<double>(dev.warp_size);
      ++f.spilling;
      f.spill_log_error += std::abs(std::log((est + g) / (static_cast<double>(c.spills) + g)));
    }
  }
  f.mean_abs /= static_cast<double>(std::max<std::size_t>(f.compiled, 1));
  f.spill_log_error /= static_cast<double>(std::max<std::size_t>(f.spilling, 1));
  return f;
}

// Least squares for base + per_accumulator*acc + per_a*a + per_b*b
// (+ per_register_element*narrow when the data hold narrow loads) on the
// configurations of one input type that neither spill nor sit at the 255 ceiling.
constexpr int kLs = 5;
// Least squares over the compiled configurations of `type` that do not spill
// and stay below the register ceiling; nullopt when they do not determine
// the constants (fewer configurations than unknowns, or too alike).
std::optional<std::array<double, kLs>> least_squares(const Device& dev, const std::vector<Dataset>& sets, DType type,
                                                     bool narrow, std::size_t* used) {
  const int n = narrow ? 5 : 4;
  double ata[kLs][kLs + 1] = {};
  *used = 0;
  for (const Dataset& d : sets)
    for (const MeasuredConfig& c : d.configs) {
      if (!c.compiled || c.spills > 0 || c.regs_per_thread >= dev.regs_per_thread_max) continue;
      if (class_dtype(c.klass) != type || !fits(c)) continue;
      const GemmProblem p = class_problem(c.klass);
      const ProblemAccess acc = problem_access(p);
      const TileConfig& t = c.config;
      const double th = static_cast<double>(t.threads), e = static_cast<double>(p.elem_bytes());
      const double x[kLs] = {1.0, std::ceil(static_cast<double>(t.block_m * t.block_n) / th),
                             static_cast<double>(t.block_m * t.block_k) * e / 16.0 / th,
                             static_cast<double>(t.block_k * t.block_n) * e / 16.0 / th,
                             (static_cast<double>(acc.a.async_copy ? 0 : t.block_m * t.block_k) +
                              static_cast<double>(acc.b.async_copy ? 0 : t.block_k * t.block_n)) / th};
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) ata[i][j] += x[i] * x[j];
        ata[i][kLs] += x[i] * static_cast<double>(c.regs_per_thread);
      }
      ++*used;
    }
  if (*used < static_cast<std::size_t>(n)) return std::nullopt;
  for (int i = 0; i < n; ++i) {  // Gauss-Jordan with partial pivoting
    int piv = i;
    for (int r = i + 1; r < n; ++r)
      if (std::fabs(ata[r][i]) > std::fabs(ata[piv][i])) piv = r;
    for (int c = 0; c <= kLs; ++c) std::swap(ata[i][c], ata[piv][c]);
    if (!(std::fabs(ata[i][i]) > 1e-9)) return std::nullopt;
    for (int r = 0; r < n; ++r) {
      if (r == i) continue;
      const double f = ata[r][i] / ata[i][i];
      for (int c = i; c <= kLs; ++c) ata[r][c] -= f * ata[i][c];
    }
  }
  std::array<double, kLs> out{};
  for (int i = 0; i < n; ++i) out[i] = ata[i][kLs] / ata[i][i];
  return out;
}

// Does any compiled configuration of `type` in the data have a problem
// whose access `pred` holds for?
template <class Pred>
bool any_access(const std::vector<Dataset>& sets, DType type, Pred pred) {
  for (const Dataset& d : sets)
    for (const MeasuredConfig& c : d.configs) {
      if (!c.compiled || class_dtype(c.klass) != type || !fits(c)) continue;
      if (pred(problem_access(class_problem(c.klass)))) return true;
    }
  return false;
}

int fit_registers(const Device& dev, const std::vector<Dataset>& sets, KernelFamily& fam, DType type) {
  // An operand moved without the async copy (the narrow loads that
  // per_register_element prices); an output not 16-byte aligned alone is
  // not one: its column of the fit would be zero.
  const bool narrow =
      any_access(sets, type, [](const ProblemAccess& a) { return !a.a.async_copy || !a.b.async_copy; });
  // Registers holding operand tiles: anything not aligned, or B transposed
  // on chip (which only the spill rule sees: its registers are per_b_vector's).
  const bool held = any_access(sets, type, [](const ProblemAccess& a) { return !a.aligned || a.b.transposed; });
  std::size_t used = 0;
  const std::optional<std::array<double, kLs>> solved = least_squares(dev, sets, type, narrow, &used);
  if (!solved) {
    fmt::print(stderr,
               "tileplan_fit: {} compiled configuration(s) of {} without spills in the data do not determine the {} "
               "register constants (--input-type picks the type)\n",
               used, to_string(type), narrow ? 5 : 4);
    return 2;
  }
  const std::array<double, kLs>& ls = *solved;
  const RegisterProfile start = registers_for(fam, type, g_fit_instr);
  RegisterProfile prof = start;
  prof.accumulators_only = false;
  prof.base = ls[0], prof.per_accumulator = ls[1], prof.per_a_vector = ls[2], prof.per_b_vector = ls[3];
  if (narrow) prof.per_register_element = ls[4];
  auto score = [&](const RegisterProfile& p) {
    double s = 0;
    for (const Dataset& d : sets) {
      const RegisterFigures f = register_figures(dev, p, d, type);
      s += static_cast<double>(f.blocks_equal) + static_cast<double>(f.spill_equal) +
           0.5 * static_cast<double>(f.within_16) - 0.01 * f.mean_abs;
    }
    return s;
  };
  fmt::print("input type {}: least squares: base {:.3f}, per_accumulator {:.3f}, per_a_vector {:.3f}, "
             "per_b_vector {:.3f}, per_register_element {}\n",
             to_string(type), ls[0], ls[1], ls[2], ls[3], narrow ? fmt::format("{:.3f}", ls[4]) : "(no narrow loads)");
  // Coordinate search for the most blocks/SM and spill flags equal to the
  // driver's and the compiler's; spill_reserve only where registers hold
  // operand tiles (elsewhere any value from 1 to 127 separates the data).
  double best = score(prof);
  const double steps[6] = {0.5, 0.01, 0.05, 0.05, 0.05, 1.0};
  const int fields_n = held ? 6 : 4;
  for (int round = 0; round < 8; ++round) {
    for (int i = 0; i < fields_n; ++i) {
      for (int d = -20; d <= 20; ++d) {
        RegisterProfile q = prof;
        double* fields[6] = {&q.base, &q.per_accumulator, &q.per_a_vector, &q.per_b_vector, &q.per_register_element,
                             &q.spill_reserve};
        *fields[i] += d * steps[i];
        if (q.spill_reserve < 0) continue;
        const double s = score(q);
        if (s > best + 1e-12) best = s, prof = q;
      }
    }
  }
  fmt::print("fitted: base {:.3f}, per_accumulator {:.3f}, per_a_vector {:.3f}, per_b_vector {:.3f}, "
             "spill_reserve {:.0f}, per_register_element {:.3f}\n",
             prof.base, prof.per_accumulator, prof.per_a_vector, prof.per_b_vector, prof.spill_reserve,
             prof.per_register_element);
  for (const RegisterProfile* p : {&start, static_cast<const RegisterProfile*>(&prof)}) {
    fmt::print("{}:\n", p == &prof ? "fitted profile" : fmt::format("profile of {} ({})", fam.name, fam.file));
    for (const Dataset& d : sets) {
      const RegisterFigures f = register_figures(dev, *p, d, type);
      if (f.compiled == 0) continue;
      const double n = static_cast<double>(f.compiled);
      fmt::print("  {}: blocks/SM equal {}/{} ({:.1f}%), regs within 16: {}/{} ({:.1f}%), spill flag equal {}/{}, "
                 "mean |error| {:.1f}\n",
                 d.dir, f.blocks_equal, f.compiled, 100.0 * static_cast<double>(f.blocks_equal) / n, f.within_16,
                 f.compiled, 100.0 * static_cast<double>(f.within_16) / n, f.spill_equal, f.compiled, f.mean_abs);
    }
  }
  constexpr const char* kHow = "least squares, then a coordinate search for blocks/SM (registers.fitted_on)";
  constexpr std::size_t kSpill = 4, kNarrow = 5;
  if (g_fit_instr == Instr::mma) {
    // The mma tiles' override: the four demand constants it fitted (and
    // per_register_element where the data hold narrow loads).
    auto it = std::find_if(fam.by_instr.begin(), fam.by_instr.end(),
                           [](const InstrConstants& c) { return c.instr == Instr::mma; });
    if (it == fam.by_instr.end()) it = fam.by_instr.insert(fam.by_instr.end(), InstrConstants{});
    const std::array<double, kRegisterConstantCount> v = to_array(prof);
    for (std::size_t i = 0; i < kRegisterConstantCount; ++i) {
      if (i == kSpill || (i == kNarrow && !narrow) || i > kNarrow) continue;
      it->regs[i] = v[i];
      it->regs_sources[i] = "least squares, then a coordinate search for blocks/SM (by_instr.mma.fitted_on)";
    }
    return 0;
  }
  if (type == DType::float16) {
    fam.regs = prof;
    for (std::size_t i = 0; i < kRegisterConstantCount; ++i)
      if (i != kSpill && (i != kNarrow || narrow)) fam.regs_sources[i] = kHow;
    fam.regs_sources[kSpill] = fam.regs.spill_reserve == 16
                                   ? "not fitted: any value from 1 to 127 separates the data (spilling kernels have 256 "
                                     "or more accumulators per thread, the others at most 128); 16 is about base"
                                   : "not fitted: kept from the starting family";
    return 0;
  }
  // Another type: the constants it fitted become its overrides.
  const auto it = overrides_of(fam, type);
  const std::array<double, kRegisterConstantCount> v = to_array(prof);
  const std::array<double, kRegisterConstantCount> was = to_array(start);
  for (std::size_t i = 0; i < kRegisterConstantCount; ++i) {
    if ((i == kSpill && v[i] == was[i]) || (i == kNarrow && !held)) continue;
    it->regs[i] = v[i];
    it->regs_sources[i] = i == kSpill ? "coordinate search for the compiler's spill flags (registers.fitted_on)" : kHow;
  }
  return 0;
}

// The spill rule alone: spill_per_element and spill_reserve on a grid
// (0.5 to 4 in steps of 0.05; 0 to 127), for the most spill flags equal to the
// compiler's over every compiled configuration of `type`, the smallest pair
// of the best; or both as given (`held`: --set, e.g. a pair chosen on the
// run-time fit's objective), with their agreement reported. The demand
// constants stay the starting family's.
int fit_spill_rule(const Device& dev, const std::vector<Dataset>& sets, KernelFamily& fam, DType type,
                   const std::optional<std::pair<double, double>>& held) {
  const RegisterProfile start = registers_for(fam, type);
  RegisterProfile best = start;
  std::size_t best_equal = 0, compiled = 0, start_equal = 0;
  // The rule's inputs per compiled configuration, once: accumulators, held
  // elements and the compiler's flag (the grid then costs no estimate).
  struct Row {
    double accumulators, held;
    bool spills;
  };
  std::vector<Row> rows;
  for (const Dataset& d : sets)
    for (const MeasuredConfig& c : d.configs) {
      if (!c.compiled || class_dtype(c.klass) != type) continue;
      const RegisterEstimate r = detail::estimate_registers(start, dev, c.config, class_problem(c.klass));
      rows.push_back({static_cast<double>(r.accumulators), r.held_elements, c.spills > 0});
    }
  const double limit = static_cast<double>(dev.regs_per_thread_max);
  auto equal_flags = [&](const RegisterProfile& p) {
    const double per_held = spill_cost_per_held(p);
    std::size_t equal = 0;
    for (const Row& r : rows) equal += (r.accumulators + per_held * r.held + p.spill_reserve > limit) == r.spills;
    return std::pair{rows.size(), equal};
  };
  std::tie(compiled, start_equal) = equal_flags(start);
  if (compiled == 0) {
    fmt::print(stderr, "tileplan_fit: no compiled configuration of {} in the data\n", to_string(type));
    return 2;
  }
  if (held) {
    best.spill_per_element = held->first;
    best.spill_reserve = held->second;
    best_equal = equal_flags(best).second;
  }
  for (int e = 10; e <= 80 && !held; ++e)
    for (int reserve = 0; reserve <= 127; ++reserve) {
      RegisterProfile q = start;
      q.spill_per_element = 0.05 * e;
      q.spill_reserve = reserve;
      const std::size_t equal = equal_flags(q).second;
      if (equal > best_equal) best_equal = equal, best = q;
    }
  fmt::print("input type {}: spill flags equal to the compiler's: {}/{} with the starting rule "
             "(spill_per_element {:.2f}, spill_reserve {:.0f}), {}/{} with spill_per_element {:.2f}, spill_reserve {:.0f}"
             "{}\n",
             to_string(type), start_equal, compiled, start.spill_per_element, start.spill_reserve, best_equal, compiled,
             best.spill_per_element, best.spill_reserve, held ? " (as set)" : " (the grid's best)");
  const auto& info = register_constant_info();
  auto index_of = [&](std::string_view name) {
    return static_cast<std::size_t>(
        std::find_if(info.begin(), info.end(), [&](const ConstantInfo& c) { return c.name == name; }) - info.begin());
  };
  const std::size_t kReserve = index_of("spill_reserve"), kPerElement = index_of("spill_per_element");
  const char* how = held ? "set (--set) when the spill rule was written (registers.fitted_on: the spill rule)"
                         : "grid search for the compiler's spill flags (registers.fitted_on: the spill rule)";
  if (type == DType::float16) {
    fam.regs.spill_per_element = best.spill_per_element;
    fam.regs.spill_reserve = best.spill_reserve;
    fam.regs_sources[kReserve] = fam.regs_sources[kPerElement] = how;
    return 0;
  }
  const auto it = overrides_of(fam, type);
  it->regs[kReserve] = best.spill_reserve;
  it->regs[kPerElement] = best.spill_per_element;
  it->regs_sources[kReserve] = it->regs_sources[kPerElement] =
      held ? "set (--set) when the spill rule was written (the type's fitted_on: its --spill-rule command)"
           : "grid search for the compiler's spill flags (the type's fitted_on: its --spill-rule command)";
  return 0;
}

// The epilogue rule alone, over the compiled configurations of `type` whose
// C is stored with narrow stores: per_narrow_c_accumulator (0 to 4) and
// per_narrow_c_row (0 to 3) on a grid in steps of 0.05 for the most blocks/SM
// and spill flags equal to the driver's and the compiler's, ties to the
// smallest mean |registers error|;
// then per_narrow_c_row_accumulator (0 to 2 in steps of 0.05, a spill count
// only: it moves neither) for the smallest mean |log error| of the registers
// spilled (RegisterFigures). The other constants stay the starting family's.
int fit_epilogue_rule(const Device& dev, const std::vector<Dataset>& sets, KernelFamily& fam, DType type) {
  const RegisterProfile start = registers_for(fam, type);
  // Blocks/SM and spill flags equal, and the summed errors (for ties), over every dataset.
  struct Score {
    std::size_t compiled = 0, agree = 0, spilling = 0;
    double abs_error = 0, spill_error = 0;
  };
  auto score = [&](const RegisterProfile& p) {
    Score s;
    for (const Dataset& d : sets) {
      const RegisterFigures f = register_figures(dev, p, d, type, true);
      s.compiled += f.compiled;
      s.agree += f.blocks_equal + f.spill_equal;
      s.abs_error += f.mean_abs * static_cast<double>(f.compiled);
      s.spilling += f.spilling;
      s.spill_error += f.spill_log_error * static_cast<double>(f.spilling);
    }
    return s;
  };
  const Score was = score(start);
  if (was.compiled == 0) {
    fmt::print(stderr, "tileplan_fit: no compiled configuration of {} with narrow stores of C in the data\n",
               to_string(type));
    return 2;
  }
  RegisterProfile best = start;
  Score top = was;
  for (int e = 0; e <= 80; ++e)
    for (int row = 0; row <= 60; ++row) {
      RegisterProfile q = start;
      q.per_narrow_c_accumulator = e / 20.0;
      q.per_narrow_c_row = row / 20.0;
      const Score s = score(q);
      if (s.agree > top.agree || (s.agree == top.agree && s.abs_error < top.abs_error - 1e-9)) top = s, best = q;
    }
  const RegisterProfile allocation = best;
  for (int r = 0; r <= 40; ++r) {
    RegisterProfile q = allocation;
    q.per_narrow_c_row_accumulator = r / 20.0;
    const Score s = score(q);
    if (s.agree >= top.agree && s.spill_error < top.spill_error - 1e-9) top = s, best = q;
  }
  const double n = static_cast<double>(was.compiled);
  const double ns = static_cast<double>(std::max<std::size_t>(was.spilling, 1));
  const double nt = static_cast<double>(std::max<std::size_t>(top.spilling, 1));
  fmt::print("input type {}: {} compiled configurations with narrow stores of C; blocks/SM and spill flags equal {} "
             "times with per_narrow_c_accumulator {:.2f}, per_narrow_c_row {:.2f} and per_narrow_c_row_accumulator "
             "{:.2f} (mean |error| {:.1f} registers; registers spilled, mean |log error| {:.3f}); {} with {:.2f}, {:.2f} "
             "and {:.2f} ({:.1f}; {:.3f}; the grid's best)\n",
             to_string(type), was.compiled, was.agree, start.per_narrow_c_accumulator, start.per_narrow_c_row,
             start.per_narrow_c_row_accumulator, was.abs_error / n, was.spill_error / ns, top.agree,
             best.per_narrow_c_accumulator, best.per_narrow_c_row, best.per_narrow_c_row_accumulator,
             top.abs_error / n, top.spill_error / nt);
  for (const RegisterProfile* p : {&start, static_cast<const RegisterProfile*>(&best)})
    for (const Dataset& d : sets) {
      const RegisterFigures f = register_figures(dev, *p, d, type, true);
      if (f.compiled == 0) continue;
      fmt::print("  {:.2f}, {:.2f}, {:.2f} on {}: blocks/SM equal {}/{}, spill flag equal {}/{}, mean |error| {:.1f}, "
                 "registers spilled mean |log error| {:.3f} over {}\n",
                 p->per_narrow_c_accumulator, p->per_narrow_c_row, p->per_narrow_c_row_accumulator, d.dir, f.blocks_equal, f.compiled,
                 f.spill_equal, f.compiled, f.mean_abs, f.spill_log_error, f.spilling);
    }
  const auto& info = register_constant_info();
  auto index_of = [&](std::string_view name) {
    return static_cast<std::size_t>(
        std::find_if(info.begin(), info.end(), [&](const ConstantInfo& c) { return c.name == name; }) - info.begin());
  };
  const std::size_t k = index_of("per_narrow_c_accumulator"), krow = index_of("per_narrow_c_row"),
                    kr = index_of("per_narrow_c_row_accumulator");
  constexpr const char* kAllocation =
      "grid search (per_narrow_c_accumulator with per_narrow_c_row) for blocks/SM and spill flags with narrow "
      "stores of C";
  constexpr const char* kSpilled =
      "grid search for the registers the compiler spills with narrow stores of C, the allocation held";
  if (type == DType::float16) {
    fam.regs.per_narrow_c_accumulator = best.per_narrow_c_accumulator;
    fam.regs.per_narrow_c_row = best.per_narrow_c_row;
    fam.regs.per_narrow_c_row_accumulator = best.per_narrow_c_row_accumulator;
    fam.regs_sources[k] = fam.regs_sources[krow] =
        fmt::format("{} (registers.fitted_on: the epilogue rule)", kAllocation);
    fam.regs_sources[kr] = fmt::format("{} (registers.fitted_on: the epilogue rule)", kSpilled);
    return 0;
  }
  const auto it = overrides_of(fam, type);
  it->regs[k] = best.per_narrow_c_accumulator;
  it->regs[krow] = best.per_narrow_c_row;
  it->regs[kr] = best.per_narrow_c_row_accumulator;
  it->regs_sources[k] = it->regs_sources[krow] =
      fmt::format("{} (the type's fitted_on: its --epilogue-rule command)", kAllocation);
  it->regs_sources[kr] = fmt::format("{} (the type's fitted_on: its --epilogue-rule command)", kSpilled);
  return 0;
}

// ---- run time ---------------------------------------------------------------------------

struct Sample {
  TileConfig config;
  int64_t blocks_per_sm;
  bool spills;
  double spilled_registers;  // of a spill by held operand tiles (RegisterEstimate)
  double epilogue_spilled;   // registers the epilogue spills (RegisterEstimate)
  double ms;
};
// Ranked and fitted like any other: no spill, or one the constants price per register.
bool priced(const Sample& x, const TimeConstants& k) {
  return !x.spills || (x.spilled_registers > 0 && detail::prices_held_spills(k));
}
struct FitShape {
  GemmProblem problem;
  std::string name;
  bool check = false;  // set aside: reported, not fitted
  double best_ms = 0;
  std::vector<Sample> samples;
};

std::vector<FitShape> calibration_shapes(const Device& dev, const std::vector<Dataset>& sets,
                                         const KernelFamily& family, DType type) {
  const RegisterProfile regs = registers_for(family, type);
  std::vector<FitShape> out;
  for (const Dataset& d : sets) {
    // A dataset without split.json (data/h200-triton) is calibration data
    // throughout, except a shape that another dataset holds out.
    std::vector<GemmProblem> calibration = d.calibration;
    if (!d.has_split)
      for (const MeasuredShape& m : d.shapes)
        if (split_of(sets, m.problem) != Split::held_out) calibration.push_back(m.problem);
    // fp8 with B N-contiguous is outside the model (a C3 warning: the kernel
    // transposes B on chip, 2.7x slower than B K-major in data/h200-triton-v5a): not fitted.
    std::erase_if(calibration, [&](const GemmProblem& p) {
      return p.dtype != type || (is_fp8(p.dtype) && p.b_layout == Layout::row);
    });
    for (std::size_t ci = 0; ci < calibration.size(); ++ci) {
      const GemmProblem& want = calibration[ci];
      for (const MeasuredShape& m : d.shapes) {
        if (shape_name(m.problem) != shape_name(want)) continue;
        FitShape s;
        s.problem = m.problem;
        s.name = shape_name(m.problem) + (d.has_split ? "" : "*");  // * : from a dataset without a split
        s.check = ci % 4 == 3;
        s.best_ms = 1e300;
        for (const auto& [index, ms] : m.times_ms) {
          const TileConfig& cfg = d.configs[index].config;
          TileCheck v;
          detail::check_resources(cfg, dev, m.problem, regs, OccupancyRule::hardware, detail::Depth::full, v);
          if (v.blocks_per_sm < 1) continue;
          s.samples.push_back({cfg, v.blocks_per_sm, v.spills, v.spilled_registers, v.epilogue_spilled_registers, ms});
          s.best_ms = std::min(s.best_ms, ms);
        }
        out.push_back(std::move(s));
      }
    }
  }
  return out;
}

double predict_sample(const Device& dev, const FitShape& s, const Sample& x, const TimeConstants& k, int64_t group_m) {
  const TileCosts c = detail::tile_costs(dev, x.config, s.problem, x.blocks_per_sm, x.spills, k, x.spilled_registers,
                                         x.epilogue_spilled);
  return detail::predict_us(dev, s.problem, c, k, group_m);
}

struct ShapeFigures {
  double msle = 0;          // weighted mean squared log error (non-spilling)
  double soft_regret = 0;   // log regret averaged over the picks, weighted by softmin of predicted time
  double top1 = 1, top5 = 1;
  std::size_t top1_index = 0;
};

ShapeFigures shape_figures(const Device& dev, const FitShape& s, const TimeConstants& k, int64_t group_m) {
  ShapeFigures f;
  std::vector<std::pair<double, std::size_t>> ranked;
  double wsum = 0;
  for (std::size_t i = 0; i < s.samples.size(); ++i) {
    const Sample& x = s.samples[i];
    const double pred_ms = predict_sample(dev, s, x, k, group_m) * 1e-3;
    if (priced(x, k)) {
      ranked.emplace_back(pred_ms, i);
      // Near-best configurations weigh most: they decide the ranking.
      const double w = 0.1 + std::exp(-std::log(x.ms / s.best_ms) / 0.15);
      const double e = std::log(pred_ms) - std::log(x.ms);
      f.msle += w * e * e;
      wsum += w;
    }
  }
  f.msle /= std::max(wsum, 1e-300);
  std::sort(ranked.begin(), ranked.end());
  // A smooth stand-in for the top-1 regret: configurations predicted within a
  // few percent of the fastest share the pick.
  constexpr double kTau = 0.03;
  double num = 0, den = 0;
  for (const auto& [pred, i] : ranked) {
    const double w = std::exp(-std::log(pred / ranked.front().first) / kTau);
    num += w * std::log(s.samples[i].ms / s.best_ms);
    den += w;
  }
  f.soft_regret = num / den;
  f.top1_index = ranked.front().second;
  f.top1 = s.samples[ranked.front().second].ms / s.best_ms;
  double top5 = 1e300;
  for (std::size_t r = 0; r < std::min<std::size_t>(5, ranked.size()); ++r)
    top5 = std::min(top5, s.samples[ranked[r].second].ms);
  f.top5 = top5 / s.best_ms;
  return f;
}

constexpr std::size_t kFree = kTimeConstantCount;  // spill_factor is --fix'ed by main, set apart after the search

double objective(const Device& dev, const std::vector<FitShape>& shapes, const TimeConstants& k, int64_t group_m) {
  double msle = 0, regret = 0;
  std::size_t n = 0;
  for (const FitShape& s : shapes) {
    if (s.check) continue;
    const ShapeFigures f = shape_figures(dev, s, k, group_m);
    msle += f.msle;
    regret += f.soft_regret;
    ++n;
  }
  return (msle + regret) / static_cast<double>(n);
}

void print_shapes(const Device& dev, const std::vector<FitShape>& shapes, const TimeConstants& k, int64_t group_m) {
  fmt::print("{:<30} {:<5} {:>9} {:>20} {:>9} {:>7} {:>7} {:>7}\n", "shape", "role", "best ms", "top-1 pick",
             "pred ms", "top-1", "top-5", "msle");
  std::vector<double> fit1, fit5, chk1, chk5;
  for (const FitShape& s : shapes) {
    const ShapeFigures f = shape_figures(dev, s, k, group_m);
    const Sample& pick = s.samples[f.top1_index];
    const double pred = predict_sample(dev, s, pick, k, group_m) * 1e-3;
    fmt::print("{:<30} {:<5} {:>9.4f} {:>20} {:>9.4f} {:>7.3f} {:>7.3f} {:>7.4f}\n", s.name, s.check ? "check" : "fit",
               s.best_ms,
               fmt::format("{}x{}x{}_s{}_w{}", pick.config.block_m, pick.config.block_n, pick.config.block_k,
                           pick.config.stages, pick.config.threads / 32),
               pred, f.top1, f.top5, f.msle);
    (s.check ? chk1 : fit1).push_back(f.top1);
    (s.check ? chk5 : fit5).push_back(f.top5);
  }
  auto worst = [](const std::vector<double>& v) { return v.empty() ? 1.0 : *std::max_element(v.begin(), v.end()); };
  fmt::print("fit   shapes {:>2}: top-1 geomean {:.3f} worst {:.3f}; top-5 geomean {:.3f} worst {:.3f}\n", fit1.size(),
             geomean(fit1), worst(fit1), geomean(fit5), worst(fit5));
  fmt::print("check shapes {:>2}: top-1 geomean {:.3f} worst {:.3f}; top-5 geomean {:.3f} worst {:.3f}\n", chk1.size(),
             geomean(chk1), worst(chk1), geomean(chk5), worst(chk5));
}

void print_constants(const TimeConstants& k) {
  const auto values = to_array(k);
  const auto& info = time_constant_info();
  for (std::size_t i = 0; i < kTimeConstantCount; ++i)
    fmt::print("    {:<20} {:>14.9g} {}\n", info[i].name, values[i], info[i].unit);
}

// The type's run-time constants with the --set values in place of theirs.
TimeConstants with_overrides(const KernelFamily& fam, DType type,
                             const std::vector<std::pair<std::string, double>>& overrides) {
  auto values = to_array(time_for(fam, type));
  for (const auto& [name, value] : overrides)
    for (std::size_t i = 0; i < kTimeConstantCount; ++i)
      if (time_constant_info()[i].name == name) values[i] = value;
  return time_constants_from(values);
}

int fit_time(const Device& dev, const std::vector<Dataset>& sets, int restarts, int iterations,
             const std::vector<std::string>& fixed, const std::vector<std::pair<std::string, double>>& overrides,
             KernelFamily& fam, DType type) {
  const std::vector<FitShape> shapes = calibration_shapes(dev, sets, fam, type);
  if (shapes.empty()) {
    fmt::print(stderr,
               "tileplan_fit: no calibration shapes of {} in the datasets (split.json lists them; --input-type "
               "picks the type)\n",
               to_string(type));
    return 2;
  }
  TimeConstants start = with_overrides(fam, type, overrides);
  fmt::print("constants of {} ({}): objective {:.5f}\n", fam.name, fam.file, objective(dev, shapes, start, fam.group_m));
  print_shapes(dev, shapes, start, fam.group_m);

  const auto& info = time_constant_info();
  // A constant that no calibration configuration's predicted time depends on
  // (doubled, every prediction stays the same) is held: the objective is flat
  // along it, and the search would wander (paired_narrow_cycles for a type
  // whose data never move both operands through registers).
  std::vector<std::string> held = fixed;
  // B's reuse shares were measured under Nsight Compute (DRAM bytes, not
  // times: docs/model.md §3): a timing fit never moves them.
  for (const char* measured : {"l2_reuse_near_share", "l2_reuse_far_share"})
    if (std::find(held.begin(), held.end(), measured) == held.end()) held.emplace_back(measured);
  fmt::print("held (measured under Nsight Compute, not fitted on timings): l2_reuse_near_share, l2_reuse_far_share\n");
  {
    auto predictions = [&](const TimeConstants& k) {
      std::vector<double> out;
      for (const FitShape& s : shapes)
        for (const Sample& x : s.samples) out.push_back(predict_sample(dev, s, x, k, fam.group_m));
      return out;
    };
    const std::vector<double> at_start = predictions(start);
    std::string inert;
    for (std::size_t i = 0; i < kTimeConstantCount; ++i) {
      if (std::find(held.begin(), held.end(), std::string(info[i].name)) != held.end()) continue;
      auto v = to_array(start);
      v[i] = v[i] > 0 ? 2 * v[i] : 1.0;
      if (predictions(time_constants_from(v)) == at_start) {
        held.emplace_back(info[i].name);
        inert += (inert.empty() ? "" : ", ") + std::string(info[i].name);
      }
    }
    if (!inert.empty()) fmt::print("held (no calibration configuration's predicted time depends on them): {}\n", inert);
  }
  auto is_fixed = [&](std::size_t i) {
    return std::find(held.begin(), held.end(), std::string(info[i].name)) != held.end();
  };
  // Search in log space (every constant is positive); fixed ones stay put.
  const auto base = to_array(start);
  auto unpack = [&](const Vec<kFree>& x) {
    auto v = base;
    for (std::size_t i = 0; i < kFree; ++i)
      if (!is_fixed(i)) v[i] = std::exp(x[i]);
    TimeConstants k = time_constants_from(v);
    k.tail_sync = std::min(k.tail_sync, 1.0);  // a share
    k.async_share = std::min(k.async_share, 1.0);  // a share
    k.kmajor_wide_unit_saving = std::min(k.kmajor_wide_unit_saving, 0.9);  // a share, below 1
    if (k.overlap_power > 0) k.overlap_power = std::clamp(k.overlap_power, 1.0, 64.0);  // its legal range
    if (k.sm_overlap_power > 0) k.sm_overlap_power = std::clamp(k.sm_overlap_power, 1.0, 64.0);  // its legal range
    return k;
  };
  std::function<double(const Vec<kFree>&)> f = [&](const Vec<kFree>& x) {
    const TimeConstants k = unpack(x);
    return objective(dev, shapes, k, fam.group_m);
  };
  Vec<kFree> x;
  for (std::size_t i = 0; i < kFree; ++i) x[i] = std::log(std::max(base[i], 1e-6));
  double value = f(x);
  // Every constant held: nothing to search (the restarts would only evaluate
  // the same objective again, thousands of times).
  bool any_free = false;
  for (std::size_t i = 0; i < kFree; ++i) any_free = any_free || !is_fixed(i);
  if (!any_free) fmt::print("every constant held: nothing to fit\n");
  for (int r = 0; any_free && r < restarts; ++r) {
    double v = 0;
    const Vec<kFree> y = nelder_mead<kFree>(f, x, r == 0 ? 0.3 : 0.1, iterations, &v);
    fmt::print("restart {}: objective {:.5f}\n", r, v);
    if (v < value) value = v, x = y;
  }
  TimeConstants k = unpack(x);
  // Spill factor: the median of measured over predicted time of the spilling
  // configurations of the fitted shapes (they are ranked last anyway).
  std::vector<double> ratios;
  TimeConstants no_spill = k;
  no_spill.spill_factor = 1.0;
  for (const FitShape& s : shapes)
    if (!s.check)
      for (const Sample& smp : s.samples)
        if (!priced(smp, k)) ratios.push_back(smp.ms / (predict_sample(dev, s, smp, no_spill, fam.group_m) * 1e-3));
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
    k.spill_factor = ratios[ratios.size() / 2];
  }
  fmt::print("\nfitted constants (objective {:.5f}):\n", value);
  print_constants(k);
  print_shapes(dev, shapes, k, fam.group_m);
  const std::size_t spill = static_cast<std::size_t>(
      std::find_if(info.begin(), info.end(), [](const ConstantInfo& c) { return c.name == "spill_factor"; }) -
      info.begin());
  if (type == DType::float16) {
    fam.time = k;
    for (std::size_t i = 0; i < kTimeConstantCount; ++i)
      if (!is_fixed(i) || fam.time_sources[i].empty())
        fam.time_sources[i] = is_fixed(i) ? "held at its starting value (--fix)"
                                          : "Nelder-Mead (time.fitted_on: its last command)";
    fam.time_sources[spill] =
        "median of measured over predicted time of the spilling configurations of the calibration shapes";
    return 0;
  }
  // Another type: the constants it fitted (not those held fixed) become its overrides.
  const auto it = overrides_of(fam, type);
  const auto v = to_array(k);
  for (std::size_t i = 0; i < kTimeConstantCount; ++i) {
    if (is_fixed(i)) continue;
    it->time[i] = v[i];
    it->time_sources[i] = i == spill ? "median of measured over predicted time of the spilling configurations"
                                     : "Nelder-Mead on this type's calibration shapes";
  }
  return 0;
}

// Every configuration of one calibration shape, fastest measured first, with
// the prediction and what bounds it.
int show_shape(const Device& dev, const std::vector<Dataset>& sets, const std::string& name, std::size_t rows,
               const KernelFamily& fam) {
  for (const Dataset& d : sets)
    for (const MeasuredShape& m : d.shapes) {
      if (shape_name(m.problem) != name) continue;
      if (split_of(sets, m.problem) == Split::held_out) {
        fmt::print(stderr, "tileplan_fit: {} is held out\n", name);
        return 2;
      }
      std::vector<std::pair<double, std::size_t>> order;
      for (const auto& [index, ms] : m.times_ms) order.emplace_back(ms, index);
      std::sort(order.begin(), order.end());
      const double best = order.front().first;
      fmt::print("{:<20} {:>9} {:>6} {:>9} {:>6} {:>8} {:>4} {:>5} {:>9} {:>9}\n", "config", "ms", "x best", "pred ms",
                 "ratio", "bound", "b", "regs", "sm us", "dram us");
      for (std::size_t r = 0; r < std::min(rows, order.size()); ++r) {
        const MeasuredConfig& c = d.configs[order[r].second];
        const Verdict v = diagnose(m.problem, dev, c.config, Model::calibrated, fam).value();
        if (v.blocks_per_sm < 1) continue;
        const Prediction p = predict(dev, m.problem, c.config, v.blocks_per_sm, v.spills, fam).value();
        fmt::print("{:<20} {:>9.4f} {:>6.3f} {:>9.4f} {:>6.3f} {:>8} {:>4} {:>5} {:>9.1f} {:>9.1f}\n", c.key,
                   order[r].first, order[r].first / best, p.time_us * 1e-3, p.time_us * 1e-3 / order[r].first,
                   to_string(p.bound), v.blocks_per_sm, v.regs_per_thread, p.terms.sm_us, p.terms.dram_us);
      }
      return 0;
    }
  fmt::print(stderr, "tileplan_fit: no shape {}\n", name);
  return 2;
}

constexpr const char* kUsage =
    "usage: tileplan_fit --registers [--input-type T | --instr mma] [COMMON]... DATASET...\n"
    "       tileplan_fit --spill-rule [--input-type T] [--set spill_per_element=X --set spill_reserve=Y] [COMMON]... DATASET...\n"
    "       tileplan_fit --epilogue-rule [--input-type T] [COMMON]... DATASET...\n"
    "       tileplan_fit --time [--input-type T] [--restarts N] [--iterations N] [--fix NAME]... [--set NAME=VALUE]... "
    "[COMMON]... DATASET...\n"
    "       tileplan_fit --show MxNxK [--rows N] [COMMON]... DATASET...\n"
    "COMMON: --family NAME | --family-file PATH, --device NAME, --name NAME, --output FILE\n";

// Bad input: one line on stderr (what was wrong), exit status 2; --help
// prints the usage on standard output.
int usage(const std::string& why) {
  fmt::print(stderr, "tileplan_fit: {} (tileplan_fit --help shows the usage)\n", why);
  return 2;
}

// A whole-text integer in [lo, hi], or nothing.
std::optional<int64_t> parse_count(const std::string& text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<double> parse_number(const std::string& text) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : " ") + i;
  return s;
}

// A record of how the registers were fitted, with the rule that starts with
// `marker` (up to the next rule's "; the ") replaced by `marker` + `text`,
// appended.
std::string with_rule(const std::string& record, std::string_view marker, const std::string& text) {
  std::string rest = record;
  if (const std::size_t at = rest.find(marker); at != std::string::npos) {
    const std::size_t next = rest.find("; the ", at + marker.size());
    rest.erase(at, next == std::string::npos ? std::string::npos : next - at);
  }
  return fmt::format("{}{}{}", rest, marker, text);
}

}  // namespace
}  // namespace tileplan

int main(int argc, char** argv) {
  using namespace tileplan;
  std::string mode, show, family_name = "triton", family_file, device_name, new_name, output, type_name = "float16";
  std::string instr_name = "wgmma";
  std::size_t rows = 30;
  int restarts = 4, iterations = 3000;
  std::vector<std::string> fixed, dirs;
  std::vector<std::pair<std::string, double>> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    auto count = [&](int64_t lo, int64_t hi) -> std::optional<int64_t> { return parse_count(argv[++i], lo, hi); };
    if (a == "--help" || a == "-h") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (a == "--registers" || a == "--time" || a == "--spill-rule" || a == "--epilogue-rule") {
      mode = a;
    } else if (a == "--restarts" && has_value) {
      const auto v = count(0, 1000);
      if (!v) return usage("--restarts must be an integer from 0 to 1000");
      restarts = static_cast<int>(*v);
    } else if (a == "--iterations" && has_value) {
      const auto v = count(1, 10'000'000);
      if (!v) return usage("--iterations must be an integer from 1 to 10000000");
      iterations = static_cast<int>(*v);
    } else if (a == "--fix" && has_value) {
      fixed.emplace_back(argv[++i]);
    } else if (a == "--set" && has_value) {  // start (or, with --fix, hold) a constant at VALUE
      const std::string kv = argv[++i];
      const std::size_t eq = kv.find('=');
      const std::optional<double> v = eq == std::string::npos ? std::nullopt : parse_number(kv.substr(eq + 1));
      if (!v) return usage("--set takes NAME=VALUE with a finite number");
      overrides.emplace_back(kv.substr(0, eq), *v);
    } else if (a == "--show" && has_value) {
      mode = a, show = argv[++i];
    } else if (a == "--rows" && has_value) {
      const auto v = count(1, 1'000'000);
      if (!v) return usage("--rows must be an integer from 1 to 1000000");
      rows = static_cast<std::size_t>(*v);
    } else if (a == "--family" && has_value) {
      family_name = argv[++i];
    } else if (a == "--family-file" && has_value) {
      family_file = argv[++i];
    } else if (a == "--device" && has_value) {
      device_name = argv[++i];
    } else if (a == "--name" && has_value) {
      new_name = argv[++i];
    } else if (a == "--output" && has_value) {
      output = argv[++i];
    } else if (a == "--input-type" && has_value) {
      type_name = argv[++i];
    } else if (a == "--instr" && has_value) {
      instr_name = argv[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option or missing value: " + a.substr(0, 64));
    } else {
      dirs.push_back(a);
    }
  }
  if (mode.empty() || dirs.empty()) return usage("give a mode and at least one dataset");
  if (instr_name != "wgmma" && instr_name != "mma")
    return usage("--instr " + instr_name.substr(0, 64) + " is not one of: wgmma, mma");
  if (instr_name == "mma" && (mode != "--registers" || type_name != "float16"))
    return usage("--instr mma goes with --registers and float16 only: the mma tiles' register override");
  g_fit_instr = instr_name == "mma" ? Instr::mma : Instr::wgmma;
  const std::optional<DType> type = parse_dtype(type_name);
  if (!type || !is_input_type(*type))
    return usage("--input-type " + type_name.substr(0, 64) + " is not one of: " + std::string(input_type_names()));
  // spill_factor is set from the spilling configurations after the search, never searched.
  if (std::find(fixed.begin(), fixed.end(), "spill_factor") == fixed.end()) fixed.emplace_back("spill_factor");
  const auto& info = time_constant_info();
  for (const std::string& name : fixed)
    if (std::none_of(info.begin(), info.end(), [&](const ConstantInfo& c) { return c.name == name; }))
      return usage("--fix " + name.substr(0, 64) + " is not a run-time constant");
  std::optional<std::pair<double, double>> spill_rule;
  if (mode == "--spill-rule") {
    std::optional<double> per_element, reserve;
    for (const auto& [name, value] : overrides) {
      if (name == "spill_per_element" && value >= 0 && value <= kMaxRegisterConstant)
        per_element = value;
      else if (name == "spill_reserve" && value >= 0 && value <= kMaxRegisterConstant)
        reserve = value;
      else
        return usage("--set " + name.substr(0, 64) + " with --spill-rule: only spill_per_element and spill_reserve, "
                     "each from 0 to 1e6");
    }
    if (per_element.has_value() != reserve.has_value())
      return usage("--spill-rule sets both spill_per_element and spill_reserve, or neither");
    if (per_element) spill_rule = std::pair{*per_element, *reserve};
  } else {
    for (const auto& [name, value] : overrides)
      if (std::none_of(info.begin(), info.end(), [&](const ConstantInfo& c) { return c.name == name; }))
        return usage("--set " + name.substr(0, 64) + " is not a run-time constant");
  }

  Result<KernelFamily> start = family_file.empty() ? find_family(family_name) : load_family_file(family_file);
  if (!start.ok()) return usage(start.error().message);
  KernelFamily fam = std::move(start).value();
  // A run-time constant set out of its range (tail_sync 5, a negative cycle
  // count) is refused like a family file holding it.
  if (mode == "--time" && !overrides.empty())
    if (const Status s = check_time_constants(with_overrides(fam, *type, overrides)); !s.ok())
      return usage("--set " + s.error().message);
  if (device_name.empty()) device_name = fam.device;
  const std::optional<Device> found = find_device(device_name);
  if (!found) return usage("--device '" + device_name.substr(0, 64) + "' is not a preset; choose one of: " + device_names());
  const Device& dev = *found;

  std::vector<Dataset> sets;
  for (const std::string& dir : dirs) {
    Result<Dataset> d = load_dataset(dir);
    if (!d.ok()) {
      fmt::print(stderr, "tileplan_fit: {}\n", d.error().message);
      return 2;
    }
    // One device's data, fitted with its preset.
    if (std::optional<std::string> other = measured_elsewhere(*d, dev)) {
      fmt::print(stderr, "tileplan_fit: {}: fit one device's data, with its preset (--device)\n", *other);
      return 2;
    }
    sets.push_back(std::move(d).value());
  }
  if (mode == "--show") return show_shape(dev, sets, show, rows, fam);

  std::string command = "tileplan_fit " + mode + " --device " + device_name;
  if (*type != DType::float16) command += " --input-type " + type_name;
  if (g_fit_instr == Instr::mma) command += " --instr mma";
  for (const std::string& name : fixed)
    if (name != "spill_factor") command += " --fix " + name;
  for (const auto& [name, value] : overrides) command += fmt::format(" --set {}={}", name, value);
  command += " " + quoted_list(dirs);
  const int status = mode == "--registers"    ? fit_registers(dev, sets, fam, *type)
                     : mode == "--spill-rule" ? fit_spill_rule(dev, sets, fam, *type, spill_rule)
                     : mode == "--epilogue-rule" ? fit_epilogue_rule(dev, sets, fam, *type)
                                              : fit_time(dev, sets, restarts, iterations, fixed, overrides, fam, *type);
  if (status != 0) return status;
  if (g_fit_instr == Instr::mma) {
    for (InstrConstants& c : fam.by_instr)
      if (c.instr == Instr::mma)
        c.fitted_on = fmt::format("{} (compiled configurations of block_M below 64, which tl.dot compiles to mma: "
                                  "n_regs and occupancy as the driver reports them; least squares, then a coordinate "
                                  "search for blocks/SM); `{}`",
                                  quoted_list(dirs), command);
  } else if (*type != DType::float16) {
    for (TypeConstants& c : fam.by_input_type)
      if (c.dtype == *type)
        c.fitted_on = fmt::format("{}{}`{}`", c.fitted_on, c.fitted_on.empty() ? "" : "; ", command);
    const std::string t(to_string(*type));
    if (std::find(fam.input_types.begin(), fam.input_types.end(), t) == fam.input_types.end()) fam.input_types.push_back(t);
  } else if (mode == "--spill-rule") {
    // The rule replaces the record of an earlier one.
    fam.regs_fitted_on = with_rule(fam.regs_fitted_on, "; the spill rule (spill_per_element, spill_reserve): ",
                                   fmt::format("{} (compiled configurations' spill flags); `{}`", quoted_list(dirs), command));
  } else if (mode == "--epilogue-rule") {
    // Found by its prefix: the record of the rule before per_narrow_c_row is replaced too.
    fam.regs_fitted_on = with_rule(fam.regs_fitted_on, "; the epilogue rule (",
                                   fmt::format("per_narrow_c_accumulator, per_narrow_c_row, "
                                               "per_narrow_c_row_accumulator): {} (compiled configurations with narrow stores of C: blocks/SM and "
                                               "spill flags, then the registers spilled); `{}`",
                                               quoted_list(dirs), command));
  } else if (mode == "--registers")
    fam.regs_fitted_on = fmt::format("{} (compiled configurations: n_regs and occupancy as the driver reports them; "
                                     "least squares, then a coordinate search for blocks/SM); `{}`",
                                     quoted_list(dirs), command);
  else {
    const std::string how = fmt::format("calibration shapes of {} (every fourth kept aside as a check; held-out shapes "
                                        "never read); Nelder-Mead in log space on weighted squared log error plus a "
                                        "smooth top-1 regret; `{}`",
                                        quoted_list(dirs), command);
    // Some constants held: the others were fitted before, the record keeps both.
    const bool held = std::any_of(fixed.begin(), fixed.end(), [](const std::string& n) { return n != "spill_factor"; });
    fam.time_fitted_on = held && !fam.time_fitted_on.empty() ? fam.time_fitted_on + "; then, the constants not held: " + how
                                                             : how;
  }
  for (const std::string& dir : dirs)
    if (std::find(fam.data.begin(), fam.data.end(), dir) == fam.data.end()) fam.data.push_back(dir);
  fam.device = device_name;
  if (!new_name.empty()) fam.name = new_name;
  // Held-out scores were of the constants before this fit: the family written
  // holds none (scripts/validation_record.py measures them again).
  fam.validation.clear();
  if (Status s = check_family(fam); !s.ok()) {
    fmt::print(stderr, "tileplan_fit: the fitted family is not valid: {}\n", s.error().message);
    return 2;
  }
  const std::string text = family_json(fam);
  if (output.empty()) {
    fmt::print("\nfamily file (--output FILE writes it):\n{}", text);
    return 0;
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    fmt::print(stderr, "tileplan_fit: --output '{}': writing failed\n", output);
    return 2;
  }
  fmt::print("\nwrote {}\n", output);
  return 0;
}

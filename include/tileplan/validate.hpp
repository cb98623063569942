// Scoring a model on measured data: for each shape, the measured time of the
// model's first pick over the best measured time (top-1 regret), the best of
// its first five over the best (top-5 regret), and the rank correlation of
// the model's order with the measured times; then geometric means and the
// worst shape.
//
// A dataset is a directory in the format of data/h200-triton/:
//   configs.jsonl  one configuration a line: BM, BN, BK, stages, warps, key, and
//                  n_regs, n_spills, shared, occupancy (compiled) or error (refused);
//                  optional "class" (what the compiler specialized on, see
//                  problem_class): a dataset of several classes holds one
//                  line per (class, key); optional "split_k" (1) and
//                  "variant" ("none", or how a split kernel combines its
//                  partial tiles: "workspace", "atomic")
//   timings.jsonl  one (case, configuration) a line: M, N, K, key, ms, and
//                  optional dtype (float16), a_layout, b_layout (row), class;
//                  key "cublas" is the vendor library's time for the case;
//                  lines with "variant": "aux" (auxiliary kernels timed
//                  alone) or "gemm_alone" (a split kernel's GEMM timed
//                  without its reduction) are skipped
//   split.json     optional: {"calibration": ["MxNxK[:dtype:LL]", ...], "held_out": [...],
//                  "superseded": {"shapes": [...], "by": "DIR", "why": "..."}}; a
//                  superseded case (its rows replaced by a later measurement,
//                  "by") is dropped as the dataset is read: nothing scores or
//                  fits it
//   meta.json      optional: how it was measured; validate reads "gpu" (the
//                  driver's name), "sm_count", "l2_bytes" and
//                  "compute_capability" ("9.0") when all four are there, to
//                  match the device preset to the GPU (preset_for)
//
// A case is a shape with an input type and layouts, named
// "MxNxK" (float16, both row-major) or "MxNxK:dtype:LL" (L = r row, c col;
// A then B), e.g. "4096x4096x4096:float8_e4m3:rc".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"

namespace tileplan {

struct MeasuredConfig {
  std::string key;            // e.g. "128x256x64_s4_w8"
  std::string klass;          // "" (a dataset of one class) or e.g. "float16:rr:MNk"
  TileConfig config;          // threads = 32 * warps, instr = wgmma, split_k
  std::string variant;        // "" (not given), "none", "workspace", "atomic", ...
  bool compiled = false;      // false: the compiler refused it (`error`)
  int64_t regs_per_thread = 0;
  int64_t spills = 0;         // n_spills
  int64_t smem_bytes = 0;     // shared
  int64_t blocks_per_sm = 0;  // occupancy, as the driver granted it
};

// What NVML reported while a timing row was timed: the harnesses record it
// since data/h100-profile-power (sm_clock_mhz, clock_reasons); older
// datasets carry none.
struct RowClock {
  double mhz = 0;             // the SM clock (sm_clock_mhz), 1 to 10000
  bool power_capped = false;  // clock_reasons names sw_power_cap or hw_power_brake
};

// Rows that carry a clock (rows of them, capped power-capped): their least,
// median (the upper of an even count) and most clock in MHz, 0 without rows.
struct ClockRange {
  std::size_t rows = 0, capped = 0;
  double min_mhz = 0, median_mhz = 0, max_mhz = 0;
};

struct MeasuredShape {
  GemmProblem problem;
  std::optional<double> cublas_ms;
  // (index into Dataset::configs, median ms), in the file's order.
  std::vector<std::pair<std::size_t, double>> times_ms;
  std::optional<RowClock> cublas_clock;
  // (index into Dataset::configs, its row's clock) for the rows that carry one.
  std::vector<std::pair<std::size_t, RowClock>> clocks;
};

enum class Split { unlabelled, calibration, held_out };
std::string_view to_string(Split s);

// The GPU a dataset was measured on, as its meta.json records it (the
// harnesses in bench/gpu write "gpu", "sm_count", "l2_bytes" and
// "compute_capability").
struct MeasuredGpu {
  std::string name;                // the driver's name, e.g. "NVIDIA H100 80GB HBM3"
  int64_t sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t compute_capability = 0;  // e.g. 90 for "9.0"
};

struct Dataset {
  std::string dir;
  std::optional<MeasuredGpu> gpu;  // from meta.json; nothing without one, or one without those four fields
  std::vector<MeasuredConfig> configs;  // in the sweep's order (block_M, block_N, block_K, stages, threads)
  std::vector<MeasuredShape> shapes;    // in order of first appearance
  bool has_split = false;
  std::vector<GemmProblem> calibration, held_out;  // from split.json
  std::vector<GemmProblem> superseded;             // from split.json; not in `shapes`
  std::string superseded_by;                       // split.json's superseded.by: what replaces them
};

// Limits on what a dataset may hold, checked as it is read.
inline constexpr std::size_t kMaxDatasetLineBytes = 1 << 16;  // one JSON Lines line
inline constexpr std::size_t kMaxSplitFileBytes = 1 << 24;    // split.json
inline constexpr std::size_t kMaxMetaFileBytes = 1 << 24;     // meta.json
inline constexpr double kMinMeasuredMs = 1e-6, kMaxMeasuredMs = 1e6;

// Whether a device preset describes a measured GPU: the same SM count, L2
// size and compute capability, the facts meta.json records that the models
// read of a device.
bool describes(const Device& d, const MeasuredGpu& g);
// The first preset (device_presets() order) that describes the GPU of every
// dataset; nothing when a dataset records no GPU, the datasets' GPUs differ,
// or no preset describes them.
std::optional<Device> preset_for(const std::vector<Dataset>& sets);
// When a dataset records a GPU the preset does not describe, one line that
// says so and names the preset that does, if one does ("DIR was measured on
// NVIDIA H100 80GB HBM3 (132 SMs, 50 MiB of L2, sm_90), which the h200 preset
// does not describe (132 SMs, 60 MiB of L2, sm_90); the h100-sxm preset does");
// nothing otherwise.
std::optional<std::string> measured_elsewhere(const Dataset& d, const Device& dev);

// Reads a dataset directory. The error (parse_error or io_error) names the
// file and line ("DIR/timings.jsonl:12: ..."); a (shape, configuration) timed
// twice is an error.
Result<Dataset> load_dataset(const std::string& dir);

// "MxNxK" or "MxNxK:dtype:LL" -> problem (packed operands); nothing when malformed.
std::optional<GemmProblem> parse_shape(std::string_view s);
// The case's name: "MxNxK" for float16 with both operands row-major, else "MxNxK:dtype:LL".
std::string shape_name(const GemmProblem& p);
// What a Triton kernel is specialized on for a packed problem:
// "dtype:LL:FFF", FFF = M, N, K, each upper case when a multiple of 16,
// "1" when equal to 1 (Triton specializes an integer argument equal to 1
// apart), lower case otherwise: e.g. "float16:rr:MNk" (K = 1000),
// "float16:rr:1NK" (a decode step of one token). The unit validate scores
// and groups by.
std::string problem_class(const GemmProblem& p);

// A shape's split: the first dataset whose split.json lists it decides.
Split split_of(const std::vector<Dataset>& datasets, const GemmProblem& p);

// ---- scoring ----------------------------------------------------------------------

// Spearman's rank correlation of x and y (average ranks for ties); 0 when
// either has no spread, or when their lengths differ or are below 2.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
// Geometric mean; 1 for an empty list, NaN when a value is not positive.
double geomean(const std::vector<double>& v);

struct RankingScore {
  std::size_t top1 = 0;       // candidate index of the first pick
  double top1_regret = 1.0;   // measured(top1) / best measured
  double top5_regret = 1.0;   // min measured over the first five / best measured
  double spearman = 0.0;      // rank position against measured time
};
// `order`: candidate indices, best first; `measured_ms`: each candidate's measured time.
//   error (param "order", "measured_ms"): order is not a permutation of
//   0..n-1 with n = measured_ms.size() >= 1, or a time is not positive and finite.
Result<RankingScore> score_ranking(const std::vector<std::size_t>& order, const std::vector<double>& measured_ms);

struct ShapeScore {
  std::string dataset;
  GemmProblem problem;
  std::string group;  // problem_class(problem)
  Split split = Split::unlabelled;
  std::optional<double> cublas_ms;
  std::size_t candidates = 0;
  std::string best_key;
  double best_ms = 0;
  // Configurations of a variant the family does not model (a split kernel
  // other than its split_k variant) are left out of the candidates.
  std::size_t unmodelled = 0;
  double pick_ms = 0;            // measured time of the calibrated model's first pick
  // Its predicted time (ms), when the model predicted one (feasible); 0 otherwise.
  double pick_predicted_ms = 0;
  int64_t pick_split_k = 1;      // its split factor
  std::optional<double> best_unsplit_ms;  // the best measured split_k 1 candidate
  bool has_splits = false;       // some candidate has split_k > 1
  RankingScore calibrated, seed;
  std::string calibrated_top1_key, seed_top1_key;
  // The clocks of the candidates' rows that carry one; the pick's, the
  // best's and cuBLAS's where their rows carry one.
  ClockRange clock;
  std::optional<RowClock> pick_clock, best_clock, cublas_clock;
};

// The clocks of every scored shape's rows: the candidates' and cuBLAS's.
struct ClockSummary {
  ClockRange candidates;
  std::size_t cublas_rows = 0, cublas_capped = 0;
};

struct ScoreSummary {
  std::size_t shapes = 0;
  double top1_geomean = 1, top1_worst = 1, top5_geomean = 1, top5_worst = 1, spearman_mean = 0;
  std::size_t top1_worst_shape = 0;  // index into ValidationReport::shapes
  // How far the calibrated model's predicted time is from the measured one:
  // the first pick's measured / predicted time, over the shapes whose pick
  // has a prediction (time_ratio_shapes of them; none for the seed model).
  std::size_t time_ratio_shapes = 0;
  double time_ratio_geomean = 1, time_ratio_min = 1, time_ratio_max = 1;
};

struct GroupScore {
  std::string group;              // problem_class
  std::vector<std::size_t> shapes;  // indices into ValidationReport::shapes
  ScoreSummary calibrated, seed;  // top1_worst_shape indexes `shapes` of this group
};

struct ValidationReport {
  std::vector<ShapeScore> shapes;
  ScoreSummary calibrated, seed;  // over every shape
  ClockSummary clocks;            // over every shape; no rows where none carries a clock
  std::vector<GroupScore> groups; // per problem class, in order of first appearance
};

enum class SplitFilter { all, calibration, held_out };

// Ranks each selected shape's measured configurations with the calibrated
// model (family `family`) and with the seed model, and scores both. Split
// configurations (split_k > 1) are candidates when the family models their
// variant; the seed model, which never splits, ranks them after the others. An error
// only for a device or family its checker refuses, or a Dataset not built by
// load_dataset whose indices or times are out of range.
Result<ValidationReport> validate(const Device& dev, const std::vector<Dataset>& datasets, SplitFilter filter,
                                  const KernelFamily& family = default_family());
ScoreSummary summarize(const std::vector<ShapeScore>& shapes, bool calibrated);

}  // namespace tileplan

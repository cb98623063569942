// tileplan tile: sweep a search space, diagnose one configuration, or plan
// every GEMM of a shapes file (JSON Lines, a table or CSV).
#include <algorithm>
#include <charconv>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/render/emit.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan::cli {
namespace {

struct TileFlags {
  std::string m = "4096", n = "4096", k = "4096";
  GemmProblem problem;
  std::string instr = "auto";
  std::string model = "calibrated";
  std::string family = "triton";
  std::string family_file;
  std::string emit;
  DeviceFlags device;
  std::string block_m, block_n, block_k, stages, threads, split_k;
  std::string topk = "15";
  bool diagnose = false;
  std::string format = "text";
  std::string shapes;
  std::string output;
  std::string dtype = "float16", out_dtype, a_layout = "row", b_layout = "row";
  std::string lda, ldb, ldc;  // empty: packed
};

std::string clipped(const std::string& text) { return text.size() > 60 ? text.substr(0, 60) + "..." : text; }

std::optional<DType> parse_input_type(std::string_view s) {
  const std::optional<DType> t = parse_dtype(s);
  if (t && is_input_type(*t)) return t;
  return std::nullopt;
}

// --dtype, --out-dtype, --a-layout, --b-layout, --lda, --ldb, --ldc into the
// problem (the shape stays); the rules that join them to M, N, K are
// check_problem's, applied once the shape is known.
void apply_type_flags(const TileFlags& fl, GemmProblem& p) {
  const std::optional<DType> in = parse_input_type(fl.dtype);
  if (!in) throw UsageError(fmt::format("--dtype '{}' is not one of: {}", fl.dtype, input_type_names()));
  p.dtype = *in;
  if (!fl.out_dtype.empty()) {
    const std::optional<DType> out = parse_dtype(fl.out_dtype);
    if (!out || !is_output_type(*out))
      throw UsageError(fmt::format("--out-dtype '{}' is not one of: {}", fl.out_dtype, output_type_names()));
    p.out_dtype = *out;
  }
  for (const auto& [flag, text, layout] : {std::tuple{"--a-layout", &fl.a_layout, &p.a_layout},
                                           std::tuple{"--b-layout", &fl.b_layout, &p.b_layout}}) {
    const std::optional<Layout> l = parse_layout(*text);
    if (!l) throw UsageError(fmt::format("{} '{}' is not one of: row, col", flag, *text));
    *layout = *l;
  }
  for (const auto& [flag, text, ld] : {std::tuple{"--lda", &fl.lda, &p.lda}, std::tuple{"--ldb", &fl.ldb, &p.ldb},
                                       std::tuple{"--ldc", &fl.ldc, &p.ldc}})
    if (!text->empty()) *ld = parse_int(flag, *text);
}

void check_list(const char* flag, const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    TileConfig c;  // validate one value through the one checker
    if (std::string_view(flag) == "--block-m") c.block_m = v;
    if (std::string_view(flag) == "--block-n") c.block_n = v;
    if (std::string_view(flag) == "--block-k") c.block_k = v;
    if (std::string_view(flag) == "--stages") c.stages = v;
    if (std::string_view(flag) == "--threads") c.threads = v;
    if (std::string_view(flag) == "--split-k") c.split_k = v;
    require(check_config(c));
  }
}

// --split-k takes one word besides integers: a value without a digit that is
// not `auto` is named with both forms (one with digits is an integer list).
void check_split_word(const char* flag, const std::string& given) {
  if (std::string_view(flag) == "--split-k" && !given.empty() && given.find_first_of("0123456789") == std::string::npos)
    throw UsageError(fmt::format("--split-k '{}' is neither a comma list of integers nor auto", given));
}

// A list flag in sweep mode replaces that dimension's candidates; in diagnose
// mode it must hold exactly one value (default: the reference's).
std::vector<int64_t> pick(const CLI::App& app, const char* flag, const std::string& given,
                          const std::vector<int64_t>& fallback) {
  if (app.count(flag) == 0) return fallback;
  // --split-k auto: the factors the family's split kernel was measured with.
  if (std::string_view(flag) == "--split-k" && given == "auto")
    return {std::begin(kSplitFactors), std::end(kSplitFactors)};
  check_split_word(flag, given);
  std::vector<int64_t> values = parse_int_list(flag, given);
  check_list(flag, values);
  return values;
}

int64_t single(const CLI::App& app, const char* flag, const std::string& given, int64_t fallback) {
  if (app.count(flag) == 0) return fallback;
  if (std::string_view(flag) == "--split-k" && given == "auto")
    throw UsageError("--split-k auto: --diagnose takes one split factor (its split-K line already weighs every one)");
  check_split_word(flag, given);
  const std::vector<int64_t> values = parse_int_list(flag, given);
  if (values.size() != 1)
    throw UsageError(fmt::format("{}: --diagnose takes exactly one value, got {}", flag, values.size()));
  check_list(flag, values);
  return values.front();
}

// What the CLI calls the library's parameters of a problem and a search space.
// (Every other parameter of check_problem is its flag by the default rule:
// "lda" -> "--lda", "out_dtype" -> "--out-dtype".)
const std::initializer_list<std::pair<std::string_view, std::string_view>> kProblemFlags = {{"m/n/k", "--m/--n/--k"}};
const std::initializer_list<std::pair<std::string_view, std::string_view>> kSpaceFlags = {
    {"space", "the search space (--block-m x --block-n x --block-k x --stages x --threads x --split-k)"}};

// A problem-file line's check: the file's column names (M, N, K) for the
// library's parameters, after "PATH:LINE: "; the leading dimensions and the
// output type come from flags and keep the flags' names.
void require_with_prefix(const Status& s, const std::string& prefix) {
  if (s.ok()) return;
  throw UsageError(prefix + flag_message(s.error(), {{"m/n/k", "M/N/K"}, {"m", "M"}, {"n", "N"}, {"k", "K"}}));
}

bool parse_token(std::string_view tok, int64_t& out) {
  if (tok.empty()) return false;
  auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  return ec == std::errc() && ptr == tok.data() + tok.size();
}

// Limits of a shapes file, named in the messages.
constexpr std::size_t kMaxShapeLineBytes = 4096;
constexpr std::size_t kMaxShapes = std::size_t{1} << 22;

// The fields of a shapes-file line, and how many it may have.
constexpr std::string_view kShapeLine = "`M N K [dtype] [a-layout] [b-layout]`";
constexpr std::size_t kMaxShapeFields = 6;

// Shapes file: one `M N K [dtype] [a-layout] [b-layout]` a line, fields
// separated by whitespace or commas; `#` starts a comment. A field left out
// is `base`'s (the flags'). Read whole and checked before anything is
// written, so that a bad line leaves stdout empty.
std::vector<GemmProblem> read_shapes(const std::string& path, const GemmProblem& base) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(fmt::format("--shapes '{}': a directory, not a file", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("--shapes '{}': the file cannot be opened for reading", path));
  std::vector<GemmProblem> out;
  std::string line;
  int64_t number = 0;
  while (true) {
    line.clear();
    int c = 0;
    while ((c = f.get()) != std::char_traits<char>::eof() && c != '\n') {
      if (line.size() == kMaxShapeLineBytes)
        throw UsageError(fmt::format("{}:{}: the line is longer than {} bytes", path, number + 1, kMaxShapeLineBytes));
      line.push_back(static_cast<char>(c));
    }
    if (c == std::char_traits<char>::eof() && line.empty()) break;
    ++number;
    std::string body = line.substr(0, line.find('#'));
    for (char& ch : body)
      if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
    std::istringstream tokens(body);
    std::vector<std::string> parts;
    for (std::string t; parts.size() <= kMaxShapeFields && tokens >> t;) parts.push_back(t);
    if (parts.empty()) continue;
    GemmProblem p = base;
    if (parts.size() > kMaxShapeFields)
      throw UsageError(fmt::format("{}:{}: more than {} fields: expected {} (or comma-separated), got '{}'", path,
                                   number, kMaxShapeFields, kShapeLine, clipped(line)));
    if (parts.size() < 3 || !parse_token(parts[0], p.m) || !parse_token(parts[1], p.n) || !parse_token(parts[2], p.k))
      throw UsageError(fmt::format("{}:{}: expected {} with integers M, N, K (or comma-separated), got '{}'", path,
                                   number, kShapeLine, clipped(line)));
    if (parts.size() > 3) {
      const std::optional<DType> t = parse_input_type(parts[3]);
      if (!t)
        throw UsageError(fmt::format("{}:{}: type '{}' is not one of: {} (layouts follow the type: {})", path, number,
                                     clipped(parts[3]), input_type_names(), kShapeLine));
      p.dtype = *t;
    }
    for (std::size_t i = 4; i < parts.size(); ++i) {
      const std::optional<Layout> l = parse_layout(parts[i]);
      if (!l)
        throw UsageError(fmt::format("{}:{}: {} '{}' is not one of: row, col", path, number,
                                     i == 4 ? "a-layout" : "b-layout", clipped(parts[i])));
      (i == 4 ? p.a_layout : p.b_layout) = *l;
    }
    require_with_prefix(check_problem(p), fmt::format("{}:{}: ", path, number));
    if (out.size() == kMaxShapes)
      throw UsageError(fmt::format("--shapes '{}': more than {} shapes; split the file", path, kMaxShapes));
    out.push_back(p);
  }
  if (f.bad()) throw UsageError(fmt::format("--shapes '{}': reading failed", path));
  if (out.empty()) throw UsageError(fmt::format("--shapes '{}': the file holds no shapes", path));
  return out;
}

// The kernel family: --family NAME (shipped) or --family-file PATH; the seed
// model is the seed family's rule.
KernelFamily resolve_family(const CLI::App& app, const TileFlags& fl, Model model) {
  if (app.count("--family") && app.count("--family-file"))
    throw UsageError("--family and --family-file cannot be combined: give one kernel family");
  if (model == Model::seed) {
    if (app.count("--family-file"))
      throw UsageError("--family-file needs --model calibrated: the seed model counts accumulators only");
    if (app.count("--family") && fl.family != "seed")
      throw UsageError(fmt::format("--family {} needs --model calibrated: the seed model counts accumulators only",
                                   fl.family));
    return find_family("seed").value();
  }
  if (app.count("--family-file")) {
    Result<KernelFamily> f = load_family_file(fl.family_file);
    require(f.status(), {{"family", "--family-file"}});
    return std::move(f).value();
  }
  Result<KernelFamily> f = find_family(fl.family);
  require(f.status());
  return std::move(f).value();
}

// One shape of a batch: its lines, and what the total sums.
struct ShapeResult {
  std::string text;
  bool planned = false;   // at least one feasible configuration
  double pick_us = 0;     // the first pick's predicted time (calibrated model)
  double flops = 0;       // 2*M*N*K where pick_us holds a prediction
  std::optional<render::TileReport> report;  // --emit: the shape's report, for BatchEmit in the file's order
  std::exception_ptr error;
};

// Every shape of the file, planned on up to kBatchJobs threads in blocks
// (the planner is safe to share: its class tables are built under a lock
// and immutable after) and written in the file's order, so the output is
// the same byte for byte whatever the number of threads. JSON Lines unless
// --format asks for the table or CSV; those show each shape's first pick
// unless --topk says more. With --emit: one autotune list per kernel, the
// union of every shape's first 3 (--topk), 3 being what the measured
// end-to-end autotune kept (README, "Measured end to end on an H200").
constexpr unsigned kBatchJobs = 8;
constexpr std::size_t kEmitTopK = 3;
constexpr std::size_t kBatchBlock = 256;

void plan_shapes(const CLI::App& app, const TileFlags& fl, Model model, const Planner& planner, int64_t topk_value,
                 const render::TileReport& base, std::optional<render::Emit> emit_as) {
  const std::string format = emit_as ? "emit" : app.count("--format") ? fl.format : "json";
  const std::size_t topk = app.count("--topk") ? static_cast<std::size_t>(topk_value)
                           : emit_as          ? kEmitTopK
                           : format != "json" ? std::size_t{1}
                                              : static_cast<std::size_t>(topk_value);
  const std::vector<GemmProblem> shapes = read_shapes(fl.shapes, fl.problem);
  Output out = Output::open(fl.output);
  const std::string device_text = render::device_json(*base.device);
  render::PlanTotals totals;
  std::optional<render::BatchEmit> batch_emit;
  if (emit_as) batch_emit.emplace(*emit_as);
  if (format == "text") out.write(render::plan_text_header(base));
  if (format == "csv") out.write(render::plan_csv_header());

  const auto plan_one = [&](const GemmProblem& p, render::TileReport& report, std::vector<Verdict>& all,
                            ShapeResult& res) {
    report.problem = p;
    report.stages_inert = stages_have_no_effect(p, model);
    report.c1_c3_count = format == "text" || format == "csv" ? planner.shape_independent_feasible(p) : 0;
    Result<std::size_t> n = planner.plan_into(p, topk, all);
    require(n.status(), kProblemFlags);
    report.feasible_count = *n;
    if (emit_as) {  // no padding advice: the lists are for the shapes as given
      if (all.empty()) report.c1_c3_count = planner.shape_independent_feasible(p);  // why none
      res.report = report;
      res.report->candidates = all;
      return;
    }
    Result<std::optional<PaddingAdvice>> padding = padding_advice(planner, p);
    require(padding.status(), kProblemFlags);
    report.padding = std::move(*padding);
    report.candidates.swap(all);
    if (!report.candidates.empty()) {
      res.planned = true;
      if (report.candidates.front().predicted) {
        res.pick_us = report.candidates.front().predicted_us;
        res.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
      }
    }
    if (format == "text")
      render::append_plan_text_rows(report, res.text);
    else if (format == "csv")
      render::append_plan_csv_rows(report, res.text);
    else {
      render::append_tile_json_line(report, res.text);
      res.text += '\n';
    }
    report.candidates.swap(all);
  };

  const unsigned jobs = std::clamp(std::thread::hardware_concurrency(), 1u, kBatchJobs);
  std::vector<ShapeResult> results;
  for (std::size_t start = 0; start < shapes.size(); start += kBatchBlock) {
    const std::size_t end = std::min(shapes.size(), start + kBatchBlock);
    results.assign(end - start, ShapeResult{});
    const auto work = [&](std::size_t first) {
      render::TileReport report = base;
      report.device_json = &device_text;
      std::vector<Verdict> all;
      for (std::size_t i = start + first; i < end; i += jobs) try {
          plan_one(shapes[i], report, all, results[i - start]);
        } catch (...) {
          results[i - start].error = std::current_exception();
        }
    };
    const std::size_t helpers = std::min<std::size_t>(jobs, end - start) - 1;
    std::vector<std::thread> threads;
    threads.reserve(helpers);
    for (std::size_t w = 1; w <= helpers; ++w) threads.emplace_back(work, w);
    work(0);
    for (std::thread& t : threads) t.join();
    // In the file's order: the lines before a refused shape are written, as
    // one thread would have written them.
    for (ShapeResult& r : results) {
      if (r.error) std::rethrow_exception(r.error);
      if (batch_emit) batch_emit->add(*r.report);
      out.write(r.text);
      ++totals.shapes;
      totals.planned += r.planned ? 1 : 0;
      totals.pick_us += r.pick_us;
      totals.flops += r.flops;
    }
  }
  if (format == "text") out.write(render::plan_text_footer(totals));
  if (batch_emit) out.write(batch_emit->finish(base, fl.shapes, topk));
  out.finish();
}

void run(const CLI::App& app, TileFlags fl) {
  fl.problem.m = parse_int("--m", fl.m);
  fl.problem.n = parse_int("--n", fl.n);
  fl.problem.k = parse_int("--k", fl.k);
  apply_type_flags(fl, fl.problem);
  const int64_t topk_value = parse_int("--topk", fl.topk);
  const std::optional<Instr> instr = parse_instr(fl.instr);
  if (!instr) throw UsageError(fmt::format("--instr '{}' is not one of: auto, mma, wgmma, simt", fl.instr));
  const std::optional<Model> model = parse_model(fl.model);
  if (!model) throw UsageError(fmt::format("--model '{}' is not one of: calibrated, seed", fl.model));
  const KernelFamily family = resolve_family(app, fl, *model);
  std::optional<render::Emit> emit_as;
  if (!fl.emit.empty()) {
    emit_as = render::parse_emit(fl.emit);
    if (!emit_as) throw UsageError(fmt::format("--emit '{}' is not one of: triton, tilelang", fl.emit));
    if (app.count("--format")) throw UsageError("--emit and --format cannot be combined: --emit writes Python");
  }
  if (topk_value < 0)
    throw UsageError(fmt::format("--topk {} must be at least 0 (0 keeps every feasible one)", topk_value));
  const Device dev = fl.device.resolve();
  const Instr requested = model_instr(*instr, *model);  // the seed model: the reference's wgmma

  render::TileReport report;
  report.device = &dev;
  report.instr = requested;
  report.model = *model;
  report.family = family.name;
  report.group_m = family.group_m;
  if (*model == Model::calibrated) {
    report.measured_space = family.space;
    report.validation = validation_on(family, dev);  // the family's held-out scores, where they hold for dev
  }

  if (fl.diagnose) {
    if (!fl.shapes.empty()) throw UsageError("--diagnose and --shapes cannot be combined");
    require(check_problem(fl.problem), kProblemFlags);
    TileConfig cfg{single(app, "--block-m", fl.block_m, 128), single(app, "--block-n", fl.block_n, 128),
                   single(app, "--block-k", fl.block_k, 32),  single(app, "--stages", fl.stages, 3),
                   single(app, "--threads", fl.threads, 256), requested};
    cfg.instr = resolve_instr(cfg.instr, dev.compute_capability, cfg.block_m, cfg.threads);
    cfg.split_k = single(app, "--split-k", fl.split_k, 1);
    report.problem = fl.problem;
    report.diagnose = true;
    report.space_size = 1;
    // One split factor, given: it must fit the problem (in a sweep, one
    // beyond the K tiles is a C4 failure instead).
    if (*model == Model::calibrated && family.split_k) require(check_split(fl.problem, cfg, family), kProblemFlags);
    Result<Verdict> v = diagnose(fl.problem, dev, cfg, *model, family);
    require(v.status(), kProblemFlags);
    report.candidates.push_back(*v);
    report.feasible_count = report.candidates.front().feasible() ? 1 : 0;
    report.split_space = cfg.split_k > 1;
    if (*model == Model::calibrated) {
      Result<std::optional<SplitAdvice>> advice = split_advice(fl.problem, dev, cfg, family);
      require(advice.status(), kProblemFlags);
      report.split_advice = *advice;
      Result<std::optional<PaddingAdvice>> padding = padding_advice(fl.problem, dev, cfg, family);
      require(padding.status(), kProblemFlags);
      report.padding = std::move(*padding);
    }
  } else {
    const SearchSpace defaults = default_space(*model, family);
    SearchSpace space{pick(app, "--block-m", fl.block_m, defaults.block_m),
                      pick(app, "--block-n", fl.block_n, defaults.block_n),
                      pick(app, "--block-k", fl.block_k, defaults.block_k),
                      pick(app, "--stages", fl.stages, defaults.stages),
                      pick(app, "--threads", fl.threads, defaults.threads),
                      pick(app, "--split-k", fl.split_k, defaults.split_k)};
    report.split_space = space.split_k.size() > 1 || space.split_k.front() > 1;
    report.min_split_k = *std::min_element(space.split_k.begin(), space.split_k.end());
    // One problem: its class's table only; a shapes file: the common class's
    // at once, the others' on their first line.
    if (fl.shapes.empty()) require(check_problem(fl.problem), kProblemFlags);
    Result<Planner> planner = fl.shapes.empty()
                                  ? Planner::create(dev, *instr, std::move(space), *model, family, fl.problem)
                                  : Planner::create(dev, *instr, std::move(space), *model, family);
    require(planner.status(), kSpaceFlags);
    report.space_size = planner->space_size();
    if (!fl.shapes.empty()) {
      plan_shapes(app, fl, *model, *planner, topk_value, report, emit_as);
      return;
    }
    const auto topk = static_cast<std::size_t>(topk_value);
    report.problem = fl.problem;
    report.c1_c3_count = planner->shape_independent_feasible(fl.problem);
    report.stages_inert = stages_have_no_effect(fl.problem, *model);
    Result<std::size_t> n = planner->plan_into(fl.problem, topk, report.candidates);
    require(n.status(), kProblemFlags);
    report.feasible_count = *n;
    Result<std::optional<PaddingAdvice>> padding = padding_advice(*planner, fl.problem);
    require(padding.status(), kProblemFlags);
    report.padding = std::move(*padding);
  }
  if (emit_as)
    emit(render::emit(report, *emit_as), fl.output);
  else if (fl.format == "json")
    emit(render::tile_json(report), fl.output);
  else if (fl.format == "csv")
    emit(render::tile_csv(report), fl.output);
  else
    emit(render::tile_text(report), fl.output);
}

}  // namespace

void register_tile(CLI::App& app) {
  auto fl = std::make_shared<TileFlags>();
  CLI::App* cmd =
      app.add_subcommand("tile", "rank GEMM tile configurations (C1-C4, predicted time), or diagnose one");
  cmd->add_option("--m", fl->m, "rows of A and C")->default_val("4096");
  cmd->add_option("--n", fl->n, "columns of B and C")->default_val("4096");
  cmd->add_option("--k", fl->k, "the reduction dimension")->default_val("4096");
  cmd->add_option("--instr", fl->instr,
                  "MMA instruction family: auto (each tile's, as Triton's tl.dot picks it: wgmma on sm_90 for "
                  "block_M >= 64, else mma), mma, wgmma, simt")
      ->default_val("auto");
  cmd->add_option("--dtype", fl->dtype, "input type of A and B: float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32")
      ->default_val("float16");
  cmd->add_option("--out-dtype", fl->out_dtype,
                  "type of C: float16, bfloat16, float32 (default: the input type for 16-bit types, float16 for "
                  "fp8, float32 for tfloat32)");
  cmd->add_option("--a-layout", fl->a_layout, "A[M,K]: row (K contiguous) or col (M contiguous)")->default_val("row");
  cmd->add_option("--b-layout", fl->b_layout, "B[K,N]: row (N contiguous) or col (K contiguous, K-major)")
      ->default_val("row");
  cmd->add_option("--lda", fl->lda, "leading dimension of A in elements (default: packed)");
  cmd->add_option("--ldb", fl->ldb, "leading dimension of B in elements (default: packed)");
  cmd->add_option("--ldc", fl->ldc, "leading dimension of C in elements (default: packed)");
  fl->device.add_to(*cmd, true, true);
  const char* list_help = "comma-separated candidates (sweep) or one value (--diagnose)";
  cmd->add_option("--block-m", fl->block_m, list_help);
  cmd->add_option("--block-n", fl->block_n, list_help);
  cmd->add_option("--block-k", fl->block_k, list_help);
  cmd->add_option("--stages", fl->stages, list_help);
  cmd->add_option("--threads", fl->threads, list_help);
  cmd->add_option("--split-k", fl->split_k,
                  "split factors of K (default 1: no split), e.g. 1,2,4; auto: those the family's split kernel was measured "
                  "with (1,2,3,4,5,6,8,12,16); needs a family with a split-K model");
  cmd->add_option("--topk", fl->topk,
                  "configurations to show; 0 shows every feasible one (with --shapes: JSON Lines 15, --format "
                  "text or csv 1, --emit 3 a shape)")
      ->default_val("15");
  cmd->add_flag("--diagnose", fl->diagnose, "check one configuration and name its binding constraint");
  cmd->add_option("--model", fl->model,
                  "calibrated: registers from a kernel family's profile, ranked by predicted time; "
                  "seed: the reference procedure exactly")
      ->default_val("calibrated");
  cmd->add_option("--family", fl->family,
                  "kernel family of the calibrated model, by name (see `tileplan families`): triton (fitted on H200 "
                  "data) or seed (accumulators only)")
      ->default_val("triton");
  cmd->add_option("--family-file", fl->family_file,
                  "kernel family of the calibrated model, from a family file (data/families/*.json format)");
  cmd->add_option("--emit", fl->emit,
                  "print the shortlist as code: triton (triton.Config lines) or tilelang (a list of dicts); with "
                  "--shapes, one list per kernel (types and layouts) of every shape's first 3 (--topk), once");
  cmd->add_option("--format", fl->format, "text, json or csv")
      ->default_val("text")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_option("--shapes", fl->shapes,
                  "plan every `M N K [dtype] [a-layout] [b-layout]` line of FILE (left out: the flags'); "
                  "writes JSON Lines, or with --format text or csv one row per shape (its best; --topk for more), "
                  "or with --emit autotune lists");
  cmd->add_option("--output,-o", fl->output, "write to FILE instead of standard output");
  cmd->callback([cmd, fl] { run(*cmd, *fl); });
}

}  // namespace tileplan::cli

// tileplan tile: sweep a search space, diagnose one configuration, or plan
// every GEMM of a shapes file (JSON Lines).
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/render/emit.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan::cli {
namespace {

struct TileFlags {
  std::string m = "4096", n = "4096", k = "4096";
  GemmProblem problem;
  std::string instr = "wgmma";
  std::string model = "calibrated";
  std::string family = "triton";
  std::string emit;
  DeviceFlags device;
  std::string block_m, block_n, block_k, stages, threads;
  std::string topk = "15";
  bool diagnose = false;
  std::string format = "text";
  std::string shapes;
  std::string output;
};

void check_list(const char* flag, const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    TileConfig c;  // validate one value through the one checker
    if (std::string_view(flag) == "--block-m") c.block_m = v;
    if (std::string_view(flag) == "--block-n") c.block_n = v;
    if (std::string_view(flag) == "--block-k") c.block_k = v;
    if (std::string_view(flag) == "--stages") c.stages = v;
    if (std::string_view(flag) == "--threads") c.threads = v;
    require(check_config(c));
  }
}

// A list flag in sweep mode replaces that dimension's candidates; in diagnose
// mode it must hold exactly one value (default: the reference's).
std::vector<int64_t> pick(const CLI::App& app, const char* flag, const std::string& given,
                          const std::vector<int64_t>& fallback) {
  if (app.count(flag) == 0) return fallback;
  std::vector<int64_t> values = parse_int_list(flag, given);
  check_list(flag, values);
  return values;
}

int64_t single(const CLI::App& app, const char* flag, const std::string& given, int64_t fallback) {
  if (app.count(flag) == 0) return fallback;
  const std::vector<int64_t> values = parse_int_list(flag, given);
  if (values.size() != 1)
    throw UsageError(fmt::format("{}: --diagnose takes exactly one value, got {}", flag, values.size()));
  check_list(flag, values);
  return values.front();
}

bool parse_token(std::string_view tok, int64_t& out) {
  if (tok.empty()) return false;
  auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  return ec == std::errc() && ptr == tok.data() + tok.size();
}

// Shapes file: one `M N K` or `M,N,K` a line; `#` starts a comment.
std::vector<GemmProblem> read_shapes(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("--shapes '{}': the file cannot be opened for reading", path));
  std::vector<GemmProblem> out;
  std::string line;
  int64_t number = 0;
  while (std::getline(f, line)) {
    ++number;
    std::string body = line.substr(0, line.find('#'));
    for (char& c : body)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::istringstream tokens(body);
    std::vector<std::string> parts;
    for (std::string t; tokens >> t;) parts.push_back(t);
    if (parts.empty()) continue;
    GemmProblem p;
    if (parts.size() != 3 || !parse_token(parts[0], p.m) || !parse_token(parts[1], p.n) || !parse_token(parts[2], p.k))
      throw UsageError(fmt::format("{}:{}: expected three integers `M N K` or `M,N,K`, got '{}'", path, number,
                                   line.size() > 60 ? line.substr(0, 60) + "..." : line));
    if (auto err = check_problem(p, {"M", "N", "K"})) throw UsageError(fmt::format("{}:{}: {}", path, number, *err));
    out.push_back(p);
  }
  if (f.bad()) throw UsageError(fmt::format("--shapes '{}': reading failed", path));
  if (out.empty()) throw UsageError(fmt::format("--shapes '{}': the file holds no shapes", path));
  return out;
}

void run(const CLI::App& app, TileFlags fl) {
  fl.problem.m = parse_int("--m", fl.m);
  fl.problem.n = parse_int("--n", fl.n);
  fl.problem.k = parse_int("--k", fl.k);
  const int64_t topk_value = parse_int("--topk", fl.topk);
  const std::optional<Instr> instr = parse_instr(fl.instr);
  if (!instr) throw UsageError(fmt::format("--instr '{}' is not one of: mma, wgmma, simt", fl.instr));
  const std::optional<Model> model = parse_model(fl.model);
  if (!model) throw UsageError(fmt::format("--model '{}' is not one of: calibrated, seed", fl.model));
  const std::optional<Family> family = parse_family(fl.family);
  if (!family) throw UsageError(fmt::format("--family '{}' is not one of: triton, seed", fl.family));
  if (*model == Model::seed && *family != Family::seed && app.count("--family"))
    throw UsageError(fmt::format("--family {} needs --model calibrated: the seed model counts accumulators only",
                                 fl.family));
  std::optional<render::Emit> emit_as;
  if (!fl.emit.empty()) {
    emit_as = render::parse_emit(fl.emit);
    if (!emit_as) throw UsageError(fmt::format("--emit '{}' is not one of: triton, tilelang", fl.emit));
    if (app.count("--format")) throw UsageError("--emit and --format cannot be combined: --emit writes Python");
    if (!fl.shapes.empty()) throw UsageError("--emit and --shapes cannot be combined: --emit writes one shortlist");
  }
  if (topk_value < 0)
    throw UsageError(fmt::format("--topk {} must be at least 0 (0 keeps every feasible one)", topk_value));
  const Device dev = fl.device.resolve();

  render::TileReport report;
  report.device = &dev;
  report.instr = *instr;
  report.model = *model;
  report.family = *family;

  if (fl.diagnose) {
    if (!fl.shapes.empty()) throw UsageError("--diagnose and --shapes cannot be combined");
    require(check_problem(fl.problem));
    const TileConfig cfg{single(app, "--block-m", fl.block_m, 128), single(app, "--block-n", fl.block_n, 128),
                         single(app, "--block-k", fl.block_k, 32),  single(app, "--stages", fl.stages, 3),
                         single(app, "--threads", fl.threads, 256), *instr};
    report.problem = fl.problem;
    report.diagnose = true;
    report.space_size = 1;
    report.candidates.push_back(diagnose(fl.problem, dev, cfg, *model, *family));
    report.feasible_count = report.candidates.front().feasible() ? 1 : 0;
  } else {
    const SearchSpace defaults;
    SearchSpace space{pick(app, "--block-m", fl.block_m, defaults.block_m),
                      pick(app, "--block-n", fl.block_n, defaults.block_n),
                      pick(app, "--block-k", fl.block_k, defaults.block_k),
                      pick(app, "--stages", fl.stages, defaults.stages),
                      pick(app, "--threads", fl.threads, defaults.threads)};
    const Planner planner(dev, *instr, space, *model, *family);
    report.space_size = space.size();
    const auto topk = static_cast<std::size_t>(topk_value);
    if (!fl.shapes.empty()) {
      if (fl.format != "json" && app.count("--format"))
        throw UsageError("--shapes writes JSON Lines: --format must be json (or left out)");
      std::string out;
      std::vector<Verdict> all;
      const std::string device_text = render::device_json(dev);
      report.device_json = &device_text;
      for (const GemmProblem& p : read_shapes(fl.shapes)) {
        report.problem = p;
        report.feasible_count = planner.plan_into(p, topk, all);
        report.candidates.swap(all);
        render::append_tile_json_line(report, out);
        report.candidates.swap(all);
        out += '\n';
      }
      emit(out, fl.output);
      return;
    }
    require(check_problem(fl.problem));
    report.problem = fl.problem;
    report.feasible_count = planner.plan_into(fl.problem, topk, report.candidates);
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
  cmd->add_option("--instr", fl->instr, "MMA instruction family: mma, wgmma, simt")->default_val("wgmma");
  fl->device.add_to(*cmd);
  const char* list_help = "comma-separated candidates (sweep) or one value (--diagnose)";
  cmd->add_option("--block-m", fl->block_m, list_help);
  cmd->add_option("--block-n", fl->block_n, list_help);
  cmd->add_option("--block-k", fl->block_k, list_help);
  cmd->add_option("--stages", fl->stages, list_help);
  cmd->add_option("--threads", fl->threads, list_help);
  cmd->add_option("--topk", fl->topk, "configurations to show; 0 shows every feasible one")->default_val("15");
  cmd->add_flag("--diagnose", fl->diagnose, "check one configuration and name its binding constraint");
  cmd->add_option("--model", fl->model,
                  "calibrated: registers from a kernel family's profile, ranked by predicted time; "
                  "seed: the reference procedure exactly")
      ->default_val("calibrated");
  cmd->add_option("--family", fl->family,
                  "kernel family of the calibrated model: triton (fitted on H200 data) or seed (accumulators only)")
      ->default_val("triton");
  cmd->add_option("--emit", fl->emit,
                  "print the shortlist as code: triton (triton.Config lines) or tilelang (a list of dicts)");
  cmd->add_option("--format", fl->format, "text, json or csv")
      ->default_val("text")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_option("--shapes", fl->shapes, "plan every `M N K` line of FILE; writes JSON Lines");
  cmd->add_option("--output,-o", fl->output, "write to FILE instead of standard output");
  cmd->callback([cmd, fl] { run(*cmd, *fl); });
}

}  // namespace tileplan::cli

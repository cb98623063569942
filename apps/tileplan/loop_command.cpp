// tileplan loop: how a T.Parallel nest lands on threads (the plan, a summary,
// the memory instructions it issues), or a comparison of nest shapes.
#include <cstdio>
#include <initializer_list>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/loop.hpp"
#include "tileplan/render/loop.hpp"

namespace tileplan::cli {
namespace {

// The library's parameter names, as flags ("extents" -> "--extents" and the like by the default rule).
const std::initializer_list<std::pair<std::string_view, std::string_view>> kLoopFlags = {
    {"perm", "--access"},
    {"list_points", "--points"},
};

struct LoopFlags {
  std::vector<std::string> extents{"128", "32"};
  std::string threads = "128";
  std::string vector = "8";
  std::string dtype = "float16";
  std::string scope = "global";
  std::string buffer_shape, access, origin;
  bool replicate = false;
  bool points = false;
  bool compare = false;
  std::string format = "text";
  std::string output;
  DeviceFlags device;
};

std::vector<int64_t> parse_extents(const std::vector<std::string>& words) {
  std::vector<int64_t> out;
  for (const std::string& w : words)
    for (int64_t v : parse_int_list("--extents", w)) out.push_back(v);
  return out;
}

void run_compare(const CLI::App& app, const LoopFlags& fl) {
  if (fl.format == "svg") throw UsageError("--compare draws no picture: use --format text or json");
  render::CompareReport report;
  // The reference compares on 8 threads with vector 2; explicit flags override.
  if (app.count("--threads")) report.threads = parse_int("--threads", fl.threads);
  if (app.count("--vector")) report.vector = parse_int("--vector", fl.vector);
  for (const std::vector<int64_t>& shape : reference_compare_shapes()) {
    const Result<ShapeComparison> row = compare_shape(shape, report.threads, report.vector);
    require(row.status(), kLoopFlags);
    report.rows.push_back(*row);
  }
  Output out = Output::open(fl.output);
  out.write(fl.format == "json" ? render::compare_json(report) : render::compare_text(report));
  out.finish();
}

void run(const CLI::App& app, const LoopFlags& fl) {
  if (fl.compare) return run_compare(app, fl);
  const Device dev = fl.device.resolve();
  LoopNest nest;
  nest.extents = parse_extents(fl.extents);
  nest.threads = parse_int("--threads", fl.threads);
  nest.replicate = fl.replicate;
  const bool vector_auto = fl.vector == "auto";
  nest.vector = vector_auto ? 1 : parse_int("--vector", fl.vector);
  Result<LoopPlan> plan = make_plan(nest);
  require(plan.status(), kLoopFlags);

  const std::optional<ElementType> dtype = find_dtype(fl.dtype);
  if (!dtype) throw UsageError(fmt::format("--dtype '{}' is not one of: {}", fl.dtype, dtype_names()));
  const std::optional<MemoryScope> scope = parse_scope(fl.scope);
  if (!scope) throw UsageError(fmt::format("--scope '{}' is not one of: global, shared", fl.scope));

  Access access = tile_access(*plan, dtype->bytes, *scope);
  if (!fl.access.empty()) access.perm = parse_int_list("--access", fl.access);
  if (!fl.origin.empty()) access.origin = parse_int_list("--origin", fl.origin);
  if (!fl.buffer_shape.empty()) {
    access.buffer_shape = parse_int_list("--buffer-shape", fl.buffer_shape);
    require(check_access(*plan, access), kLoopFlags);
  } else {
    // The default buffer is the box itself past its origin, in access order.
    Result<Access> box = box_access(*plan, access.perm, access.origin, access.elem_bytes, access.scope);
    require(box.status(), kLoopFlags);
    access = std::move(*box);
  }

  std::optional<VectorChoice> choice;
  if (vector_auto) {
    const Result<VectorChoice> chosen = choose_vector(*plan, access, dev);
    require(chosen.status(), kLoopFlags);
    choice = *chosen;
    nest.vector = choice->vector;
    plan = make_plan(nest);
    require(plan.status(), kLoopFlags);
  }
  const render::LoopFormat format = fl.format == "json"  ? render::LoopFormat::json
                                    : fl.format == "svg" ? render::LoopFormat::svg
                                                         : render::LoopFormat::text;
  const Result<render::LoopReport> report =
      render::make_loop_report(dev, *plan, access, {std::string(dtype->name), choice, fl.points, format});
  require(report.status(), kLoopFlags);

  Output out = Output::open(fl.output);
  const render::Sink sink = [&out](std::string_view piece) { out.write(piece); };
  if (format == render::LoopFormat::json)
    render::loop_json(*report, sink);
  else if (format == render::LoopFormat::svg)
    out.write(render::loop_svg(*report));
  else
    render::loop_text(*report, sink);
  out.finish();
}

}  // namespace

void register_loop(CLI::App& app) {
  auto fl = std::make_shared<LoopFlags>();
  CLI::App* cmd = app.add_subcommand(
      "loop", "how a T.Parallel nest lands on threads: the plan, idle threads and guards, memory sectors and banks");
  cmd->add_option("--extents", fl->extents, "loop extents, outermost first (E0 [E1 ...] or E0,E1,...)")
      ->expected(1, -1)
      ->default_str("128 32");
  cmd->add_option("--threads", fl->threads, "threads of the block")->default_val("128");
  cmd->add_option("--vector", fl->vector, "innermost iterations per thread and vector, or auto")->default_val("8");
  cmd->add_option("--dtype", fl->dtype, "element type of the buffer (float16, bfloat16, float32, int8, ...)")
      ->default_val("float16");
  cmd->add_option("--scope", fl->scope, "global or shared")->default_val("global");
  cmd->add_option("--buffer-shape", fl->buffer_shape,
                  "row-major shape of the whole buffer, e.g. 4096,4096 (default: the nest's box)");
  cmd->add_option("--access", fl->access, "loop axis indexing each buffer dimension: 1,0 reads buf[i1, i0]");
  cmd->add_option("--origin", fl->origin, "the box's first element in the buffer (default: all 0)");
  cmd->add_flag("--replicate", fl->replicate,
                "the body touches a fragment buffer: replicate instead of idling when groups < threads");
  cmd->add_flag("--points", fl->points, "list every point (text) or include the per-point map (json) at any size");
  cmd->add_flag("--compare", fl->compare, "compare the reference's nest shapes of 64 points (8 threads, vector 2)");
  cmd->add_option("--format", fl->format, "text, json or svg")
      ->default_val("text")
      ->check(CLI::IsMember({"text", "json", "svg"}));
  cmd->add_option("--output,-o", fl->output, "write to FILE instead of standard output");
  fl->device.add_to(*cmd, false);
  cmd->callback([cmd, fl] { run(*cmd, *fl); });
}

}  // namespace tileplan::cli

// tileplan occupancy: blocks per SM for one kernel's launch, the limit that
// sets it, and what one more block per SM would take.
#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/occupancy.hpp"
#include "tileplan/render/occupancy.hpp"

namespace tileplan::cli {
namespace {

// The library's parameter names, as flags.
const std::initializer_list<std::pair<std::string_view, std::string_view>> kOccupancyFlags = {
    {"threads_per_block", "--threads"},
    {"regs_per_thread", "--regs"},
    {"smem_dynamic_bytes", "--smem"},
    {"smem_static_bytes", "--smem-static"},
    {"carveout_percent", "--carveout"},
};

struct OccupancyFlags {
  DeviceFlags device;
  std::string threads, regs, smem = "0", smem_static = "0", carveout;
  std::string format = "text";
};

void run(const OccupancyFlags& fl) {
  OccupancyInput in;
  in.threads_per_block = parse_int("--threads", fl.threads);
  in.regs_per_thread = parse_int("--regs", fl.regs);
  in.smem_dynamic_bytes = parse_bytes("--smem", fl.smem);
  in.smem_static_bytes = parse_bytes("--smem-static", fl.smem_static);
  if (!fl.carveout.empty()) in.carveout_percent = parse_int("--carveout", fl.carveout);
  const Device dev = fl.device.resolve();
  require(check_occupancy_input(dev, in), kOccupancyFlags);
  const Result<render::OccupancyReport> report = render::make_occupancy_report(dev, in);
  require(report.status(), kOccupancyFlags);
  emit(fl.format == "json" ? render::occupancy_json(*report) : render::occupancy_text(*report));
}

}  // namespace

void register_occupancy(CLI::App& app) {
  auto fl = std::make_shared<OccupancyFlags>();
  CLI::App* cmd = app.add_subcommand("occupancy", "blocks per SM as the hardware grants them, the limiter, the next step");
  fl->device.add_to(*cmd);
  cmd->add_option("--threads", fl->threads, "threads per block")->required();
  cmd->add_option("--regs", fl->regs, "registers per thread (ptxas -v, cudaFuncAttributes::numRegs)")->required();
  cmd->add_option("--smem", fl->smem, "dynamic shared memory per block in bytes; K/KB/KiB and M suffixes")
      ->default_val("0");
  cmd->add_option("--smem-static", fl->smem_static, "static shared memory per block (ptxas -v); at most 48 KB")
      ->default_val("0");
  cmd->add_option("--carveout", fl->carveout,
                  "preferred shared-memory carveout, percent of the largest (cudaFuncAttributePreferredSharedMemory"
                  "Carveout); default: the driver's choice");
  cmd->add_option("--format", fl->format, "text or json")->default_val("text")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([fl] { run(*fl); });
}

}  // namespace tileplan::cli

#include "tileplan/render/family.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tileplan::render {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s.empty() ? "-" : s;
}

template <std::size_t N>
void constants_text(std::string& s, const std::array<ConstantInfo, N>& info, const std::array<double, N>& values,
                    const std::array<std::string, N>& sources, const std::string& fallback) {
  auto o = std::back_inserter(s);
  // One column for the names, as wide as the longest.
  std::size_t width = 0;
  for (const ConstantInfo& c : info) width = std::max(width, c.name.size());
  for (std::size_t i = 0; i < N; ++i)
    fmt::format_to(o, "    {:<{}} {:>14.9g} {:<8} {}\n", info[i].name, width, values[i], info[i].unit,
                   sources[i].empty() ? fallback : sources[i]);
}

}  // namespace

std::string families_text(const std::vector<KernelFamily>& families) {
  std::string s;
  auto o = std::back_inserter(s);
  fmt::format_to(o, "{:<12} {:<32} {:<8} {:<12} {:>7}  {}\n", "name", "file", "device", "input types", "group_m",
                 "fitted on");
  for (const KernelFamily& f : families)
    fmt::format_to(o, "{:<12} {:<32} {:<8} {:<12} {:>7}  {}\n", f.name, f.file, f.device, joined(f.input_types),
                   f.group_m, joined(f.data));
  for (const KernelFamily& f : families) {
    fmt::format_to(o, "\n{}: {}\n", f.name, f.kernel);
    fmt::format_to(o, "  registers ({}): {}\n", f.regs.accumulators_only ? "accumulators only" : "fitted",
                   f.regs_fitted_on);
    if (!f.regs.accumulators_only)
      constants_text(s, register_constant_info(), to_array(f.regs), f.regs_sources, "as above");
    fmt::format_to(o, "  run time: {}\n", f.time_fitted_on);
    constants_text(s, time_constant_info(), to_array(f.time), f.time_sources, "as above");
    if (f.split_k) {
      fmt::format_to(o, "  split-K ({} kernel): {}\n", f.split_k->variant, f.split_k->fitted_on);
      constants_text(s, split_k_constant_info(), to_array(f.split_k->constants), f.split_k->sources, "as above");
    }
  }
  return s;
}

std::string families_json(const std::vector<KernelFamily>& families) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const KernelFamily& f : families) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(family_json(f));
    j["file"] = f.file;
    out.push_back(std::move(j));
  }
  return out.dump(2) + "\n";
}

}  // namespace tileplan::render

// tileplan devices: the presets, each field with its source.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common.hpp"

namespace tileplan::cli {
namespace {

std::string value_text(const DeviceFieldView& f) {
  return f.integral ? fmt::format("{}", static_cast<int64_t>(f.value)) : fmt::format("{:g}", f.value);
}

std::string devices_text(const std::vector<Device>& devices) {
  std::string s;
  for (const Device& d : devices) {
    s += fmt::format("{}  {}\n", d.name, d.label);
    for (const DeviceFieldView& f : describe(d))
      s += fmt::format("  {:<30} {:>12} {:<8} {}\n", f.name, value_text(f), f.unit, f.source);
    std::string steps;
    for (int64_t kb : d.smem_carveout_kb) steps += fmt::format("{}{}", steps.empty() ? "" : ", ", kb);
    s += fmt::format("  {:<30} {:>12} {:<8} {}\n", "smem_carveout_kb", "[" + steps + "]", "KB", d.carveout_source);
    s += fmt::format("  {:<30} {:>12} {:<8} {}\n\n", "carveout_multi_block_min_kb", d.carveout_multi_block_min_kb,
                     "KB", d.carveout_rule_source);
  }
  return s;
}

std::string devices_json(const std::vector<Device>& devices) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Device& d : devices) {
    nlohmann::ordered_json j;
    j["name"] = d.name;
    j["label"] = d.label;
    nlohmann::ordered_json sources;
    for (const DeviceFieldView& f : describe(d)) {
      if (f.integral)
        j[std::string(f.name)] = static_cast<int64_t>(f.value);
      else
        j[std::string(f.name)] = f.value;
      sources[std::string(f.name)] = f.source;
    }
    j["smem_carveout_kb"] = d.smem_carveout_kb;
    sources["smem_carveout_kb"] = d.carveout_source;
    j["carveout_multi_block_min_kb"] = d.carveout_multi_block_min_kb;
    sources["carveout_multi_block_min_kb"] = d.carveout_rule_source;
    j["sources"] = sources;
    out.push_back(j);
  }
  return out.dump(2) + "\n";
}

}  // namespace

void register_devices(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("devices", "list the GPU presets and the source of every number");
  cmd->add_option("--device", *name, "show one preset only");
  cmd->add_option("--format", *format, "text or json")->default_val("text")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([name, format] {
    std::vector<Device> list;
    if (name->empty()) {
      list = device_presets();
    } else {
      std::optional<Device> d = find_device(*name);
      if (!d) throw UsageError(fmt::format("--device '{}' is not a preset; choose one of: {}", *name, device_names()));
      list.push_back(*d);
    }
    emit(*format == "json" ? devices_json(list) : devices_text(list));
  });
}

}  // namespace tileplan::cli

// tileplan families: the kernel families the calibrated model can use, each
// constant with its value and the data it was fitted on.
#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/family.hpp"
#include "tileplan/render/family.hpp"

namespace tileplan::cli {

void register_families(CLI::App& app) {
  struct Flags {
    std::string family, family_file, format = "text", output;
  };
  auto fl = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("families", "list the kernel families (fitted constants and their data)");
  cmd->add_option("--family", fl->family, "show one shipped family only");
  cmd->add_option("--family-file", fl->family_file, "show (and check) a family file");
  cmd->add_option("--format", fl->format, "text or json")->default_val("text")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--output,-o", fl->output, "write to FILE instead of standard output");
  cmd->callback([cmd, fl] {
    if (cmd->count("--family") && cmd->count("--family-file"))
      throw UsageError("--family and --family-file cannot be combined: give one kernel family");
    std::vector<KernelFamily> list;
    if (cmd->count("--family-file")) {
      Result<KernelFamily> f = load_family_file(fl->family_file);
      require(f.status(), {{"family", "--family-file"}});
      list.push_back(std::move(f).value());
    } else if (cmd->count("--family")) {
      Result<KernelFamily> f = find_family(fl->family);
      require(f.status());
      list.push_back(std::move(f).value());
    } else {
      list = shipped_families();
    }
    emit(fl->format == "json" ? render::families_json(list) : render::families_text(list), fl->output);
  });
}

}  // namespace tileplan::cli

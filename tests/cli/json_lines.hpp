// JSON Lines output (`tileplan tile --shapes`) as one object per line.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tileplan::test {

inline std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> objs;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) objs.push_back(nlohmann::json::parse(line));
  return objs;
}

}  // namespace tileplan::test

// The contract every bad-input case checks: exit status 2, nothing on stdout,
// exactly one line on stderr, starting "tileplan: " and naming the culprit.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "run_cli.hpp"

namespace tileplan::test {

struct BadInput {
  std::string args;      // the command line after `tileplan`
  std::string mentions;  // a fragment the message must hold (the flag, line or rule)
};

// Test names and failure messages show the flags.
inline void PrintTo(const BadInput& b, std::ostream* os) { *os << b.args; }

inline void expect_usage_error(const CliResult& r, const std::string& context, const std::string& mentions) {
  EXPECT_EQ(r.status, 2) << context << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << context << ": " << r.out.substr(0, 200);
  EXPECT_EQ(count_lines(r.err), 1) << context << ": " << r.err;
  EXPECT_EQ(r.err.rfind("tileplan: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << context << ": " << r.err;
}

inline std::string case_name(const ::testing::TestParamInfo<BadInput>& info) {
  return "Case" + std::to_string(info.index);
}

}  // namespace tileplan::test

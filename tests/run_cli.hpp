// Runs the built tileplan binary and captures its exit status and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace tileplan::test {

struct CliResult {
  int status = -1;  // exit status; 128+signal when killed by a signal
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `exe args` under a time limit, its output captured; `args` is appended to
// the binary's path as shell words.
inline CliResult run_program(const std::string& exe, const std::string& args, int timeout_s = 60) {
  static int counter = 0;
  const std::string base = "/tmp/tileplan_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::string cmd =
      "timeout " + std::to_string(timeout_s) + " " + exe + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  else if (WIFSIGNALED(raw)) r.status = 128 + WTERMSIG(raw);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// The tileplan binary.
inline CliResult run_cli(const std::string& args) { return run_program(TILEPLAN_EXE, args); }

inline std::string source_path(const std::string& rel) { return std::string(TILEPLAN_SOURCE_DIR) + "/" + rel; }

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace tileplan::test

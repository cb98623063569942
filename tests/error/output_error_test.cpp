// Output that cannot be written is an error, never a silent success: a full
// device, a closed standard output, an --output that fails. One line on
// stderr naming the destination, exit status 2.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

// Runs tileplan with standard output redirected by `redirect` (shell syntax:
// ">/dev/full", ">&-"); captures stderr only.
CliResult run_redirected(const std::string& args, const std::string& redirect) {
  static int counter = 0;
  const std::string err =
      "/tmp/tileplan_out_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".err";
  const std::string cmd = std::string("timeout 60 ") + TILEPLAN_EXE + " " + args + " " + redirect + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  CliResult r;
  if (WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  else if (WIFSIGNALED(raw)) r.status = 128 + WTERMSIG(raw);
  r.err = slurp(err);
  std::remove(err.c_str());
  return r;
}

void expect_write_error(const CliResult& r, const std::string& context, const std::string& names) {
  EXPECT_EQ(r.status, 2) << context << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << context << ": " << r.err;
  EXPECT_EQ(r.err.rfind("tileplan: ", 0), 0u) << context << ": " << r.err;
  EXPECT_NE(r.err.find(names), std::string::npos) << context << ": " << r.err;
}

bool have_dev_full() {
  struct stat st {};
  return ::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode);
}

// Every subcommand, small outputs (one buffer, fails at the flush) and large
// ones (fail at a write), and CLI11's own help text.
class FullDevice : public ::testing::TestWithParam<const char*> {};

TEST_P(FullDevice, StdoutWriteFails) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  const CliResult r = run_redirected(GetParam(), ">/dev/full");
  expect_write_error(r, GetParam(), "standard output");
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Subcommands, FullDevice,
    ::testing::Values("tile", "tile --format json --topk 0", "tile --diagnose", "tile --emit triton", "devices",
                      "devices --format json", "occupancy --threads 256 --regs 128",
                      "loop --extents 64 64 --threads 128 --points", "loop --compare --format json",
                      "validate " TILEPLAN_SOURCE_DIR "/data/h200-triton-v4", "--help", "tile --help"),
    [](const auto& info) { return "Case" + std::to_string(info.index); });

TEST(FullDevice, OutputFlagWriteFails) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  for (const char* args : {"tile --output /dev/full", "loop --output /dev/full", "tile -o /dev/full --format csv",
                           "validate " TILEPLAN_SOURCE_DIR "/data/h200-triton-v4 --output /dev/full"}) {
    const CliResult r = run_cli(args);
    expect_usage_error(r, args, "--output '/dev/full'");
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  }
}

// Shapes mode writes one JSON line per shape: enough shapes to overflow any buffer.
TEST(FullDevice, ShapesStreamWriteFails) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  const std::string path = "/tmp/tileplan_full_shapes_" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(path);
    for (int i = 1; i <= 200; ++i) f << 64 * i << " 4096 4096\n";
  }
  expect_write_error(run_redirected("tile --shapes " + path, ">/dev/full"), "--shapes to /dev/full", "standard output");
  expect_usage_error(run_cli("tile --shapes " + path + " --output /dev/full"), "--shapes --output /dev/full",
                     "--output");
  std::remove(path.c_str());
}

// `>&-`: the program starts with file descriptor 1 closed.
TEST(ClosedStdout, WriteFails) {
  for (const char* args : {"tile", "devices", "occupancy --threads 256 --regs 128"}) {
    const CliResult r = run_redirected(args, ">&-");
    expect_write_error(r, args, "standard output");
  }
}

// An output file that cannot be created: the path and the reason.
TEST(OutputFile, CannotBeOpened) {
  for (const char* args : {"tile --output /nonexistent/dir/out.txt", "loop --output /tmp",
                           "validate " TILEPLAN_SOURCE_DIR "/data/h200-triton-v4 --output /nonexistent/x"}) {
    const CliResult r = run_cli(args);
    expect_usage_error(r, args, "--output '");
    EXPECT_NE(r.err.find("cannot be opened for writing: "), std::string::npos) << r.err;
  }
}

// A good --output file holds exactly what standard output would.
TEST(OutputFile, SameBytesAsStdout) {
  const std::string path = "/tmp/tileplan_out_same_" + std::to_string(::getpid()) + ".json";
  const CliResult to_file = run_cli("tile --format json --output " + path);
  const CliResult to_stdout = run_cli("tile --format json");
  EXPECT_EQ(to_file.status, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty());
  EXPECT_EQ(slurp(path), to_stdout.out);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tileplan::test

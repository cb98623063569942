// tileplan: plan GEMM tiles and parallel loops for NVIDIA GPUs.
// Exit status: 0 success, 1 a requested check failed, 2 bad input (one line on
// stderr), 3 internal error.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tileplan: tile sizes and loop partitions for GEMM-shaped GPU kernels, checked against the hardware"};
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::simple);
  tileplan::cli::register_tile(app);
  tileplan::cli::register_devices(app);
  tileplan::cli::register_occupancy(app);
  tileplan::cli::register_loop(app);
  tileplan::cli::register_validate(app);
  tileplan::cli::register_families(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    while (!what.empty() && what.back() == ' ') what.pop_back();
    fmt::print(stderr, "tileplan: {}\n", what.empty() ? "invalid command line" : what);
    return 2;
  } catch (const tileplan::cli::CheckFailed& e) {
    fmt::print(stderr, "tileplan: {}\n", e.what());
    return 1;
  } catch (const tileplan::cli::UsageError& e) {
    fmt::print(stderr, "tileplan: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tileplan: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}

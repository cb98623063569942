// tileplan: plan GEMM tiles and parallel loops for NVIDIA GPUs.
// Exit status: 0 success, 1 a requested check failed, 2 bad input or output
// that cannot be written (one line on stderr), 3 internal error.
#include <cstdio>
#include <exception>
#include <new>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common.hpp"

namespace {

// The one line of an error: "tileplan: ", a prefix of ours and the message,
// escaped and bounded.
void report(std::string_view message, std::string_view prefix = "") {
  try {
    const std::string line = tileplan::cli::error_line(std::string(prefix) + std::string(message));
    std::fprintf(stderr, "tileplan: %s\n", line.empty() ? "invalid command line" : line.c_str());
  } catch (...) {  // no memory to escape it: say so without allocating
    std::fputs("tileplan: internal error: out of memory while reporting an error\n", stderr);
  }
}

int run(int argc, char** argv) {
  try {
    CLI::App app{"tileplan: tile sizes and loop partitions for GEMM-shaped GPU kernels, checked against the hardware"};
    app.require_subcommand(1);
    app.failure_message(CLI::FailureMessage::simple);
    tileplan::cli::register_tile(app);
    tileplan::cli::register_devices(app);
    tileplan::cli::register_occupancy(app);
    tileplan::cli::register_loop(app);
    tileplan::cli::register_validate(app);
    tileplan::cli::register_families(app);
    // Runs after parsing and CLI11's own checks, before the subcommand's callback.
    app.parse_complete_callback([&app] {
      if (auto empty = tileplan::cli::find_empty_value(app)) throw tileplan::cli::UsageError(*empty);
    });
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      // An empty value is the first thing to name, ahead of a validator's
      // complaint about it ("--format ''").
      if (auto empty = tileplan::cli::find_empty_value(app)) {
        report(*empty);
        return 2;
      }
      std::string_view what = e.what();
      while (!what.empty() && what.back() == ' ') what.remove_suffix(1);
      report(what);
      return 2;
    }
  } catch (const tileplan::cli::CheckFailed& e) {
    report(e.message());
    return 1;
  } catch (const tileplan::cli::UsageError& e) {
    report(e.message());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fputs("tileplan: internal error: out of memory\n", stderr);
    return 3;
  } catch (const std::exception& e) {
    report(e.what(), "internal error: ");
    return 3;
  } catch (...) {
    std::fputs("tileplan: internal error: an unknown exception\n", stderr);
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int status = run(argc, argv);
  // Every byte of the output must have reached the kernel: a full disk or a
  // closed pipe is an error, not a silent success. After a failure the one
  // line has been printed already.
  if (const auto error = tileplan::cli::close_stdout(); error && status == 0) {
    report(*error);
    status = 2;
  }
  return status;
}

// Shared plumbing for the subcommands: the user-error type, device selection
// and output. The CLI is the only layer that prints or picks an exit code.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <initializer_list>
#include <utility>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"

namespace tileplan::cli {

// A mistake in the user's flags or files: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A check the user asked for did not pass (e.g. a validation threshold):
// reported as one line, exit status 1.
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void require(const std::optional<std::string>& error) {
  if (error) throw UsageError(*error);
}

// The library names its own parameters ("block_m"); the CLI names flags
// ("--block-m"). `flags` maps a parameter to its flag where the rule
// "--" + param with '_' as '-' does not hold.
std::string flag_message(const Error& e, std::initializer_list<std::pair<std::string_view, std::string_view>> flags = {});
// Throws UsageError with the flag-named message when `s` holds an error.
void require(const Status& s, std::initializer_list<std::pair<std::string_view, std::string_view>> flags = {});

// --device, --sm-count and --smem-kb, shared by every subcommand that models a GPU.
struct DeviceFlags {
  std::string name = "h200";
  std::string sm_count;  // empty: the preset's
  std::string smem_kb;
  void add_to(CLI::App& app, bool with_overrides = true);
  Device resolve() const;  // throws UsageError
};

// Integers from flags: the whole text must be a base-10 integer that fits in
// 64 bits; otherwise UsageError naming the flag.
int64_t parse_int(std::string_view flag, std::string_view text);
// A comma-separated list of integers ("64,128,256"); empty items are errors.
std::vector<int64_t> parse_int_list(std::string_view flag, std::string_view text);
// A size in bytes with an optional K/KB/KiB (x1024) or M/MB/MiB (x1048576) suffix.
int64_t parse_bytes(std::string_view flag, std::string_view text);

// A checked, streamed destination: standard output, or a file.
class Output {
 public:
  static Output open(const std::string& path);  // "" or "-": stdout; throws UsageError
  Output(Output&& o) noexcept : file_(o.file_), name_(std::move(o.name_)) { o.file_ = nullptr; }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();
  void write(std::string_view text);  // throws UsageError when the write fails
  void finish();                      // flushes and closes; throws UsageError on failure

 private:
  Output(std::FILE* f, std::string name) : file_(f), name_(std::move(name)) {}
  std::FILE* file_;
  std::string name_;
};

// Writes `text` to stdout, or to `path` when it is not empty (throws UsageError).
void emit(const std::string& text, const std::string& path = "");

// Each subcommand registers itself on the app and runs when selected.
void register_tile(CLI::App& app);
void register_devices(CLI::App& app);
void register_occupancy(CLI::App& app);
void register_loop(CLI::App& app);
void register_validate(CLI::App& app);
void register_families(CLI::App& app);

}  // namespace tileplan::cli

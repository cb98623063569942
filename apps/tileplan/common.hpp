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
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"

namespace tileplan::cli {

// A mistake in the user's flags or files: reported as one line, exit status 2.
// message() holds the whole text; what() stops at the first NUL byte, which a
// line echoed from a file may hold.
struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& message) : std::runtime_error(message), message_(message) {}
  const std::string& message() const noexcept { return message_; }

 private:
  std::string message_;
};

// A check the user asked for did not pass (e.g. a validation threshold):
// reported as one line, exit status 1.
struct CheckFailed : std::runtime_error {
  explicit CheckFailed(const std::string& message) : std::runtime_error(message), message_(message) {}
  const std::string& message() const noexcept { return message_; }

 private:
  std::string message_;
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
  std::string power_budget;  // empty: the preset's
  // with_overrides: --sm-count and --smem-kb; with_power: --power-budget
  // (commands that price run time).
  void add_to(CLI::App& app, bool with_overrides = true, bool with_power = false);
  // The budget given, applied to `d` (a matched preset too); no-op without it.
  void apply_power(Device& d) const;  // throws UsageError
  double budget_watts() const;        // --power-budget as a finite number; throws UsageError
  // apply_budget false: leave --power-budget to a later apply_power (validate
  // applies it to the preset it matches from meta.json).
  Device resolve(bool apply_budget = true) const;  // throws UsageError
};

// Integers from flags: the whole text must be a base-10 integer that fits in
// 64 bits, with an optional sign ('+' or '-') directly before the first digit;
// no whitespace, no other bytes. Otherwise UsageError naming the flag.
int64_t parse_int(std::string_view flag, std::string_view text);
// A comma-separated list of integers ("64,128,256"); empty items are errors.
std::vector<int64_t> parse_int_list(std::string_view flag, std::string_view text);
// A size in bytes with an optional K/KB/KiB (x1024) or M/MB/MiB (x1048576) suffix.
int64_t parse_bytes(std::string_view flag, std::string_view text);

// A checked byte sink: standard output, or a file opened for writing. Every
// write is checked; the first failure throws UsageError naming the destination
// ("--output 'PATH'" or "standard output") and the system's reason, and later
// calls throw again. Output of unbounded length is streamed through write().
// Writing after finish() is our bug: std::logic_error (an internal error).
//   Output out = Output::open(fl.output);   // "" or "-": standard output
//   for (...) out.write(line);
//   out.finish();                            // flushes (and closes a file)
// Ensures: after finish() returns, every byte reached the kernel (a file is
// closed); an Output destroyed without finish() closes its file unchecked.
class Output {
 public:
  // Opens (creates or truncates) `path`; throws UsageError when it cannot.
  static Output open(const std::string& path);
  Output(Output&& other) noexcept;
  Output& operator=(Output&& other) noexcept;
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();

  void write(std::string_view bytes);
  void finish();
  // "--output 'PATH'" or "standard output": what error messages call it.
  const std::string& name() const { return name_; }

 private:
  Output(std::FILE* file, bool owned, std::string name) : file_(file), owned_(owned), name_(std::move(name)) {}
  [[noreturn]] void fail(const char* what, int error);
  std::FILE* file_ = nullptr;
  bool owned_ = false;   // a file we opened and must close; stdout is closed by main
  bool failed_ = false;
  std::string name_;
};

// Writes `text` to stdout, or to `path` when it is not empty or "-": one
// Output, one write, finish (throws UsageError).
void emit(const std::string& text, const std::string& path = "");

// Standard output at exit: flushes and closes it; an error message (for one
// "tileplan: ..." line) when any write to it failed, nothing when all went out.
std::optional<std::string> close_stdout();

// The one line main prints after "tileplan: ": control characters and bytes
// that are not UTF-8 escaped (\n, \t, \x1b, ...), so user text echoed in a
// message can neither break the line nor drive the terminal; longer than
// `max_bytes`, the middle is cut to "..." so the flag (at the start) and the
// rule (at the end) both stay.
std::string error_line(std::string_view message, std::size_t max_bytes = 400);

// An option of the selected subcommand given with an empty value ("--shapes ''"):
// "--shapes: the value is empty". Flags (no value) are not checked; "--shapes="
// CLI11 rejects itself. Run after parsing, before the subcommand's callback.
std::optional<std::string> find_empty_value(const CLI::App& app);

// Each subcommand registers itself on the app and runs when selected.
void register_tile(CLI::App& app);
void register_devices(CLI::App& app);
void register_occupancy(CLI::App& app);
void register_loop(CLI::App& app);
void register_validate(CLI::App& app);
void register_families(CLI::App& app);

}  // namespace tileplan::cli

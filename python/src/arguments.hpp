// Python arguments to the library's values, and the library's Errors to
// Python exceptions: the conversions of the module, with the CLI's rules and
// messages (a message names the Python keyword where the CLI names its flag:
// "block_m value 0 must be at least 1" for "--block-m value 0 ...").
//
// Whose fault is it: a value of the wrong Python type raises TypeError; a
// value the library refuses raises tileplan.Error (a ValueError) with the
// library's kind and the keyword's name.
#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"

namespace tileplan::python {

namespace py = pybind11;

// An input the library (or the CLI's front-end rules) refuses: raised in
// Python as tileplan.Error with .kind, .param (the keyword) and the message.
struct UserError : std::exception {
  UserError(ErrorKind k, std::string p, std::string m) : kind(k), param(std::move(p)), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  ErrorKind kind;
  std::string param;
  std::string message;
};

// A library parameter's keyword where it is not the parameter's own name
// ("threads_per_block" -> "threads").
using Names = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// Throws the Error as a UserError, its leading parameter name replaced by the keyword.
[[noreturn]] void raise(const Error& e, Names names = {});
inline void require(const Status& s, Names names = {}) {
  if (!s.ok()) raise(s.error(), names);
}
template <class T>
T take(Result<T> r, Names names = {}) {
  if (!r.ok()) raise(r.error(), names);
  return std::move(r).value();
}

// The arguments of one call, as the Python function received them (its
// locals()): each read by keyword, converted, checked for its type.
class Args {
 public:
  explicit Args(py::dict d) : d_(std::move(d)) {}
  bool is_none(const char* key) const { return get(key).is_none(); }
  // An int (anything with __index__ but bool). TypeError otherwise; out of
  // 64 bits: "KEY 'VALUE' does not fit in a 64-bit integer".
  int64_t integer(const char* key) const;
  std::optional<int64_t> optional_integer(const char* key) const;  // None: nothing
  bool flag(const char* key) const;                                 // a bool
  std::string text(const char* key) const;                          // a str
  std::optional<std::string> optional_text(const char* key) const;  // None: nothing
  // A file name: str or os.PathLike, encoded as the file system expects.
  std::optional<std::string> optional_path(const char* key) const;
  // None: nothing; an int: one value; a sequence (or iterable) of ints.
  // Empty: "KEY: the list is empty; give one or more integers".
  std::optional<std::vector<int64_t>> int_list(const char* key) const;
  py::handle get(const char* key) const;

 private:
  py::dict d_;
};

// One object as an int (for items of a list): TypeError naming `what`.
int64_t to_int(py::handle h, std::string_view what, std::string_view key);

// What `tileplan tile` reads: the problem (m, n, k, dtype, out_dtype,
// a_layout, b_layout, lda, ldb, ldc), in the CLI's order.
GemmProblem read_problem(const Args& a);
Instr read_instr(const Args& a);
Model read_model(const Args& a);
// family, family_file and model as --family, --family-file and --model combine.
KernelFamily read_family(const Args& a, Model model);
// device, sm_count, smem_kb.
Device read_device(const Args& a);
// power_budget: None (the preset's) or watts as --power-budget (0: no power
// term; above 0 only on a preset with energy fields).
void read_power_budget(const Args& a, Device& d);
// The preset `name`, or "device 'NAME' is not a preset; choose one of: ...".
Device find_preset(const std::string& name);

// Registers tileplan.Error on `m` and the translation of UserError into it.
void register_errors(py::module_& m);

}  // namespace tileplan::python

// Errors as values, for callers in another process (a Python autotuner, a
// C++ service): every public entry point that can refuse its input returns a
// Status or a Result<T> instead of crashing, in every build type.
//
// An Error has a kind (what went wrong, for code), the library's own name of
// the offending parameter (for a front end that maps it to its own flag or
// argument name) and one sentence that starts with that name.
//   Status  check_config(cfg)       -> ok, or Error{invalid_argument, "block_m",
//                                      "block_m value 0 must be at least 1"}
// The CLI replaces the leading `param` with its flag ("--block-m value 0 ...").
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tileplan {

enum class ErrorKind {
  invalid_argument,  // a value outside its domain (zero threads, a negative size)
  out_of_range,      // a value or product beyond a stated limit (sizes, search spaces, line lengths)
  not_found,         // a name that names nothing (device preset, kernel family)
  parse_error,       // malformed text (a dataset line, a family file)
  io_error,          // a file that cannot be opened, read or written
};
std::string_view to_string(ErrorKind k);

struct Error {
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string param;    // the library's parameter name, e.g. "block_m"; empty when none applies
  std::string message;  // one line; starts with `param` when `param` is not empty
};

// Thrown only by Result::value() on an error: a caller's bug, never an input's.
struct BadResultAccess : std::logic_error {
  explicit BadResultAccess(const Error& e) : std::logic_error("tileplan: value() of an error: " + e.message) {}
};

// Success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)) {}  // NOLINT(google-explicit-constructor): `return Error{...};`
  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }  // Requires: !ok()

 private:
  std::optional<Error> error_;
};

// A value of T, or an Error.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}     // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)
  Result(Status s) : v_(std::in_place_index<1>, s.error()) {}            // NOLINT  Requires: !s.ok()
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return std::get<1>(v_); }  // Requires: !ok()
  Status status() const { return ok() ? Status{} : Status{error()}; }
  // The value; throws BadResultAccess on an error.
  const T& value() const& {
    if (!ok()) throw BadResultAccess(error());
    return std::get<0>(v_);
  }
  T& value() & {
    if (!ok()) throw BadResultAccess(error());
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw BadResultAccess(error());
    return std::get<0>(std::move(v_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Error> v_;
};

inline std::string_view to_string(ErrorKind k) {
  switch (k) {
    case ErrorKind::invalid_argument: return "invalid_argument";
    case ErrorKind::out_of_range: return "out_of_range";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::parse_error: return "parse_error";
    case ErrorKind::io_error: return "io_error";
  }
  return "?";
}

}  // namespace tileplan

#include "common.hpp"

#include <stdio_ext.h>

#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "tileplan/gemm.hpp"

namespace tileplan::cli {

void DeviceFlags::add_to(CLI::App& app, bool with_overrides, bool with_power) {
  app.add_option("--device", name, "GPU preset (see `tileplan devices`)")->default_val("h200");
  if (with_power)
    app.add_option("--power-budget", power_budget,
                   "watts the board's power cap holds a sustained GEMM to, for a preset with energy fields "
                   "(h100-sxm: 636 by default; 0: no power term)");
  if (!with_overrides) return;
  app.add_option("--sm-count", sm_count, "override the preset's SM count");
  app.add_option("--smem-kb", smem_kb,
                 "override shared memory per SM in KB (a block may use all but 1 KB)");
}

Device DeviceFlags::resolve(bool apply_budget) const {
  std::optional<Device> d = find_device(name);
  if (!d) throw UsageError(fmt::format("--device '{}' is not a preset; choose one of: {}", name, device_names()));
  if (!sm_count.empty()) {
    require(override_sm_count(*d, parse_int("--sm-count", sm_count)));
  }
  if (!smem_kb.empty()) {
    require(override_smem_kb(*d, parse_int("--smem-kb", smem_kb)));
  }
  if (apply_budget)
    apply_power(*d);
  else if (!power_budget.empty())
    budget_watts();  // not a number: named before anything else is read
  require(check_device(*d));
  return *d;
}

double DeviceFlags::budget_watts() const {
  double w = 0;
  const auto [ptr, ec] = std::from_chars(power_budget.data(), power_budget.data() + power_budget.size(), w);
  if (ec != std::errc() || ptr != power_budget.data() + power_budget.size() || !std::isfinite(w))
    throw UsageError(fmt::format("--power-budget '{}' is not a number of watts", power_budget));
  return w;
}

void DeviceFlags::apply_power(Device& d) const {
  if (power_budget.empty()) return;
  require(override_power_budget(d, budget_watts()));
}

std::string flag_message(const Error& e, std::initializer_list<std::pair<std::string_view, std::string_view>> flags) {
  if (e.param.empty() || e.message.rfind(e.param, 0) != 0) return e.message;
  std::string flag;
  for (const auto& [param, name] : flags)
    if (param == e.param) flag = name;
  if (flag.empty()) {
    flag = "--" + e.param;
    for (char& c : flag)
      if (c == '_') c = '-';
  }
  return flag + e.message.substr(e.param.size());
}

void require(const Status& s, std::initializer_list<std::pair<std::string_view, std::string_view>> flags) {
  if (!s.ok()) throw UsageError(flag_message(s.error(), flags));
}

int64_t parse_int(std::string_view flag, std::string_view text) {
  // from_chars takes an optional '-' only; a '+' is ours to skip, and only
  // directly before a digit ("+-64" and "+ 64" are not integers).
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (text.size() >= 2 && text[0] == '+' && text[1] >= '0' && text[1] <= '9') ++first;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range)
    throw UsageError(fmt::format("{} '{}' does not fit in a 64-bit integer", flag, text));
  if (text.empty() || ec != std::errc() || ptr != last)
    throw UsageError(fmt::format("{} '{}' is not an integer", flag, text));
  return value;
}

std::vector<int64_t> parse_int_list(std::string_view flag, std::string_view text) {
  std::vector<int64_t> out;
  if (text.empty()) throw UsageError(fmt::format("{}: the list is empty; give one or more integers", flag));
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    if (item.empty())
      throw UsageError(fmt::format("{} '{}': empty item; write integers separated by single commas", flag, text));
    out.push_back(parse_int(flag, item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

int64_t parse_bytes(std::string_view flag, std::string_view text) {
  int64_t scale = 1;
  std::string_view digits = text;
  for (const auto& [suffix, factor] : {std::pair<std::string_view, int64_t>{"KiB", 1024}, {"KB", 1024}, {"K", 1024},
                                       {"MiB", 1 << 20}, {"MB", 1 << 20}, {"M", 1 << 20}}) {
    if (digits.size() > suffix.size() && digits.substr(digits.size() - suffix.size()) == suffix) {
      digits.remove_suffix(suffix.size());
      scale = factor;
      break;
    }
  }
  const int64_t v = parse_int(flag, digits);
  if (v < 0) throw UsageError(fmt::format("{} '{}' must not be negative", flag, text));
  if (v > std::numeric_limits<int64_t>::max() / scale)
    throw UsageError(fmt::format("{} '{}' does not fit in a 64-bit byte count", flag, text));
  return v * scale;
}

Output Output::open(const std::string& path) {
  if (path.empty() || path == "-") return Output(stdout, false, "standard output");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw UsageError(fmt::format("--output '{}' cannot be opened for writing: {}", path, std::strerror(errno)));
  return Output(f, true, fmt::format("--output '{}'", path));
}

Output::Output(Output&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      owned_(std::exchange(other.owned_, false)),
      failed_(other.failed_),
      name_(std::move(other.name_)) {}

Output& Output::operator=(Output&& other) noexcept {
  if (this != &other) {
    if (owned_ && file_) std::fclose(file_);
    file_ = std::exchange(other.file_, nullptr);
    owned_ = std::exchange(other.owned_, false);
    failed_ = other.failed_;
    name_ = std::move(other.name_);
  }
  return *this;
}

Output::~Output() {
  if (owned_ && file_) std::fclose(file_);
}

void Output::fail(const char* what, int error) {
  failed_ = true;
  if (error == 0) throw UsageError(fmt::format("{}: {}", name_, what));
  throw UsageError(fmt::format("{}: {}: {}", name_, what, std::strerror(error)));
}

void Output::write(std::string_view bytes) {
  if (!file_) throw std::logic_error(fmt::format("{}: written to after finish()", name_));
  if (failed_) fail("writing failed earlier", 0);
  if (bytes.empty()) return;
  errno = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::ferror(file_))
    fail("writing failed", errno);
}

void Output::finish() {
  if (!file_) throw std::logic_error(fmt::format("{}: finish() called twice", name_));
  if (failed_) fail("writing failed earlier", 0);
  errno = 0;
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail("writing failed", errno);
  std::FILE* f = std::exchange(file_, nullptr);
  if (std::exchange(owned_, false)) {  // standard output is main's to close
    errno = 0;
    if (std::fclose(f) != 0) fail("closing failed", errno);
  }
}

void emit(const std::string& text, const std::string& path) {
  Output out = Output::open(path);
  out.write(text);
  out.finish();
}

std::optional<std::string> close_stdout() {
  // As gnulib's close_stdout: a stream that was closed before we started
  // (`>&-`) and never written to is not an error.
  const bool earlier_error = std::ferror(stdout) != 0;
  const bool pending = __fpending(stdout) != 0;
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int flush_errno = errno;
  errno = 0;
  const bool close_failed = std::fclose(stdout) != 0;
  const int close_errno = errno;
  if (!earlier_error && !flush_failed && (!close_failed || (!pending && close_errno == EBADF))) return std::nullopt;
  const int e = flush_failed ? flush_errno : close_failed ? close_errno : 0;
  return fmt::format("standard output: writing failed: {}", e ? std::strerror(e) : "an I/O error");
}

namespace {

// The bytes of one escaped character of a message: a valid UTF-8 sequence as
// it is, or an escape. Returns the bytes consumed.
std::size_t escape_one(std::string_view s, std::size_t i, std::string& out) {
  const auto byte = [&](std::size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char c = byte(i);
  if (c < 0x80) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out += static_cast<char>(c);
    }
    return 1;
  }
  // A multi-byte sequence: its length from the lead byte, the smallest code
  // point that needs that length (shorter encodings are invalid).
  std::size_t len = 0;
  char32_t cp = 0, min = 0;
  if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07, min = 0x10000;
  bool valid = len != 0 && i + len <= s.size();
  for (std::size_t j = 1; valid && j < len; ++j) {
    valid = (byte(i + j) & 0xc0) == 0x80;
    cp = (cp << 6) | (byte(i + j) & 0x3f);
  }
  valid = valid && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  if (!valid) {
    out += fmt::format("\\x{:02x}", c);
    return 1;
  }
  // C1 controls (CSI is U+009B), line and paragraph separators, and the
  // bidirectional overrides reorder or break what the terminal shows.
  if (cp <= 0x9f || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069))
    out += fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
  else
    out.append(s.substr(i, len));
  return len;
}

}  // namespace

std::string error_line(std::string_view message, std::size_t max_bytes) {
  max_bytes = std::max<std::size_t>(max_bytes, 16);
  // Each character's escaped form, so that a cut never splits one.
  std::vector<std::string> pieces;
  std::size_t total = 0;
  for (std::size_t i = 0; i < message.size();) {
    std::string piece;
    i += escape_one(message, i, piece);
    total += piece.size();
    pieces.push_back(std::move(piece));
  }
  std::string out;
  if (total <= max_bytes) {
    for (const std::string& p : pieces) out += p;
    return out;
  }
  const std::string_view cut = "...";
  const std::size_t head_budget = (max_bytes - cut.size()) * 3 / 5;  // the flag and the start of the value
  const std::size_t tail_budget = max_bytes - cut.size() - head_budget;  // the rule
  std::size_t head = 0, head_bytes = 0;
  while (head < pieces.size() && head_bytes + pieces[head].size() <= head_budget) head_bytes += pieces[head++].size();
  std::size_t tail = pieces.size(), tail_bytes = 0;
  while (tail > head && tail_bytes + pieces[tail - 1].size() <= tail_budget) tail_bytes += pieces[--tail].size();
  for (std::size_t i = 0; i < head; ++i) out += pieces[i];
  out += cut;
  for (std::size_t i = tail; i < pieces.size(); ++i) out += pieces[i];
  return out;
}

std::optional<std::string> find_empty_value(const CLI::App& app) {
  std::vector<const CLI::App*> apps{&app};
  for (std::size_t i = 0; i < apps.size(); ++i) {
    for (const CLI::Option* opt : apps[i]->get_options()) {
      if (opt->get_type_size_max() == 0 || opt->count() == 0) continue;  // a flag, or not given
      for (const std::string& value : opt->results())
        if (value.empty()) return opt->get_name() + ": the value is empty";
    }
    for (const CLI::App* sub : apps[i]->get_subcommands()) apps.push_back(sub);
  }
  return std::nullopt;
}

}  // namespace tileplan::cli

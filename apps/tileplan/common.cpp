#include "common.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "tileplan/gemm.hpp"

namespace tileplan::cli {

void DeviceFlags::add_to(CLI::App& app, bool with_overrides) {
  app.add_option("--device", name, "GPU preset (see `tileplan devices`)")->default_val("h200");
  if (!with_overrides) return;
  app.add_option("--sm-count", sm_count, "override the preset's SM count");
  app.add_option("--smem-kb", smem_kb,
                 "override shared memory per SM in KB (a block may use all but 1 KB)");
}

Device DeviceFlags::resolve() const {
  std::optional<Device> d = find_device(name);
  if (!d) throw UsageError(fmt::format("--device '{}' is not a preset; choose one of: {}", name, device_names()));
  if (!sm_count.empty()) {
    require(override_sm_count(*d, parse_int("--sm-count", sm_count)));
  }
  if (!smem_kb.empty()) {
    require(override_smem_kb(*d, parse_int("--smem-kb", smem_kb)));
  }
  require(check_device(*d));
  return *d;
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
  int64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text.front() == '+') ++first;
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
  if (path.empty() || path == "-") return Output(stdout, "standard output");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw UsageError(fmt::format("--output '{}' cannot be opened for writing", path));
  return Output(f, fmt::format("--output '{}'", path));
}

Output::~Output() {
  if (file_ && file_ != stdout) std::fclose(file_);
}

void Output::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw UsageError(fmt::format("{}: writing failed", name_));
}

void Output::finish() {
  if (!file_) return;
  std::FILE* f = file_;
  file_ = nullptr;
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  const bool closed = f == stdout || std::fclose(f) == 0;
  if (!ok || !closed) throw UsageError(fmt::format("{}: writing failed", name_));
}

void emit(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("--output '{}' cannot be opened for writing", path));
  f << text;
  if (!f) throw UsageError(fmt::format("--output '{}': writing failed", path));
}

}  // namespace tileplan::cli

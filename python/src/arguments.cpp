#include "arguments.hpp"

#include <fmt/format.h>

#include "tileplan/render/tile.hpp"

namespace tileplan::python {
namespace {

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

// Longer lists than any search space may hold are refused before they are
// read whole (an endless iterator must end).
constexpr std::size_t kMaxListItems = kMaxSearchSpace;

// A str's bytes: UTF-8, with what UTF-8 cannot hold (lone surrogates)
// backslash-escaped, so that any str reaches the library and its message.
std::string utf8(py::handle h) {
  Py_ssize_t size = 0;
  if (const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &size)) return std::string(s, static_cast<std::size_t>(size));
  PyErr_Clear();
  const py::object bytes =
      py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(h.ptr(), "utf-8", "backslashreplace"));
  if (!bytes) throw py::error_already_set();
  return std::string(PyBytes_AS_STRING(bytes.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr())));
}

}  // namespace

void raise(const Error& e, Names names) {
  std::string param = e.param;
  for (const auto& [library, keyword] : names)
    if (library == e.param) param = keyword;
  std::string message = e.message;
  if (!e.param.empty() && message.rfind(e.param, 0) == 0) message = param + message.substr(e.param.size());
  throw UserError(e.kind, param, message);
}

py::handle Args::get(const char* key) const {
  PyObject* v = PyDict_GetItemString(d_.ptr(), key);  // borrowed
  // The Python layer passes every keyword of its signature: a missing one is our bug.
  if (!v) throw std::logic_error(fmt::format("tileplan: internal error: argument '{}' not passed", key));
  return v;
}

int64_t to_int(py::handle h, std::string_view what, std::string_view key) {
  if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
    throw py::type_error(fmt::format("{} must be an int, not {}", what, type_name(h)));
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0)
    throw UserError(ErrorKind::out_of_range, std::string(key),
                    fmt::format("{} '{}' does not fit in a 64-bit integer", key, py::str(index).cast<std::string>()));
  return v;
}

int64_t Args::integer(const char* key) const { return to_int(get(key), key, key); }

std::optional<int64_t> Args::optional_integer(const char* key) const {
  if (is_none(key)) return std::nullopt;
  return integer(key);
}

bool Args::flag(const char* key) const {
  const py::handle h = get(key);
  if (!PyBool_Check(h.ptr())) throw py::type_error(fmt::format("{} must be a bool, not {}", key, type_name(h)));
  return h.ptr() == Py_True;
}

std::string Args::text(const char* key) const {
  const py::handle h = get(key);
  if (!PyUnicode_Check(h.ptr())) throw py::type_error(fmt::format("{} must be a str, not {}", key, type_name(h)));
  return utf8(h);
}

std::optional<std::string> Args::optional_text(const char* key) const {
  if (is_none(key)) return std::nullopt;
  return text(key);
}

std::optional<std::string> Args::optional_path(const char* key) const {
  const py::handle h = get(key);
  if (h.is_none()) return std::nullopt;
  if (!PyUnicode_Check(h.ptr()) && !PyBytes_Check(h.ptr()) && !PyObject_HasAttrString(h.ptr(), "__fspath__"))
    throw py::type_error(fmt::format("{} must be a str or an os.PathLike, not {}", key, type_name(h)));
  PyObject* raw = nullptr;  // os.fsencode: bytes as the file system names them
  if (!PyUnicode_FSConverter(h.ptr(), &raw)) throw py::error_already_set();
  const py::object bytes = py::reinterpret_steal<py::object>(raw);
  return std::string(PyBytes_AS_STRING(raw), static_cast<std::size_t>(PyBytes_GET_SIZE(raw)));
}

std::optional<std::vector<int64_t>> Args::int_list(const char* key) const {
  const py::handle h = get(key);
  if (h.is_none()) return std::nullopt;
  if (PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr())) return std::vector<int64_t>{integer(key)};
  // A str is iterable, and "64" is not a list of integers.
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()) || PyBool_Check(h.ptr()) || !py::isinstance<py::iterable>(h))
    throw py::type_error(fmt::format("{} must be an int or a sequence of ints, not {}", key, type_name(h)));
  std::vector<int64_t> out;
  const std::string item = fmt::format("{} items", key);
  for (py::handle v : py::iter(h)) {
    if (out.size() == kMaxListItems)
      throw UserError(ErrorKind::out_of_range, key,
                      fmt::format("{}: more than {} values; give each value once", key, kMaxListItems));
    out.push_back(to_int(v, item, key));
  }
  if (out.empty())
    throw UserError(ErrorKind::invalid_argument, key,
                    fmt::format("{}: the list is empty; give one or more integers", key));
  return out;
}

GemmProblem read_problem(const Args& a) {
  GemmProblem p;
  p.m = a.integer("m");
  p.n = a.integer("n");
  p.k = a.integer("k");
  const std::string dtype = a.text("dtype");
  const std::optional<DType> in = parse_dtype(dtype);
  if (!in || !is_input_type(*in))
    throw UserError(ErrorKind::invalid_argument, "dtype",
                    fmt::format("dtype '{}' is not one of: {}", dtype, input_type_names()));
  p.dtype = *in;
  if (const std::optional<std::string> out_dtype = a.optional_text("out_dtype")) {
    const std::optional<DType> out = parse_dtype(*out_dtype);
    if (!out || !is_output_type(*out))
      throw UserError(ErrorKind::invalid_argument, "out_dtype",
                      fmt::format("out_dtype '{}' is not one of: {}", *out_dtype, output_type_names()));
    p.out_dtype = *out;
  }
  for (const auto& [key, layout] : {std::pair{"a_layout", &p.a_layout}, std::pair{"b_layout", &p.b_layout}}) {
    const std::string text = a.text(key);
    const std::optional<Layout> l = parse_layout(text);
    if (!l) throw UserError(ErrorKind::invalid_argument, key, fmt::format("{} '{}' is not one of: row, col", key, text));
    *layout = *l;
  }
  p.lda = a.integer("lda");
  p.ldb = a.integer("ldb");
  p.ldc = a.integer("ldc");
  return p;
}

Instr read_instr(const Args& a) {
  const std::string text = a.text("instr");
  const std::optional<Instr> instr = parse_instr(text);
  if (!instr)
    throw UserError(ErrorKind::invalid_argument, "instr",
                    fmt::format("instr '{}' is not one of: auto, mma, wgmma, simt", text));
  return *instr;
}

Model read_model(const Args& a) {
  const std::string text = a.text("model");
  const std::optional<Model> model = parse_model(text);
  if (!model)
    throw UserError(ErrorKind::invalid_argument, "model",
                    fmt::format("model '{}' is not one of: calibrated, seed", text));
  return *model;
}

KernelFamily read_family(const Args& a, Model model) {
  const std::optional<std::string> name = a.optional_text("family");
  const std::optional<std::string> file = a.optional_path("family_file");
  if (name && file)
    throw UserError(ErrorKind::invalid_argument, "family",
                    "family and family_file cannot be combined: give one kernel family");
  if (model == Model::seed) {
    if (file)
      throw UserError(ErrorKind::invalid_argument, "family_file",
                      "family_file needs model calibrated: the seed model counts accumulators only");
    if (name && *name != "seed")
      throw UserError(ErrorKind::invalid_argument, "family",
                      fmt::format("family {} needs model calibrated: the seed model counts accumulators only", *name));
    return find_family("seed").value();
  }
  if (file) return take(load_family_file(*file), {{"family", "family_file"}});
  return take(find_family(name.value_or("triton")));
}

Device find_preset(const std::string& name) {
  std::optional<Device> d = find_device(name);
  if (!d)
    throw UserError(ErrorKind::not_found, "device",
                    fmt::format("device '{}' is not a preset; choose one of: {}", name, device_names()));
  return *d;
}

Device read_device(const Args& a) {
  Device d = find_preset(a.text("device"));
  if (const std::optional<int64_t> sms = a.optional_integer("sm_count")) require(override_sm_count(d, *sms));
  if (const std::optional<int64_t> kb = a.optional_integer("smem_kb")) require(override_smem_kb(d, *kb));
  require(check_device(d));
  return d;
}

void read_power_budget(const Args& a, Device& d) {
  const py::handle h = a.get("power_budget");
  if (h.is_none()) return;
  if (PyBool_Check(h.ptr()) || !(PyFloat_Check(h.ptr()) || PyLong_Check(h.ptr())))
    throw py::type_error(fmt::format("power_budget must be an int or a float (watts), not {}", type_name(h)));
  const double watts = PyFloat_AsDouble(h.ptr());
  if (watts == -1.0 && PyErr_Occurred()) {  // an int too large for a double
    PyErr_Clear();
    throw UserError(ErrorKind::out_of_range, "power_budget",
                    "power_budget is too large: it must be between 0 (no power term) and 1000000 W");
  }
  require(override_power_budget(d, watts));
}

void register_errors(py::module_& m) {
  // Kept for the life of the process: the translator may run at any time.
  static PyObject* error_type = PyErr_NewExceptionWithDoc(
      "tileplan.Error",
      "An input tileplan refuses: a ValueError whose message names the keyword and the rule.\n\n"
      "Attributes: kind (invalid_argument, out_of_range, not_found, parse_error, io_error) and\n"
      "param (the keyword at fault, or None).",
      PyExc_ValueError, nullptr);
  if (!error_type) throw py::error_already_set();
  m.add_object("Error", py::handle(error_type));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      const py::object message = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(e.message.data(), static_cast<Py_ssize_t>(e.message.size()), "backslashreplace"));
      if (!message) throw py::error_already_set();
      py::object error = py::reinterpret_borrow<py::object>(error_type)(message);
      error.attr("kind") = std::string(to_string(e.kind));
      error.attr("param") = e.param.empty() ? py::object(py::none()) : py::object(py::str(e.param));
      PyErr_SetObject(error_type, error.ptr());
    }
  });
}

}  // namespace tileplan::python

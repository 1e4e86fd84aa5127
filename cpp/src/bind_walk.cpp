// The walker of Python objects: dicts and lists of users' items read in C++, once, with the GIL held.
//
// `truth` and `recs` given as Python objects ({user: {item: grade}}, {user: [items]}, {user: {item: score}},
// lists of lists, with str or int ids) are read here into CSR buffers: user ids, row pointers, item ids
// (int ids as their value, str ids as dense codes through a hash table that uses the str's own cached hash,
// so no string is ever encoded, copied, sorted or made), and the grades or scores. Both sides of an
// evaluation go through one `Walker`, so their codes share one space and the users of the truth are joined
// to the rows of the recs here too (no pandas Index of user ids afterwards).
//
// The walk runs no Python code: it only reads exact dicts, lists, tuples, sets and frozensets, exact str
// and int ids (and numpy's integer and str scalars), and float, int, bool or numpy number values, with the
// C API calls that never call back into Python. Anything else (a dict subclass with its own iteration,
// floats as ids, None, a huge int, a mix of int and str ids, ...) stops the walk with "not plain": the
// caller then reads the objects with the Python readers, which accept or reject them with their messages.
// Since no Python code runs while the GIL is held, nothing can mutate the objects during the walk; sizes are
// still checked against the containers on every step (never an out-of-bounds read).
#include <pybind11/numpy.h>
#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>  // the digits of an int (Python.h includes it from 3.11 on)
#endif
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "rankmeter/ranking.hpp"
#include "rankmeter/walk.hpp"

namespace py = pybind11;

namespace {

using namespace rankmeter::core;
using I64 = py::array_t<int64_t, py::array::c_style>;
using F64 = py::array_t<double, py::array::c_style>;

template <class T>
using Buf = std::vector<T, HugeAlloc<T>>;

// A std::vector handed to numpy without a copy (the array owns it through a capsule).
template <class T, class A>
py::array_t<T> to_array(std::vector<T, A>&& v) {
  auto* owned = new std::vector<T, A>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T, A>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(owned->size())}, {static_cast<py::ssize_t>(sizeof(T))}, owned->data(),
                        owner);
}

struct NotPlain {};  // thrown inside the walk: the objects need the Python readers

// Two str objects are equal when their canonical representations are (same length, same kind, same bytes).
struct StrEq {
  bool operator()(PyObject* a, PyObject* b) const {
    if (a == b) return true;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b)) return false;
    return std::memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), static_cast<size_t>(n) * PyUnicode_KIND(a)) == 0;
  }
};
struct IntEq {
  bool operator()(int64_t a, int64_t b) const { return a == b; }
};

// Table<PyObject*, StrEq> for the walker's str ids, whose slots also hold the canonical bytes of a short str (8
// bytes or fewer, zero-padded, with its byte length and kind): a short id is compared with its slot alone, never
// with the object its code was first given to. That object lies elsewhere in memory, so where every id is an
// object of its own (dicts built from a file or a query loop), each comparison with it was a cache miss.
class StrTable {
 public:
  StrTable() { rehash(64); }
  int64_t find_or_add(int64_t h, PyObject* key, bool& inserted) {
    if (2 * (used_ + 1) > slots_.size()) rehash(slots_.size() * 2);
    Short k;
    bool have_k = false;  // the key's bytes are read only when a slot of the same hash holds another object
    size_t i = static_cast<size_t>(mix(h)) & mask_;
    for (;;) {
      Slot& s = slots_[i];
      if (s.code < 0) {
        if (used_ >= static_cast<size_t>(INT32_MAX)) throw NotPlain{};  // codes are int32 here
        if (!have_k) k = short_of(key);
        s = Slot{h, key, static_cast<int32_t>(used_++), k.meta, k.w0};
        inserted = true;
        return s.code;
      }
      if (s.hash == h) {
        if (s.key == key) {
          inserted = false;
          return s.code;
        }
        if (!have_k) {
          k = short_of(key);
          have_k = true;
        }
        if (s.meta == k.meta && (k.meta != 0 ? s.w0 == k.w0 : StrEq{}(s.key, key))) {
          inserted = false;
          return s.code;
        }
      }
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return used_; }
  void prefetch(int64_t h) const { __builtin_prefetch(&slots_[static_cast<size_t>(mix(h)) & mask_]); }

 private:
  struct Short {  // meta: (bytes << 3) | kind for a str of at most 8 bytes (never 0: kind >= 1); 0: longer
    uint64_t w0 = 0;
    int32_t meta = 0;
  };
  struct Slot {
    int64_t hash;
    PyObject* key;
    int32_t code;  // -1: empty
    int32_t meta;
    uint64_t w0;
  };
  static Short short_of(PyObject* o) {
    Short r;
    const auto kind = static_cast<size_t>(PyUnicode_KIND(o));
    const size_t n = static_cast<size_t>(PyUnicode_GET_LENGTH(o)) * kind;
    if (n > 8) return r;
    std::memcpy(&r.w0, PyUnicode_DATA(o), n);  // exactly the str's bytes (no read past them)
    r.meta = static_cast<int32_t>((n << 3) | kind);
    return r;
  }
  static uint64_t mix(int64_t h) { return spread_hash(h); }
  void rehash(size_t cap) { regrow_slots(slots_, cap, Slot{0, nullptr, -1, 0, 0}, mask_); }
  std::vector<Slot, HugeAlloc<Slot>> slots_;
  size_t mask_ = 0, used_ = 0;
};

// Kinds of ids seen: bit 1 int, bit 2 str.
constexpr int kInt = 1, kStr = 2, kNpStr = 4;  // kNpStr: some str id is a numpy.str_

// The types read without running Python code, looked up once.
struct Types {
  PyTypeObject* np_str = nullptr;
  std::vector<PyTypeObject*> np_ints, np_floats;
  PyTypeObject* defaultdict = nullptr;
};

Types& types() {
  static Types* t = [] {
    auto* ty = new Types();
    py::module_ np = py::module_::import("numpy");
    ty->np_str = reinterpret_cast<PyTypeObject*>(np.attr("str_").ptr());
    for (const char* n : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intc", "uintc",
                          "longlong", "ulonglong"})
      ty->np_ints.push_back(reinterpret_cast<PyTypeObject*>(np.attr(n).ptr()));
    for (const char* n : {"float16", "float32", "float64", "longdouble"})
      ty->np_floats.push_back(reinterpret_cast<PyTypeObject*>(np.attr(n).ptr()));
    ty->defaultdict = reinterpret_cast<PyTypeObject*>(py::module_::import("collections").attr("defaultdict").ptr());
    return ty;
  }();
  return *t;
}

bool is_one_of(PyTypeObject* t, const std::vector<PyTypeObject*>& v) {
  for (PyTypeObject* x : v)
    if (t == x) return true;
  return false;
}

bool plain_dict(PyObject* o) { return PyDict_CheckExact(o) || Py_TYPE(o) == types().defaultdict; }

// An int id's value; NotPlain for anything beyond int64 or not an int.
int64_t int_value(PyObject* o) {
  PyObject* v = o;
  PyObject* owned = nullptr;
  if (!PyLong_CheckExact(o)) {
    owned = PyNumber_Index(o);  // numpy integer scalars: numpy's C __index__
    if (!owned) {
      PyErr_Clear();
      throw NotPlain{};
    }
    v = owned;
  }
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  Py_XDECREF(owned);
  if (overflow || (x == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw NotPlain{};
  }
  return static_cast<int64_t>(x);
}

// A grade or score: float, int, bool or a numpy number; NotPlain otherwise.
double number_value(PyObject* o) {
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);  // float and numpy.float64
  if (PyBool_Check(o)) return o == Py_True ? 1.0 : 0.0;
  PyTypeObject* t = Py_TYPE(o);
  if (PyLong_CheckExact(o) || is_one_of(t, types().np_ints) || is_one_of(t, types().np_floats)) {
    const double x = PyLong_CheckExact(o) ? PyLong_AsDouble(o) : PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw NotPlain{};
    }
    return x;
  }
  throw NotPlain{};
}

// An exact int's value read from the object itself when it has at most two digits (every int below 2^30 in
// magnitude, with CPython's 15- or 30-bit digits; from 3.12 on, a compact int), without a call; false: ask
// PyLong_AsLongLongAndOverflow.
inline bool compact_int(PyObject* o, long long& x) {
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(o);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  x = static_cast<long long>(PyUnstable_Long_CompactValue(l));
  return true;
#else
  const digit* d = reinterpret_cast<PyLongObject*>(o)->ob_digit;
  const Py_ssize_t size = Py_SIZE(o);
  if (size == 0) {
    x = 0;
    return true;
  }
  if (size < -2 || size > 2) return false;
  long long v = static_cast<long long>(d[0]);  // d[1] is read only where the int has two digits
  if (size == 2 || size == -2) v |= static_cast<long long>(d[1]) << PyLong_SHIFT;
  x = size < 0 ? -v : v;
  return true;
#endif
}

// An exact int's value within int64 without the GIL (the object only read: no Python code, no error); false
// beyond int64.
inline bool exact_int_nogil(PyObject* o, long long& x) {
  if (compact_int(o, x)) return true;
  int overflow = 0;
  x = PyLong_AsLongLongAndOverflow(o, &overflow);
  return !overflow;
}

// number_value() without the GIL: a float (or subclass: its stored double), a bool, an exact int within int64
// (converted as PyLong_AsDouble rounds it); false for anything else.
bool number_nogil(PyObject* o, double& x) {
  if (PyFloat_Check(o)) {
    x = PyFloat_AS_DOUBLE(o);
    return true;
  }
  if (PyBool_Check(o)) {
    x = o == Py_True ? 1.0 : 0.0;
    return true;
  }
  if (PyLong_CheckExact(o)) {
    long long v = 0;
    if (!exact_int_nogil(o, v)) return false;
    x = static_cast<double>(v);
    return true;
  }
  return false;
}

// Ids coded in one space: int ids stay their value, str ids get codes 0, 1, 2, ... in order of first
// appearance. `kinds` says which were seen; a mix is not plain (the caller's Python readers decide).
class Ids {
 public:
  int64_t add(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyUnicode_Type) {
      Py_hash_t h = reinterpret_cast<PyASCIIObject*>(o)->hash;  // cached once computed
      if (h == -1) h = str_hash(o);
      kinds |= kStr;
      bool added = false;
      const int64_t code = strs_.find_or_add(h, o, added);
      if (added) labels_.push_back(o);  // borrowed: alive in the caller's containers
      return code;
    }
    if (t == types().np_str) {
#if PY_VERSION_HEX < 0x030C0000
      if (PyUnicode_READY(o) < 0) {
        PyErr_Clear();
        throw NotPlain{};
      }
#endif
      kinds |= kStr | kNpStr;
      const Py_hash_t h = PyObject_Hash(o);  // str: the cached hash (computed once, in C)
      if (h == -1) {
        PyErr_Clear();
        throw NotPlain{};
      }
      bool added = false;
      const int64_t c = strs_.find_or_add(h, o, added);
      if (added) labels_.push_back(o);  // borrowed: alive in the caller's containers
      return c;
    }
    if (t == &PyLong_Type || is_one_of(t, types().np_ints)) {
      kinds |= kInt;
      return int_value(o);
    }
    throw NotPlain{};
  }
  // add() for a chunk read by another thread, without the GIL: only an exact str whose hash is cached and an
  // exact int within int64 (pure reads of the objects); false for anything else (the side is then walked
  // again by one thread, with the GIL, which reads or refuses it).
  bool add_nogil(PyObject* o, int64_t& code) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyUnicode_Type) {
      const Py_hash_t h = reinterpret_cast<PyASCIIObject*>(o)->hash;
      if (h == -1) return false;
      kinds |= kStr;
      bool added = false;
      code = strs_.find_or_add(h, o, added);
      if (added) labels_.push_back(o);
      return true;
    }
    if (t == &PyLong_Type) {
      long long x = 0;
      if (!exact_int_nogil(o, x)) return false;
      kinds |= kInt;
      code = static_cast<int64_t>(x);
      return true;
    }
    return false;
  }
  // Fetch the table slot a str with a cached hash probes first (a hint: no effect on the result).
  void prefetch_slot(PyObject* o) const {
    if (Py_TYPE(o) != &PyUnicode_Type) return;
    const Py_hash_t h = reinterpret_cast<PyASCIIObject*>(o)->hash;
    if (h != -1) strs_.prefetch(h);
  }
  // The str labels (new references) as an object array, code order.
  py::array labels() const {
    py::array out = py::module_::import("numpy").attr("empty")(labels_.size(), py::arg("dtype") = "O");
    auto** p = static_cast<PyObject**>(out.mutable_data());
    for (size_t i = 0; i < labels_.size(); ++i) {
      Py_INCREF(labels_[i]);
      PyObject* old = p[i];
      p[i] = labels_[i];
      Py_XDECREF(old);
    }
    return out;
  }
  size_t n_labels() const { return labels_.size(); }
  PyObject* label(int64_t code) const { return labels_[static_cast<size_t>(code)]; }  // borrowed
  int kinds = 0;

 private:
  static Py_hash_t str_hash(PyObject* o) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(o) < 0) {
      PyErr_Clear();
      throw NotPlain{};
    }
#endif
    const Py_hash_t h = PyObject_Hash(o);
    if (h == -1) {
      PyErr_Clear();
      throw NotPlain{};
    }
    return h;
  }

  StrTable strs_;
  std::vector<PyObject*> labels_;
};

// One side read: user ids (keys of a dict; none for a list), row pointers, item ids/codes, values.
struct Side {
  bool keyed = false;
  bool has_values = false;  // truth: some row is a {item: grade} dict; recs: every row is {item: score}
  bool rows_dicts = false, rows_lists = false;
  std::vector<PyObject*> user_objs;  // borrowed
  std::vector<int64_t> user_vals;    // int user ids (or str user codes in the walker's user table)
  std::vector<int64_t> indptr{0};
  Buf<int64_t> items;
  Buf<double> values;
};

class Walker {
 public:
  // Read one side; false when the objects are not plain (nothing is kept then). A large side is read in
  // chunks of rows by several threads first (walk_parallel); when a chunk holds anything those threads may not
  // read without the GIL, the side is read here by this thread alone.
  bool walk(PyObject* obj, bool recs, Side& s) {
    if (threads > 1) {
      const int r = walk_parallel(obj, recs, s);
      if (r >= 0) return r == 1;
      s = Side{};
    }
    try {
      if (plain_dict(obj)) {
        s.keyed = true;
        const Py_ssize_t n = PyDict_GET_SIZE(obj);
        s.user_objs.reserve(static_cast<size_t>(n));
        s.indptr.reserve(static_cast<size_t>(n) + 1);
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        size_t total = 0;  // the buffers sized once (a pass over the rows' lengths only)
        while (PyDict_Next(obj, &pos, &k, &v)) total += row_size(v);
        s.items.reserve(total);
        pos = 0;
        while (PyDict_Next(obj, &pos, &k, &v)) {
          s.user_objs.push_back(k);
          row(v, recs, s);
        }
        if (PyDict_GET_SIZE(obj) != n) throw NotPlain{};
      } else if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
        const bool list = PyList_CheckExact(obj);
        const Py_ssize_t n = list ? PyList_GET_SIZE(obj) : PyTuple_GET_SIZE(obj);
        size_t total = 0;
        for (Py_ssize_t u = 0; u < n; ++u) total += row_size(list ? PyList_GET_ITEM(obj, u) : PyTuple_GET_ITEM(obj, u));
        s.items.reserve(total);
        s.indptr.reserve(static_cast<size_t>(n) + 1);
        for (Py_ssize_t u = 0; u < (list ? PyList_GET_SIZE(obj) : PyTuple_GET_SIZE(obj)); ++u) {
          PyObject* v = list ? PyList_GET_ITEM(obj, u) : PyTuple_GET_ITEM(obj, u);
          if (PyDict_Check(v)) throw NotPlain{};  // a list of dicts: the Python readers read their keys only
          row(v, recs, s);
        }
      } else {
        return false;
      }
      if (recs && s.rows_dicts && s.rows_lists) return false;  // the Python reader says why
      if (recs) s.has_values = s.rows_dicts;
      if (!s.has_values) s.values.clear();
      return (item_kinds_ & (kInt | kStr)) != (kInt | kStr);
    } catch (const NotPlain&) {
      return false;
    }
  }
  int item_kinds() const { return item_kinds_; }
  Ids& ids() { return ids_; }
  bool dict_rows = false;  // every row must be a {item: value} dict (the nested dicts of the IR libraries)
  int threads = 1;         // threads of a large side's walk
  int64_t parallel_min = int64_t{1} << 16;  // entries from which a side is read by several threads

 private:
  // One thread's rows: its own table (codes in its order of first appearance), scratch and flags.
  struct Chunk {
    Ids ids;
    std::vector<PyObject*> keys, vals;
    bool rows_dicts = false, rows_lists = false;
    bool ok = true;
  };

  // A row read without the GIL (pure reads of exact containers, ids and numbers) into items[0, n) (the chunk's
  // codes) and, when `values` is given, values[0, n) (1.0 for a list row); n is the row's size, counted before
  // the threads started. false: not for this mode.
  bool chunk_row(PyObject* v, Chunk& c, int64_t* items, double* values) const {
    if (dict_rows && !plain_dict(v)) return false;
    if (plain_dict(v)) {
      c.rows_dicts = true;
      const Py_ssize_t n = PyDict_GET_SIZE(v);
      Py_ssize_t pos = 0;
      PyObject *k, *x;
      c.keys.clear();
      c.vals.clear();
      while (PyDict_Next(v, &pos, &k, &x)) {
        c.keys.push_back(k);
        c.vals.push_back(x);
        __builtin_prefetch(x);
      }
      if (c.keys.size() != static_cast<size_t>(n) || !values) return false;
      if (!chunk_items(c.keys.data(), c.keys.size(), c, items)) return false;
      for (size_t j = 0; j < c.vals.size(); ++j)
        if (!number_nogil(c.vals[j], values[j])) return false;
    } else if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
      c.rows_lists = true;
      const bool list = PyList_CheckExact(v);
      const Py_ssize_t n = list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v);
      PyObject** objs =
          list ? reinterpret_cast<PyListObject*>(v)->ob_item : reinterpret_cast<PyTupleObject*>(v)->ob_item;
      if (!chunk_items(objs, static_cast<size_t>(n), c, items)) return false;
      if (values) std::fill(values, values + n, 1.0);
    } else {
      return false;  // sets (their iterator is a Python object) and anything else
    }
    return true;
  }
  static bool chunk_items(PyObject* const* objs, size_t n, Chunk& c, int64_t* items) {
    for (size_t j = 0; j < n; ++j) __builtin_prefetch(objs[j]);
    for (size_t j = 0; j < n; ++j) c.ids.prefetch_slot(objs[j]);
    for (size_t j = 0; j < n; ++j)
      if (!c.ids.add_nogil(objs[j], items[j])) return false;
    return true;
  }

  // The side read by `threads` threads over contiguous ranges of rows, each with its own table, straight into
  // the side's buffers (every row's place is known from the sizes counted first); then each chunk's str codes
  // are mapped to the shared table's, the chunks in row order (a chunk's new str ids are coded in the shared
  // table in its order of first appearance, which gives every id the code a walk by one thread gives it), and
  // the items rewritten in parallel. While the threads run this thread holds the GIL, runs no Python code and
  // lets none run, and the threads only read the objects (no reference count, no allocation, no call): the
  // objects cannot change meanwhile. 1: read; 0: not plain; -1: walk it serially.
  int walk_parallel(PyObject* obj, bool recs, Side& s) {
    std::vector<PyObject*> rows, keys;
    const bool keyed = plain_dict(obj);
    if (keyed) {
      const Py_ssize_t n = PyDict_GET_SIZE(obj);
      rows.reserve(static_cast<size_t>(n));
      keys.reserve(static_cast<size_t>(n));
      Py_ssize_t pos = 0;
      PyObject *k, *v;
      while (PyDict_Next(obj, &pos, &k, &v)) {
        keys.push_back(k);
        rows.push_back(v);
      }
    } else if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
      const bool list = PyList_CheckExact(obj);
      const Py_ssize_t n = list ? PyList_GET_SIZE(obj) : PyTuple_GET_SIZE(obj);
      for (Py_ssize_t u = 0; u < n; ++u) {
        PyObject* v = list ? PyList_GET_ITEM(obj, u) : PyTuple_GET_ITEM(obj, u);
        if (PyDict_Check(v)) return -1;  // a list of dicts: the serial walk says why
        rows.push_back(v);
      }
    } else {
      return -1;
    }
    // every row's place in the buffers (the row pointers), and whether some row is a dict (values then)
    const size_t n_rows = rows.size();
    std::vector<int64_t> before(n_rows + 1, 0);
    bool any_dict = false;
    for (size_t u = 0; u < n_rows; ++u) {
      before[u + 1] = before[u] + static_cast<int64_t>(row_size(rows[u]));
      any_dict = any_dict || PyDict_Check(rows[u]);
    }
    const int64_t total = before[n_rows];
    if (total < parallel_min || n_rows < 2) return -1;
    // rows split into `threads` ranges of about equal entries
    const int T = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), n_rows));
    std::vector<size_t> bound(static_cast<size_t>(T) + 1, n_rows);
    bound[0] = 0;
    for (int t = 1; t < T; ++t)
      bound[static_cast<size_t>(t)] =
          static_cast<size_t>(std::lower_bound(before.begin(), before.end(), total * t / T) - before.begin());
    for (int t = 1; t <= T; ++t)
      bound[static_cast<size_t>(t)] = std::max(bound[static_cast<size_t>(t)], bound[static_cast<size_t>(t - 1)]);
    try {
      s.items.resize(static_cast<size_t>(total));
      if (any_dict) s.values.resize(static_cast<size_t>(total));
    } catch (...) {  // out of memory: the serial walk answers
      return -1;
    }
    int64_t* items = s.items.data();
    double* values = any_dict ? s.values.data() : nullptr;
    std::vector<Chunk> chunks(static_cast<size_t>(T));
    auto run = [T](const std::function<void(int)>& f) {
      std::vector<std::thread> pool;
      for (int t = 1; t < T; ++t) pool.emplace_back(f, t);
      f(0);
      for (auto& th : pool) th.join();
    };
    run([&](int t) {
      Chunk& c = chunks[static_cast<size_t>(t)];
      try {
        for (size_t u = bound[static_cast<size_t>(t)], e = bound[static_cast<size_t>(t) + 1]; u < e && c.ok; ++u)
          c.ok = chunk_row(rows[u], c, items + before[u], values ? values + before[u] : nullptr);
      } catch (...) {  // out of memory: the serial walk answers
        c.ok = false;
      }
    });
    for (const Chunk& c : chunks)
      if (!c.ok) return -1;
    // the chunks' str codes in the shared table, in row order; then the items rewritten by every thread
    std::vector<std::vector<int64_t>> code_of(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) {
      Chunk& c = chunks[static_cast<size_t>(t)];
      const int kinds = c.ids.kinds;
      // int and str ids together: not plain (as the walk by one thread finds at its end); a chunk's items are
      // then not all codes of its table
      if ((kinds & (kInt | kStr)) == (kInt | kStr)) return 0;
      ids_.kinds |= kinds;
      item_kinds_ |= kinds;
      if (kinds & kStr) {
        std::vector<int64_t>& m = code_of[static_cast<size_t>(t)];
        m.resize(c.ids.n_labels());
        for (size_t i = 0; i < m.size(); ++i) m[i] = ids_.add(c.ids.label(static_cast<int64_t>(i)));
      }
      s.rows_dicts = s.rows_dicts || c.rows_dicts;
      s.rows_lists = s.rows_lists || c.rows_lists;
    }
    run([&](int t) {
      const std::vector<int64_t>& m = code_of[static_cast<size_t>(t)];
      if (m.empty()) return;
      const int64_t* code = m.data();
      for (int64_t j = before[bound[static_cast<size_t>(t)]], e = before[bound[static_cast<size_t>(t) + 1]]; j < e; ++j)
        items[j] = code[items[j]];
    });
    s.keyed = keyed;
    s.user_objs = std::move(keys);
    s.indptr = std::move(before);
    s.has_values = any_dict;
    if (keyed && PyDict_GET_SIZE(obj) != static_cast<Py_ssize_t>(n_rows)) return 0;
    if (recs && s.rows_dicts && s.rows_lists) return 0;  // the Python reader says why
    if (recs) s.has_values = s.rows_dicts;
    if (!s.has_values) s.values.clear();
    return (item_kinds_ & (kInt | kStr)) != (kInt | kStr) ? 1 : 0;
  }

 public:
  // User keys: kinds (int/str) and, for str keys, codes in the user table (int keys keep their value).
  int code_users(Side& s) {
    int kinds = 0;
    s.user_vals.resize(s.user_objs.size());
    for (size_t i = 0; i < s.user_objs.size(); ++i) {
      PyObject* k = s.user_objs[i];
      PyTypeObject* t = Py_TYPE(k);
      if (t == &PyUnicode_Type || t == types().np_str) {
        kinds |= kStr;
        s.user_vals[i] = users_.add(k);
      } else if (t == &PyLong_Type || is_one_of(t, types().np_ints)) {
        kinds |= kInt;
        s.user_vals[i] = int_value(k);
      } else {
        throw NotPlain{};
      }
    }
    return kinds;
  }
  Ids& users() { return users_; }

 private:
  void item(PyObject* o, Side& s) { s.items.push_back(ids_.add(o)); }

  // A row's ids. The objects of a row lie anywhere in memory: their headers are fetched first, all at
  // once, then the table slots of their (cached) hashes, so the cache misses overlap instead of
  // following one another; then each id is coded.
  void items(PyObject* const* objs, size_t n, Side& s) {
    for (size_t j = 0; j < n; ++j) __builtin_prefetch(objs[j]);
    for (size_t j = 0; j < n; ++j) ids_.prefetch_slot(objs[j]);
    for (size_t j = 0; j < n; ++j) s.items.push_back(ids_.add(objs[j]));
  }

  static size_t row_size(PyObject* v) {
    if (PyList_CheckExact(v)) return static_cast<size_t>(PyList_GET_SIZE(v));
    if (PyTuple_CheckExact(v)) return static_cast<size_t>(PyTuple_GET_SIZE(v));
    if (PyDict_Check(v)) return static_cast<size_t>(PyDict_GET_SIZE(v));
    if (PyAnySet_Check(v)) return static_cast<size_t>(PySet_GET_SIZE(v));
    return 0;
  }

  void row(PyObject* v, bool recs, Side& s) {
    if (dict_rows && !plain_dict(v)) throw NotPlain{};
    if (plain_dict(v)) {
      s.rows_dicts = true;
      if (!s.has_values) {  // grades so far were all 1 (rows given as lists)
        s.values.assign(s.items.size(), 1.0);
        s.has_values = true;
      }
      const Py_ssize_t n = PyDict_GET_SIZE(v);
      Py_ssize_t pos = 0;
      PyObject *k, *x;
      keys_.clear();
      vals_.clear();
      while (PyDict_Next(v, &pos, &k, &x)) {
        keys_.push_back(k);
        vals_.push_back(x);
        __builtin_prefetch(x);
      }
      if (PyDict_GET_SIZE(v) != n || keys_.size() != static_cast<size_t>(n)) throw NotPlain{};
      items(keys_.data(), keys_.size(), s);
      for (PyObject* o : vals_) s.values.push_back(number_value(o));
    } else if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
      s.rows_lists = true;
      const bool list = PyList_CheckExact(v);
      const Py_ssize_t n = list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v);
      PyObject** objs =
          list ? reinterpret_cast<PyListObject*>(v)->ob_item : reinterpret_cast<PyTupleObject*>(v)->ob_item;
      items(objs, static_cast<size_t>(n), s);  // no Python code runs: the list cannot change
      if (s.has_values) s.values.insert(s.values.end(), static_cast<size_t>(n), 1.0);
    } else if (!recs && (PyAnySet_CheckExact(v))) {
      s.rows_lists = true;
      PyObject* it = PyObject_GetIter(v);  // the set iterator (C): stops with an error if the set changes size
      if (!it) {
        PyErr_Clear();
        throw NotPlain{};
      }
      Py_ssize_t n = 0;
      PyObject* x;
      while ((x = PyIter_Next(it)) != nullptr) {
        try {
          item(x, s);
        } catch (...) {
          Py_DECREF(x);
          Py_DECREF(it);
          throw;
        }
        Py_DECREF(x);  // the set still holds it
        ++n;
      }
      Py_DECREF(it);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        throw NotPlain{};
      }
      if (s.has_values) s.values.insert(s.values.end(), static_cast<size_t>(n), 1.0);
    } else {
      throw NotPlain{};
    }
    item_kinds_ |= ids_.kinds;
    s.indptr.push_back(static_cast<int64_t>(s.items.size()));
  }

  Ids ids_, users_;
  int item_kinds_ = 0;
  std::vector<PyObject*> keys_, vals_;  // a dict row's keys and values (scratch)
};

py::object side_tuple(Side& s, int user_kinds) {
  py::object users = py::none();
  if (s.keyed) {
    if (user_kinds == kStr) {
      py::array out = py::module_::import("numpy").attr("empty")(s.user_objs.size(), py::arg("dtype") = "O");
      auto** p = static_cast<PyObject**>(out.mutable_data());
      for (size_t i = 0; i < s.user_objs.size(); ++i) {
        Py_INCREF(s.user_objs[i]);
        PyObject* old = p[i];
        p[i] = s.user_objs[i];
        Py_XDECREF(old);
      }
      users = out;
    } else {
      users = to_array(std::move(s.user_vals));
    }
  }
  py::object values = py::none();
  if (s.has_values) values = to_array(std::move(s.values));
  return py::make_tuple(users, to_array(std::move(s.indptr)), to_array(std::move(s.items)), values);
}

// walk_py(truth_or_None, recs_or_None, dict_rows=False) -> None (not plain: use the Python readers) or
//   (truth_side, recs_side, labels, item_kind, rowmap)
// a side: None (not given) or (users, indptr, items, values); users None (positional), int64 or an object
// array of str; items: int ids' values (item_kind 1) or codes into `labels` (item_kind 2: every id an exact
// str, 4: some a numpy.str_; 0: no item);
// values: grades (truth; None: every grade 1) or scores (recs; given: ranked by score).
// rowmap: for both sides keyed by users of one kind, the recs row of every truth user (-1: none); else None.
// Both sides read by one Walker and their users joined: false when the objects are not plain. `joined`: both
// sides keyed by users of one kind, `rowmap` then the recs row of every truth user (-1: none).
struct Pair {
  Walker w;
  Side ts, rs;
  int tk = 0, rk = 0;
  std::vector<int64_t> rowmap;
  bool joined = false;
};

// The threads of a walk: `threads`, else RANKMETER_NUM_THREADS, else every core.
int walk_threads(int threads) {
  if (threads > 0) return threads;
  if (const char* env = std::getenv("RANKMETER_NUM_THREADS")) {
    const int t = std::atoi(env);
    if (t > 0) return t;
  }
  return std::max(1, max_threads());
}

bool walk_pair(py::handle truth, py::handle recs, bool dict_rows, Pair& P, int threads = 0,
               int64_t parallel_min = int64_t{1} << 16) {
  Walker& w = P.w;
  w.dict_rows = dict_rows;
  w.threads = walk_threads(threads);
  w.parallel_min = parallel_min;
  Side &ts = P.ts, &rs = P.rs;
  const bool has_t = !truth.is_none(), has_r = !recs.is_none();
  if (has_t && !w.walk(truth.ptr(), false, ts)) return false;
  if (has_r && !w.walk(recs.ptr(), true, rs)) return false;
  try {
    const int tk = P.tk = w.code_users(ts);
    const int rk = P.rk = w.code_users(rs);
    // user ids of both kinds in one side, or int on one side and str on the other: the Python readers say why
    if (tk == (kInt | kStr) || rk == (kInt | kStr) || (tk && rk && tk != rk)) return false;
    if (has_t && has_r && ts.keyed && rs.keyed && tk == rk) {
      P.joined = true;
      std::vector<int64_t>& rowmap = P.rowmap;
      rowmap.assign(ts.user_vals.size(), -1);
      if (tk == kStr) {
        // user codes come from one table: truth users first, so a recs user's code < n_truth is a truth user
        // (codes are unique per distinct id: dict keys are distinct)
        std::vector<int64_t> row_of(w.users().n_labels(), -1);
        for (size_t r = 0; r < rs.user_vals.size(); ++r) row_of[static_cast<size_t>(rs.user_vals[r])] = int64_t(r);
        for (size_t u = 0; u < ts.user_vals.size(); ++u) rowmap[u] = row_of[static_cast<size_t>(ts.user_vals[u])];
      } else if (tk == kInt) {
        Table<int64_t, IntEq> rows;
        bool added;
        for (size_t r = 0; r < rs.user_vals.size(); ++r) rows.find_or_add(rs.user_vals[r], rs.user_vals[r], added);
        // codes of `rows` are the recs rows (each key added once, in row order)
        for (size_t u = 0; u < ts.user_vals.size(); ++u) rowmap[u] = rows.find(ts.user_vals[u], ts.user_vals[u]);
      } else {
        P.joined = false;  // no keys on either side (two empty dicts)
      }
    }
  } catch (const NotPlain&) {
    return false;
  }
  return true;
}

// item kind: 0 no item, 1 int, 2 str (every one an exact str), 4 str (some a numpy.str_)
int item_kind(const Walker& w) {
  return (w.item_kinds() & kStr) ? ((w.item_kinds() & kNpStr) ? 4 : kStr) : (w.item_kinds() & kInt);
}

py::object walk_py(py::handle truth, py::handle recs, bool dict_rows, int threads, int64_t parallel_min) {
  Pair P;
  if (!walk_pair(truth, recs, dict_rows, P, threads, parallel_min)) return py::none();
  const int ik = item_kind(P.w);
  py::object labels = ik >= kStr ? py::object(P.w.ids().labels()) : py::object(py::none());
  py::object t = truth.is_none() ? py::object(py::none()) : side_tuple(P.ts, P.tk);
  py::object r = recs.is_none() ? py::object(py::none()) : side_tuple(P.rs, P.rk);
  py::object rm = P.joined ? py::object(to_array(std::move(P.rowmap))) : py::object(py::none());
  return py::make_tuple(t, r, labels, ik, rm);
}

// The per-user average precision of the list libraries, apk (ml_metrics) and _ark (recmetrics), on lists of lists
// in one call: the walk of both arguments, then per user, with a = actual[u] (repeats kept) and p = predicted[u]
// cut at k, the original's loop in the same floating-point operations,
//   hits = score = 0; for i, x in p: if x in a and x not in p[:i]: hits += 1; score += hits / (i + 1)
//   value = empty_value if a is empty, else score / (min(len(a), k) if den_min_k else len(a)),
// parallel over users with the GIL released (each value its own; the caller takes np.mean as the originals do).
// `x in a` and `x not in p[:i]` compare the walker's codes (Python equality of str and int ids). None: the
// objects are not plain lists of str or int ids (the caller's general path answers), or their lengths differ.
// The items of an exact list or tuple row (borrowed, read in place); false for any other object.
inline bool sequence_items(PyObject* v, PyObject* const*& objs, Py_ssize_t& len) {
  if (PyList_CheckExact(v)) {
    objs = reinterpret_cast<PyListObject*>(v)->ob_item;
    len = PyList_GET_SIZE(v);
    return true;
  }
  if (PyTuple_CheckExact(v)) {
    objs = reinterpret_cast<PyTupleObject*>(v)->ob_item;
    len = PyTuple_GET_SIZE(v);
    return true;
  }
  return false;
}

// One id of a short list as lists_ap_direct compares it: an exact str (ready) or an exact int within int64;
// `ok` false for anything else (float ids equal ints in Python, numpy scalars, bools: the walker's path).
struct DirectId {
  PyObject* o = nullptr;
  int64_t v = 0;  // an int's value
  bool str = false, ok = true;
};

inline DirectId direct_id(PyObject* o) {
  DirectId d;
  d.o = o;
  PyTypeObject* t = Py_TYPE(o);
  if (t == &PyUnicode_Type) {
#if PY_VERSION_HEX < 0x030C0000
    d.ok = PyUnicode_IS_READY(o);
#endif
    d.str = true;
    return d;
  }
  if (t == &PyLong_Type) {
    long long x = 0;
    d.ok = exact_int_nogil(o, x);
    d.v = static_cast<int64_t>(x);
    return d;
  }
  d.ok = false;
  return d;
}

// Python's == for two ids of direct_id: the same object, two equal str, or two equal ints (a str never equals an
// int).
inline bool direct_eq(const DirectId& x, const DirectId& y) {
  if (x.o == y.o) return true;
  if (x.str != y.str) return false;
  return x.str ? StrEq{}(x.o, y.o) : x.v == y.v;
}

// lists_ap without the walk, where every row of both lists is a list or tuple of at most kDirectMax exact str or
// int ids: each user's ids are compared with each other directly (Python's equality: no table of codes, no
// coded buffers), users in parallel. This thread holds the GIL and runs no Python code while the others only
// read the objects (as walk_parallel). false: a row or an id outside this form (the caller walks instead).
constexpr Py_ssize_t kDirectMax = 64;

// The originals' apk / _ark of one user's ids (lp already cut at k): Σ over the first occurrences of hits of
// hits-so-far / rank, divided by `den`, in their floating-point operations.
inline double direct_ap(const DirectId* ai, Py_ssize_t la, const DirectId* pi, Py_ssize_t lp, int64_t den) {
  double hits = 0.0, score = 0.0;
  for (Py_ssize_t i = 0; i < lp; ++i) {
    bool in_a = false, before = false;
    for (Py_ssize_t j = 0; j < la && !in_a; ++j) in_a = direct_eq(pi[i], ai[j]);
    if (!in_a) continue;
    for (Py_ssize_t q = 0; q < i && !before; ++q) before = direct_eq(pi[i], pi[q]);
    if (before) continue;
    hits += 1.0;
    score += hits / (static_cast<double>(i) + 1.0);
  }
  return score / static_cast<double>(den);
}

bool lists_ap_direct(PyObject* actual, PyObject* predicted, int64_t k, bool den_min_k, double empty_value, int threads,
                     std::vector<double>& out) {
  const Py_ssize_t n = PyList_GET_SIZE(actual);
  const auto row = [](PyObject* v, PyObject* const*& objs, Py_ssize_t& len) {
    return sequence_items(v, objs, len) && len <= kDirectMax;
  };
  out.assign(static_cast<size_t>(n), 0.0);
  const int T = n < 4096 ? 1 : walk_threads(threads);
  int bad = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T) if (T > 1) reduction(| : bad)
#endif
  {
    DirectId ai[kDirectMax], pi[kDirectMax];
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (Py_ssize_t u = 0; u < n; ++u) {
      if (bad) continue;
      PyObject* const* ao = nullptr;
      PyObject* const* po = nullptr;
      Py_ssize_t la = 0, lp = 0;
      if (!row(PyList_GET_ITEM(actual, u), ao, la) || !row(PyList_GET_ITEM(predicted, u), po, lp)) {
        bad = 1;
        continue;
      }
      lp = std::min<Py_ssize_t>(lp, static_cast<Py_ssize_t>(std::min<int64_t>(k, kDirectMax)));
      for (Py_ssize_t j = 0; j < la; ++j) __builtin_prefetch(ao[j]);
      for (Py_ssize_t j = 0; j < lp; ++j) __builtin_prefetch(po[j]);
      bool ok = true;
      for (Py_ssize_t j = 0; j < la; ++j) ok = (ai[j] = direct_id(ao[j])).ok && ok;
      for (Py_ssize_t j = 0; j < lp; ++j) ok = (pi[j] = direct_id(po[j])).ok && ok;
      if (!ok) {
        bad = 1;
        continue;
      }
      if (la == 0) {
        out[static_cast<size_t>(u)] = empty_value;
        continue;
      }
      out[static_cast<size_t>(u)] = direct_ap(ai, la, pi, lp, den_min_k ? std::min<int64_t>(la, k) : la);
    }
  }
  return !bad;
}

py::object lists_ap(py::handle actual, py::handle predicted, int64_t k, bool den_min_k, double empty_value,
                    int threads) {
  if (k < 1) throw py::value_error("lists_ap: k must be at least 1");
  if (!PyList_CheckExact(actual.ptr()) || !PyList_CheckExact(predicted.ptr())) return py::none();
  if (PyList_GET_SIZE(actual.ptr()) != PyList_GET_SIZE(predicted.ptr())) return py::none();
  {
    std::vector<double> direct;
    if (lists_ap_direct(actual.ptr(), predicted.ptr(), k, den_min_k, empty_value, threads, direct))
      return to_array(std::move(direct));
  }
  Pair P;
  if (!walk_pair(actual, predicted, false, P, threads)) return py::none();
  const Side &a = P.ts, &p = P.rs;
  if (p.has_values || p.rows_dicts) return py::none();  // a dict in `predicted`: sliced, it raises in Python
  const auto n = static_cast<int64_t>(a.indptr.size()) - 1;
  if (static_cast<int64_t>(p.indptr.size()) - 1 != n) return py::none();
  std::vector<double> out(static_cast<size_t>(n));
  {
    py::gil_scoped_release release;  // the walked buffers are owned by P, alive in this frame
    // one thread below 2^18 users (about a millisecond of work here): a team of OpenMP threads would spin on
    // the second core after the call, where the next call's walk needs it
    const int T = n < (int64_t{1} << 18) ? 1 : walk_threads(threads);
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T) if (T > 1)
#endif
    {
      std::vector<int64_t> sa, seen;  // a long row's actual codes sorted; codes already listed
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
      for (int64_t u = 0; u < n; ++u) {
        const int64_t* ai = a.items.data() + a.indptr[u];
        const int64_t la = a.indptr[u + 1] - a.indptr[u];
        const int64_t* pi = p.items.data() + p.indptr[u];
        const int64_t lp = std::min(p.indptr[u + 1] - p.indptr[u], k);
        if (la == 0) {
          out[static_cast<size_t>(u)] = empty_value;
          continue;
        }
        const bool small = la <= 64 && lp <= 64;
        if (!small) {
          sa.assign(ai, ai + la);
          std::sort(sa.begin(), sa.end());
          seen.clear();
        }
        double hits = 0.0, score = 0.0;
        for (int64_t i = 0; i < lp; ++i) {
          const int64_t x = pi[i];
          bool in_a = false, before = false;
          if (small) {
            for (int64_t j = 0; j < la && !in_a; ++j) in_a = ai[j] == x;
            if (!in_a) continue;
            for (int64_t q = 0; q < i && !before; ++q) before = pi[q] == x;
          } else {
            in_a = std::binary_search(sa.begin(), sa.end(), x);
            if (!in_a) continue;
            // a hit listed again: `seen` holds the hits so far (a repeat of a non-hit is no hit either)
            before = std::find(seen.begin(), seen.end(), x) != seen.end();
            if (!before) seen.push_back(x);
          }
          if (before) continue;
          hits += 1.0;
          score += hits / (static_cast<double>(i) + 1.0);
        }
        const int64_t den = den_min_k ? std::min(la, k) : la;
        out[static_cast<size_t>(u)] = score / static_cast<double>(den);
      }
    }
  }
  return to_array(std::move(out));
}

// The sets of distinct_ids, one per thread and kept between calls, so that a call allocates nothing and clears
// little: a slot is taken when its `epoch` is the table's current one (a new table: a new epoch, no clearing).
// Each call sizes its tables to its own rows (a prefix of the kept memory), so a small call after a large one
// still probes a table that fits in the cache.

// One open-addressing set of such slots. Key: str (PyObject*, by value) or int64; `h`: the key's hash.
template <class Key>
class EpochSet {
 public:
  // Empty, with `n_slots` slots (a power of two; it grows past three quarters full); `epoch`: the caller's counter.
  void start(size_t n_slots, uint32_t& epoch) {
    if (slots_.size() < n_slots) slots_.resize(n_slots, Slot{});
    mask_ = n_slots - 1;
    cur_ = ++epoch;
    keys_.clear();
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[fold(h) & mask_]); }
  // true when `k` was not in the set (and is now)
  bool add(Key k, uint64_t h, uint32_t& epoch) {
    if (4 * (keys_.size() + 1) > 3 * (mask_ + 1)) grow(epoch);
    if (!put(slots_, mask_, cur_, k, fold(h))) return false;
    keys_.emplace_back(k, h);
    return true;
  }
  const std::vector<std::pair<Key, uint64_t>>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  // the epochs made 0 again (the caller's counter restarts)
  void reset_epochs() {
    for (Slot& s : slots_) s.epoch = 0;
    for (Slot& s : next_) s.epoch = 0;
  }
  void trim(size_t keep) {
    if (slots_.capacity() > keep) std::vector<Slot>().swap(slots_);
    if (next_.capacity() > keep) std::vector<Slot>().swap(next_);
    if (keys_.capacity() > keep) std::vector<std::pair<Key, uint64_t>>().swap(keys_);
    mask_ = 0;
  }

 private:
  struct Slot {
    Key k{};
    uint32_t h = 0;  // the hash folded to 32 bits (its low bits pick the slot)
    uint32_t epoch = 0;
  };
  static uint32_t fold(uint64_t h) { return static_cast<uint32_t>(spread_hash(static_cast<int64_t>(h))); }
  static bool same(PyObject* a, PyObject* b) { return StrEq{}(a, b); }
  static bool same(int64_t a, int64_t b) { return a == b; }
  static bool put(std::vector<Slot>& t, size_t mask, uint32_t e, Key k, uint32_t h) {
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = t[i];
      if (s.epoch != e) {
        s = Slot{k, h, e};
        return true;
      }
      if (s.h == h && same(s.k, k)) return false;
    }
  }
  void grow(uint32_t& epoch) {
    const size_t cap = 2 * (mask_ + 1);
    if (next_.size() < cap) next_.resize(cap, Slot{});
    const uint32_t e = ++epoch;
    for (size_t i = 0; i <= mask_; ++i)
      if (slots_[i].epoch == cur_) put(next_, cap - 1, e, slots_[i].k, slots_[i].h);
    slots_.swap(next_);
    mask_ = cap - 1;
    cur_ = e;
  }
  std::vector<Slot> slots_, next_;
  std::vector<std::pair<Key, uint64_t>> keys_;
  size_t mask_ = 0;
  uint32_t cur_ = 0;
};

struct DistinctSets {
  static constexpr uint64_t kSmall = uint64_t{1} << 16;
  std::vector<PyObject*> filter;  // a direct-mapped cache of the objects met (an object met again is skipped)
  std::vector<PyObject*> fresh;   // the objects of this call that passed the filter, to be read
  std::vector<std::pair<PyObject*, uint64_t>> str_ids;  // str of fresh, with their hashes (repeats allowed)
  EpochSet<PyObject*> direct;   // str read as they came (the filter left): this thread's, any hash
  EpochSet<PyObject*> mine;     // str of every thread whose hash falls to this one
  EpochSet<int64_t> ints;       // ints outside 0..kSmall-1
  std::vector<uint64_t> small;  // ints 0..kSmall-1, one bit each
  uint32_t epoch = 0;
  size_t n_small = 0;
  bool bad = false, small_live = false;  // small_live: `small` cleared for this call

  // Ready for a call of `rows` rows (the first table size; tables grow past it).
  void start(size_t rows) {
    size_t cap = 64;  // slots for 6 ids a row, up to 8,192 slots
    while (cap < rows * 8 && cap < (size_t{1} << 13)) cap *= 2;
    size_t fcap = 4096;  // the filter: 8 slots a row, 4,096 to 65,536
    while (fcap < rows * 8 && fcap < 65536) fcap *= 2;
    filter.assign(fcap, nullptr);
    small_live = false;
    n_small = 0;
    fresh.clear();
    str_ids.clear();
    bad = false;
    // a call takes at most one epoch a table size (64 at most, each set): near the end of the range, every slot
    // is made free once and the count starts again
    if (epoch > UINT32_MAX - 1024) {
      direct.reset_epochs(), mine.reset_epochs(), ints.reset_epochs();
      epoch = 0;
    }
    direct.start(cap, epoch);
    mine.start(cap, epoch);
    ints.start(cap, epoch);
  }
  void add_int(int64_t v) {
    if (static_cast<uint64_t>(v) < kSmall) {
      if (!small_live) {  // cleared when first needed
        small.assign(kSmall / 64, 0);
        small_live = true;
      }
      uint64_t& w = small[static_cast<size_t>(v) >> 6];
      const uint64_t bit = uint64_t{1} << (v & 63);
      n_small += (w & bit) == 0;
      w |= bit;
      return;
    }
    ints.add(v, static_cast<uint64_t>(v), epoch);
  }
  // Memory past what a call of some ten thousand rows needs is given back after the call.
  void trim() {
    constexpr size_t kKeep = size_t{1} << 16;
    for (auto* v : {&fresh})
      if (v->capacity() > kKeep) std::vector<PyObject*>().swap(*v);
    if (str_ids.capacity() > kKeep) std::vector<std::pair<PyObject*, uint64_t>>().swap(str_ids);
    direct.trim(kKeep), mine.trim(kKeep), ints.trim(kKeep);
  }
};

// This thread's sets (a function, so that the thread-local address is looked up once a call).
__attribute__((noinline)) DistinctSets& thread_distinct_sets() {
  thread_local DistinctSets sets;
  return sets;
}

// The number of distinct ids in a list of lists (or tuples) of exact str or int ids, as len(set(chain(*rows)))
// counts them under Python's equality (an int never equals a str), or -1 when a row or an id is outside that form
// (the caller's set answers). Rows in parallel, each thread with its own sets (str keyed by a hash of their code
// points, so no str hash is computed or needed); then each thread counts the str of every thread whose hash falls
// to it, and the ints are merged. This thread holds the GIL and runs no Python code while the others only read
// the objects (as walk_parallel).
// picked_rows: the rows to read, by position (repeats allowed, each within the list), instead of every row
// (nullptr).
int64_t count_distinct(PyObject* rows, const std::vector<int64_t>* picked_rows, int threads) {
  const auto n_rows = static_cast<size_t>(PyList_GET_SIZE(rows));
  const bool pick = picked_rows != nullptr;
  const int64_t* picks = pick ? picked_rows->data() : nullptr;
  const size_t n_picks = pick ? picked_rows->size() : 0;
  std::vector<Py_ssize_t> picked;  // the rows to read
  if (pick) {
    picked.reserve(n_picks);
    if (n_picks * 32 < n_rows) {  // a few rows of many: read as drawn (a row drawn twice is read twice)
      for (size_t i = 0; i < n_picks; ++i) picked.push_back(static_cast<Py_ssize_t>(picks[i]));
    } else {
      // each once, in the order of the rows (a count does not depend on it): the lists are then read from `rows`
      // in order, and lists made one after another tend to lie in memory in that order too
      std::vector<uint64_t> met((n_rows + 63) / 64);
      for (size_t i = 0; i < n_picks; ++i) met[static_cast<size_t>(picks[i]) >> 6] |= uint64_t{1} << (picks[i] & 63);
      for (size_t w = 0; w < met.size(); ++w)
        for (uint64_t b = met[w]; b != 0; b &= b - 1)
          picked.push_back(static_cast<Py_ssize_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(b))));
    }
  }
  const Py_ssize_t n = pick ? static_cast<Py_ssize_t>(picked.size()) : PyList_GET_SIZE(rows);
  // Picked rows of str ids: one thread below 16,384 rows (a vocabulary's str are read by both threads, and the
  // split of them costs more than a second thread saves: measured on 1,000 rows). Of ints (each id an object of
  // its own, read once): two threads from 512 rows on. The first id of the first rows tells which.
  Py_ssize_t min_rows = 4096;
  if (pick) {
    min_rows = 16384;
    for (Py_ssize_t u = 0; u < std::min<Py_ssize_t>(n, 4); ++u) {
      PyObject* const* ids = nullptr;
      Py_ssize_t len = 0;
      if (sequence_items(PyList_GET_ITEM(rows, picked[static_cast<size_t>(u)]), ids, len) && len > 0) {
        if (PyLong_CheckExact(ids[0])) min_rows = 512;
        break;
      }
    }
  }
  const int T = n < min_rows ? 1 : walk_threads(threads);
  const auto str_hash = [](PyObject* o) {  // a multiply-mix over the canonical bytes, 8 at a time (equal str:
                                           // equal kind and bytes)
    const auto* b = static_cast<const unsigned char*>(PyUnicode_DATA(o));
    const size_t len = static_cast<size_t>(PyUnicode_GET_LENGTH(o)) * PyUnicode_KIND(o);
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0xff51afd7ed558ccdULL);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
      uint64_t w;
      std::memcpy(&w, b + i, 8);
      h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
      h ^= h >> 29;
    }
    if (i < len) {  // 1 to 7 bytes left, read in at most two loads that may overlap (the length is mixed in)
      const size_t r = len - i;
      uint64_t w;
      if (r >= 4) {
        uint32_t lo, hi;
        std::memcpy(&lo, b + i, 4);
        std::memcpy(&hi, b + len - 4, 4);
        w = lo | (uint64_t{hi} << 32);
      } else {
        w = b[i] | (uint64_t{b[i + r / 2]} << 8) | (uint64_t{b[len - 1]} << 16);
      }
      h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
      h ^= h >> 29;
    }
    return h;
  };
  std::vector<DistinctSets*> sets(static_cast<size_t>(T));
  const auto row_at = [&](Py_ssize_t u) { return PyList_GET_ITEM(rows, pick ? picked[static_cast<size_t>(u)] : u); };
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T) if (T > 1)
#endif
  {
    DistinctSets& S = thread_distinct_sets();
    const int tid = thread_id();
    sets[static_cast<size_t>(tid)] = &S;
    S.start(static_cast<size_t>((n + T - 1) / T));
    const size_t fmask = S.filter.size() - 1;
    PyObject** const filter = S.filter.data();
    std::vector<PyObject*>& fresh = S.fresh;
    bool bad = false, filtering = true;
    size_t met = 0;  // ids met while filtering
    // an id read: an int into this thread's ints, a str into `mine` (one thread) or kept with its hash for the
    // split below (more); false for an id outside the form
    const auto take = [&S, &str_hash, T](PyObject* o) {
      const DirectId d = direct_id(o);
      if (!d.ok) return false;
      if (!d.str)
        S.add_int(d.v);
      else if (T == 1)
        S.mine.add(o, str_hash(o), S.epoch);
      else
        S.str_ids.emplace_back(o, str_hash(o));
      return true;
    };
    const auto take_now = [&S, &str_hash, T](PyObject* o) {  // as take, a str put in `direct` at once
      const DirectId d = direct_id(o);
      if (!d.ok) return false;
      if (!d.str)
        S.add_int(d.v);
      else
        (T == 1 ? S.mine : S.direct).add(o, str_hash(o), S.epoch);
      return true;
    };
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(static) nowait
#endif
    for (Py_ssize_t u = 0; u < n; ++u) {
      if (bad) continue;
      // rows ahead fetched into the cache step by step (a picked row's place in `rows`, the row object, a list's
      // item array): picked rows lie anywhere in memory, and each step waits on the one before
      if (pick && u + 24 < n) __builtin_prefetch(&PyList_GET_ITEM(rows, picked[static_cast<size_t>(u) + 24]));
      // (both cache lines a list object or a short item array may straddle; addresses as integers, so that no
      // pointer is moved outside its object)
      const auto fetch2 = [](const void* p, size_t last) {
        const auto a = reinterpret_cast<uintptr_t>(p);
        __builtin_prefetch(reinterpret_cast<const void*>(a));
        __builtin_prefetch(reinterpret_cast<const void*>(a + last));
      };
      if (u + 12 < n) fetch2(row_at(u + 12), sizeof(PyListObject) - 1);
      if (u + 4 < n) {
        PyObject* ahead = row_at(u + 4);
        if (Py_TYPE(ahead) == &PyList_Type && PyList_GET_SIZE(ahead) > 0)
          fetch2(reinterpret_cast<PyListObject*>(ahead)->ob_item,
                 static_cast<size_t>(std::min<Py_ssize_t>(PyList_GET_SIZE(ahead), 16)) * sizeof(PyObject*) - 1);
      }
      PyObject* const* objs = nullptr;
      Py_ssize_t len = 0;
      if (!sequence_items(row_at(u), objs, len)) {
        bad = true;
        continue;
      }
      // an object met just before (ids of one vocabulary are one object each) is skipped unread: the filter
      // holds only objects read already (the objects live as long as the lists). Where it skips fewer than one
      // id in four over the first 4,096, every id is an object of its own (ids read from a file, ints): the
      // filter is left for the rest
      if (!filtering) {  // each id read as it comes, the ids of a row ahead fetched meanwhile
        if (u + 2 < n) {
          PyObject* const* ids = nullptr;
          Py_ssize_t l2 = 0;
          if (sequence_items(row_at(u + 2), ids, l2))
            for (Py_ssize_t j = 0; j < l2; ++j) __builtin_prefetch(ids[j]);
        }
        for (Py_ssize_t j = 0; j < len && !bad; ++j) bad = !take_now(objs[j]);
        continue;
      }
      for (Py_ssize_t j = 0; j < len; ++j) {
        PyObject*& slot = filter[(reinterpret_cast<uintptr_t>(objs[j]) >> 6) & fmask];
        if (slot == objs[j]) continue;
        slot = objs[j];
        fresh.push_back(objs[j]);
      }
      met += static_cast<size_t>(len);
      if (met >= 4096) filtering = 4 * (met - fresh.size()) >= met;
    }
    // then the objects that passed, read with the next ones fetched ahead (in a loop of their own: reading them
    // within the loop above, a few rows later, measured slower)
    for (size_t i = 0, nf = fresh.size(); i < nf && !bad; ++i) {
      if (i + 16 < nf) {  // an object's header and the first bytes of a str's code points, often on the next line
        const auto a = reinterpret_cast<uintptr_t>(fresh[i + 16]);
        __builtin_prefetch(reinterpret_cast<const void*>(a));
        __builtin_prefetch(reinterpret_cast<const void*>(a + sizeof(PyASCIIObject) + 7));
      }
      bad = !take(fresh[i]);
    }
    S.bad = bad;
    // The str: each thread puts in its own table those of every thread whose hash falls to it (equal str, equal
    // hash: the tables hold disjoint sets, whose sizes add up), each slot fetched a few ids ahead
#ifdef RANKMETER_HAVE_OPENMP
    if (T > 1) {
#pragma omp barrier
    }
#endif
    const auto put_mine = [&](const std::vector<std::pair<PyObject*, uint64_t>>& ids) {
      const size_t m = ids.size();
      const auto ours = [&](size_t i) {  // the thread of a hash: its top 32 bits scaled to T (no division)
        return T == 1 || static_cast<int>(((ids[i].second >> 32) * static_cast<uint64_t>(T)) >> 32) == tid;
      };
      for (size_t i = 0; i < m; ++i) {
        if (i + 8 < m && ours(i + 8)) S.mine.prefetch(ids[i + 8].second);
        if (ours(i)) S.mine.add(ids[i].first, ids[i].second, S.epoch);
      }
    };
    for (int t = 0; t < T; ++t) {
      put_mine(sets[static_cast<size_t>(t)]->str_ids);
      put_mine(sets[static_cast<size_t>(t)]->direct.keys());
    }
  }
  bool bad = false;
  constexpr size_t kSmallWords = DistinctSets::kSmall / 64;
  for (DistinctSets* S : sets) bad = bad || S->bad;
  int64_t count = -1;
  if (!bad) {
    DistinctSets& all = *sets[0];
    size_t strs = 0;
    for (DistinctSets* S : sets) strs += S->mine.size();
    for (size_t t = 1; t < sets.size(); ++t) {  // the ints merged (a few: most are small, one bit each)
      for (const auto& kv : sets[t]->ints.keys()) all.add_int(kv.first);
      if (!sets[t]->small_live) continue;
      if (!all.small_live) all.small.assign(kSmallWords, 0), all.small_live = true;
      for (size_t w = 0; w < kSmallWords; ++w) all.small[w] |= sets[t]->small[w];
    }
    if (sets.size() > 1) {
      all.n_small = 0;
      if (all.small_live)
        for (uint64_t w : all.small) all.n_small += static_cast<size_t>(__builtin_popcountll(w));
    }
    count = static_cast<int64_t>(all.n_small + all.ints.size() + strs);
  }
  for (DistinctSets* S : sets) S->trim();
  return count;
}

int64_t distinct_ids(py::handle rows_obj, int threads, const std::optional<py::array_t<int64_t>>& pick) {
  if (!PyList_CheckExact(rows_obj.ptr())) return -1;
  if (!pick) return count_distinct(rows_obj.ptr(), nullptr, threads);
  if (pick->ndim() != 1) throw py::value_error("distinct_ids: pick must be one-dimensional");
  const Py_ssize_t n_rows = PyList_GET_SIZE(rows_obj.ptr());
  const auto p = pick->unchecked<1>();
  std::vector<int64_t> picks(static_cast<size_t>(p.shape(0)));
  for (py::ssize_t i = 0; i < p.shape(0); ++i) {
    const int64_t r = p(i);
    if (r < 0 || r >= n_rows) throw py::index_error("distinct_ids: a picked row is out of range");
    picks[static_cast<size_t>(i)] = r;
  }
  return count_distinct(rows_obj.ptr(), &picks, threads);
}

// Python's MT19937 (Modules/_randommodule.c): 624 words and the position of the next one.
struct Mersenne {
  static constexpr int N = 624, M = 397;
  uint32_t mt[N];
  int index = N;  // N: the next draw makes N new words
  uint32_t next() {
    constexpr uint32_t kMatrixA = 0x9908b0dfU, kUpper = 0x80000000U, kLower = 0x7fffffffU;
    if (index >= N) {  // the next N words at once (j + 1 and j + M taken modulo N)
      const auto twist = [this](int j, int j1, int jm) {
        const uint32_t y = (mt[j] & kUpper) | (mt[j1] & kLower);
        mt[j] = mt[jm] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
      };
      int j = 0;
      for (; j < N - M; ++j) twist(j, j + 1, j + M);
      for (; j < N - 1; ++j) twist(j, j + 1, j + M - N);
      twist(N - 1, 0, M - 1);
      index = 0;
    }
    uint32_t y = mt[index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }
  // random.choices(range(n), k=k): floor(random() * n) k times, random() being the 53-bit double made of two
  // words (a >> 5, b >> 6) as _random.Random.random makes it. false (the positions unusable) when one would fall
  // outside the population.
  bool choices(int64_t n, int64_t k, int64_t* out) {
    const double nd = static_cast<double>(n);
    for (int64_t i = 0; i < k; ++i) {
      const uint32_t a = next() >> 5, b = next() >> 6;
      const double u = (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
      const double x = u * nd;  // at least 0: its floor is its truncation
      if (!(x < nd)) return false;
      out[i] = static_cast<int64_t>(x);
    }
    return true;
  }
};

// random.choices(population, k=k) of Python's random module without a Python call per draw: `state` is the
// generator's internal state as Random.getstate() gives it (624 words of MT19937 and the position), n the
// population's size. Returns (the k positions, the state after the draws), or None when the state is not such a
// tuple or a position would fall outside the population (the caller's random.choices answers then).
py::object mt_choices(py::handle state_obj, int64_t n, int64_t k) {
  constexpr int N = Mersenne::N;
  PyObject* st = state_obj.ptr();
  if (!PyTuple_CheckExact(st) || PyTuple_GET_SIZE(st) != N + 1 || n < 1 || k < 0) return py::none();
  Mersenne g;
  for (int i = 0; i <= N; ++i) {
    PyObject* o = PyTuple_GET_ITEM(st, i);
    if (!PyLong_CheckExact(o)) return py::none();
    const unsigned long v = PyLong_AsUnsignedLong(o);
    if (v == static_cast<unsigned long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      return py::none();
    }
    if (v > (i < N ? 0xffffffffUL : static_cast<unsigned long>(N))) return py::none();
    if (i < N)
      g.mt[i] = static_cast<uint32_t>(v);
    else
      g.index = static_cast<int>(v);
  }
  py::array_t<int64_t> out(static_cast<py::ssize_t>(k));
  if (!g.choices(n, k, out.mutable_data())) return py::none();
  py::tuple after(N + 1);
  for (int i = 0; i < N; ++i)
    after[static_cast<size_t>(i)] = py::reinterpret_steal<py::object>(PyLong_FromUnsignedLong(g.mt[i]));
  after[N] = py::int_(g.index);
  return py::make_tuple(out, after);
}

// A _random.Random object as Modules/_randommodule.c lays it out (CPython 3.8 on).
struct RandomObjectLayout {
  PyObject_HEAD int index;
  uint32_t state[Mersenne::N];
};

// The generator's words and position, read in place, when `o` is an instance of _random.Random (or of a class
// made from it in Python) whose layout is the one above: checked once in the process against getstate() of a
// generator seeded here, then by the type's size. nullptr otherwise, and always on a build without the GIL
// (there the object has its own lock).
RandomObjectLayout* random_object(PyObject* o) {
#ifdef Py_GIL_DISABLED
  (void)o;
  return nullptr;
#else
  static PyTypeObject* base = nullptr;
  static int layout = -1;  // -1 not checked yet, 0 other, 1 as RandomObjectLayout
  if (layout < 0) {
    layout = 0;
    try {
      py::object cls = py::module_::import("_random").attr("Random");
      auto* t = reinterpret_cast<PyTypeObject*>(cls.ptr());
      if (PyType_Check(cls.ptr()) && t->tp_basicsize == static_cast<Py_ssize_t>(sizeof(RandomObjectLayout))) {
        py::object r = cls(20261127);
        r.attr("random")();
        py::tuple st = r.attr("getstate")();
        auto* raw = reinterpret_cast<RandomObjectLayout*>(r.ptr());
        bool same = PyTuple_GET_SIZE(st.ptr()) == Mersenne::N + 1 &&
                    py::cast<int64_t>(st[Mersenne::N]) == static_cast<int64_t>(raw->index);
        for (int i = 0; same && i < Mersenne::N; ++i)
          same = py::cast<uint64_t>(st[static_cast<size_t>(i)]) == raw->state[i];
        if (same) {
          base = t;
          Py_INCREF(cls.ptr());  // kept for the process's life, as the module keeps it
          layout = 1;
        }
      }
    } catch (py::error_already_set&) {
      PyErr_Clear();
    }
  }
  if (layout != 1 || !PyObject_TypeCheck(o, base)) return nullptr;
  auto* r = reinterpret_cast<RandomObjectLayout*>(o);
  return r->index >= 0 && r->index <= Mersenne::N ? r : nullptr;
#endif
}

// random.choices(range(n), k=k) drawn from the generator `generator` itself (a random.Random): its state
// advanced as that call advances it, the k positions returned; None (the generator untouched) when its layout is
// not known here or a position would fall outside the population.
py::object mt_choices_inplace(py::handle generator, int64_t n, int64_t k) {
  RandomObjectLayout* r = random_object(generator.ptr());
  if (r == nullptr || n < 1 || k < 0) return py::none();
  Mersenne g;
  std::memcpy(g.mt, r->state, sizeof g.mt);
  g.index = r->index;
  py::array_t<int64_t> out(static_cast<py::ssize_t>(k));
  if (!g.choices(n, k, out.mutable_data())) return py::none();
  std::memcpy(r->state, g.mt, sizeof g.mt);
  r->index = g.index;
  return std::move(out);
}

// recmetrics' catalog_coverage in one call: the number of distinct ids of the k rows random.choices(rows, k=k)
// draws from the random.Random `generator` (as count_distinct counts them), the generator advanced as that call
// advances it. None, the generator untouched, where the generator's layout is not known here, `rows` is not a
// non-empty list, k < 1, or an id or a row is outside count_distinct's form (the caller draws and counts in
// Python then).
py::object draw_distinct(py::handle generator, py::handle rows, int64_t k, int threads) {
  RandomObjectLayout* r = random_object(generator.ptr());
  if (r == nullptr || !PyList_CheckExact(rows.ptr()) || k < 1) return py::none();
  const Py_ssize_t n = PyList_GET_SIZE(rows.ptr());
  if (n < 1) return py::none();
  Mersenne g;
  std::memcpy(g.mt, r->state, sizeof g.mt);
  g.index = r->index;
  std::vector<int64_t> picks(static_cast<size_t>(k));
  if (!g.choices(n, k, picks.data())) return py::none();
  const int64_t count = count_distinct(rows.ptr(), &picks, threads);
  if (count < 0) return py::none();
  std::memcpy(r->state, g.mt, sizeof g.mt);
  r->index = g.index;
  return py::int_(count);
}

// A score as trec_eval 9 stores it: rounded to float32 (beyond float32's range: infinite), back in a double.
double as_float32(double s) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  if (std::isnan(s) || std::isinf(s) || std::fabs(s) <= kMax) return std::isnan(s) ? s : double(static_cast<float>(s));
  // beyond the largest float: round to nearest (ties to even, which is infinity there): half an ulp is 2^103
  return std::fabs(s) < kMax + std::ldexp(1.0, 103) ? std::copysign(kMax, s) : std::copysign(HUGE_VAL, s);
}

// Two ready str objects in code point order (PyUnicode_Compare's order, trec_eval's strcmp of their UTF-8), read
// without the GIL: <0, 0, >0.
inline int str_cmp_nogil(PyObject* a, PyObject* b) {
  if (a == b) return 0;
  const Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b), n = std::min(na, nb);
  const int ka = PyUnicode_KIND(a), kb = PyUnicode_KIND(b);
  const void* da = PyUnicode_DATA(a);
  const void* db = PyUnicode_DATA(b);
  if (ka == PyUnicode_1BYTE_KIND && kb == PyUnicode_1BYTE_KIND) {
    const int c = std::memcmp(da, db, static_cast<size_t>(n));
    if (c != 0) return c;
  } else {
    for (Py_ssize_t i = 0; i < n; ++i) {
      const Py_UCS4 x = PyUnicode_READ(ka, da, i), y = PyUnicode_READ(kb, db, i);
      if (x != y) return x < y ? -1 : 1;
    }
  }
  return na < nb ? -1 : (na > nb ? 1 : 0);
}

// An exact, ready str id and its cached hash (-1: none cached; then compared by value alone).
inline bool direct_str(PyObject* o, Py_hash_t& h) {
  if (Py_TYPE(o) != &PyUnicode_Type) return false;
#if PY_VERSION_HEX < 0x030C0000
  if (!PyUnicode_IS_READY(o)) return false;
#endif
  h = reinterpret_cast<PyASCIIObject*>(o)->hash;
  return true;
}

// The buffers of trec_nested's pass read straight from the dicts, each query on its own (no table of document
// codes): for each query of `run` (in its order) with a non-empty qrels dict, its qrels documents get the codes
// 0..m-1 (dict order) and each run document the code of the qrels document equal to it (Python's equality of two
// str), else m + its position in the run dict; the run list ranked as trec_nested ranks it. Queries in parallel:
// this thread holds the GIL and runs no Python code while the others only read the objects (as walk_parallel).
// false: something outside this form (a key or document of another type than exact str, a value other than a
// float, bool or int within int64, a mix of str and int query ids, a dict subclass): the walker's path answers.
// `nan`: a score is NaN (trec_nested answers None).
struct DirectTrec {
  // references to the query ids and the inner dicts read: a lookup in `qrels` may run Python code (the __eq__
  // of a key with the same hash), which could drop them from the dicts
  std::vector<py::object> held;
  std::vector<PyObject*> keys;  // the evaluated queries, in the run's order (held)
  std::vector<int64_t> rows;    // their rows in the run
  std::vector<int64_t> t_indptr{0}, r_indptr{0}, t_items, r_items;
  std::vector<double> grades;
  int64_t id_bound = 0;  // every code is below it
  bool nan = false;
};

bool trec_direct(PyObject* qrels, PyObject* run, bool by_input, int threads, DirectTrec& D) {
  const Py_ssize_t n_run = PyDict_GET_SIZE(run);
  std::vector<PyObject*> r_dicts, t_dicts;  // per run query: its run dict, its qrels dict (null: not evaluated)
  std::vector<int64_t> u_at;                // per run query: its user (-1: not evaluated)
  r_dicts.reserve(static_cast<size_t>(n_run));
  t_dicts.reserve(static_cast<size_t>(n_run));
  int key_kinds = 0;
  {
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    int64_t row = 0;
    while (PyDict_Next(run, &pos, &k, &v)) {
      if (PyUnicode_CheckExact(k)) {
        key_kinds |= kStr;
      } else if (PyLong_CheckExact(k)) {
        long long x = 0;
        if (!exact_int_nogil(k, x)) return false;
        key_kinds |= kInt;
      } else {
        return false;
      }
      if (!PyDict_CheckExact(v)) return false;
      PyObject* t = PyDict_GetItemWithError(qrels, k);  // borrowed; exact str or int: no Python code runs
      if (!t && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (t && !PyDict_CheckExact(t)) return false;
      if (t && PyDict_GET_SIZE(t) == 0) t = nullptr;  // a query without qrels rows is not evaluated
      D.held.push_back(py::reinterpret_borrow<py::object>(k));
      D.held.push_back(py::reinterpret_borrow<py::object>(v));
      if (t) D.held.push_back(py::reinterpret_borrow<py::object>(t));
      r_dicts.push_back(v);
      t_dicts.push_back(t);
      if (t) {
        u_at.push_back(static_cast<int64_t>(D.keys.size()));
        D.keys.push_back(k);
        D.rows.push_back(row);
        D.t_indptr.push_back(D.t_indptr.back() + PyDict_GET_SIZE(t));
        D.r_indptr.push_back(D.r_indptr.back() + PyDict_GET_SIZE(v));
        D.id_bound = std::max<int64_t>(D.id_bound, PyDict_GET_SIZE(t) + PyDict_GET_SIZE(v));
      } else {
        u_at.push_back(-1);
      }
      ++row;
    }
    if (PyDict_GET_SIZE(run) != n_run || static_cast<Py_ssize_t>(row) != n_run) return false;
  }
  if (key_kinds == (kInt | kStr)) return false;
  D.t_items.resize(static_cast<size_t>(D.t_indptr.back()));
  D.grades.resize(static_cast<size_t>(D.t_indptr.back()));
  D.r_items.resize(static_cast<size_t>(D.r_indptr.back()));
  const int T = n_run < 2048 ? 1 : walk_threads(threads);
  int bad = 0, nan = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T) if (T > 1) reduction(| : bad, nan)
#endif
  {
    std::vector<PyObject*> rdoc, tdoc;
    std::vector<Py_hash_t> rh, th;
    std::vector<double> sc;
    std::vector<int64_t> code, idx;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (Py_ssize_t q = 0; q < n_run; ++q) {
      if (bad) continue;
      PyObject* v = r_dicts[static_cast<size_t>(q)];
      const int64_t u = u_at[static_cast<size_t>(q)];
      // the sizes planned above (a dict changed since by a key's __eq__ is refused below, never overrun)
      const Py_ssize_t n = u < 0 ? PyDict_GET_SIZE(v) : D.r_indptr[u + 1] - D.r_indptr[u];
      rdoc.clear();
      sc.clear();
      bool q_nan = false;
      {
        Py_ssize_t pos = 0;
        PyObject *k, *x;
        while (PyDict_Next(v, &pos, &k, &x)) {
          double s = 0.0;
          if (!number_nogil(x, s)) {
            bad = 1;
            break;
          }
          if (std::isnan(s)) q_nan = true;
          rdoc.push_back(k);
          sc.push_back(by_input ? s : as_float32(s));
        }
      }
      if (bad || static_cast<Py_ssize_t>(rdoc.size()) != n) {
        bad = 1;
        continue;
      }
      if (q_nan) nan = 1;  // trec_nested answers None: no ranking (a NaN has no place in a sort)
      rh.resize(rdoc.size());
      for (size_t j = 0; j < rdoc.size(); ++j)
        if (!direct_str(rdoc[j], rh[j])) bad = 1;
      if (bad || q_nan || u < 0) continue;  // a query without qrels: only read (as the walker reads every run row)
      const int64_t rb = D.r_indptr[u], tb = D.t_indptr[u];
      PyObject* t = t_dicts[static_cast<size_t>(q)];
      const Py_ssize_t m = D.t_indptr[u + 1] - tb;
      tdoc.clear();
      {
        Py_ssize_t pos = 0;
        PyObject *k, *x;
        while (PyDict_Next(t, &pos, &k, &x)) {
          double g = 0.0;
          if (!number_nogil(x, g) || static_cast<Py_ssize_t>(tdoc.size()) >= m) {
            bad = 1;
            break;
          }
          D.t_items[static_cast<size_t>(tb) + tdoc.size()] = static_cast<int64_t>(tdoc.size());
          D.grades[static_cast<size_t>(tb) + tdoc.size()] = g;
          tdoc.push_back(k);
        }
      }
      if (bad || static_cast<Py_ssize_t>(tdoc.size()) != m) {
        bad = 1;
        continue;
      }
      th.resize(tdoc.size());
      for (size_t i = 0; i < tdoc.size(); ++i)
        if (!direct_str(tdoc[i], th[i])) bad = 1;
      if (bad) continue;
      code.resize(rdoc.size());
      for (size_t j = 0; j < rdoc.size(); ++j) {
        int64_t c = static_cast<int64_t>(m) + static_cast<int64_t>(j);
        for (size_t i = 0; i < tdoc.size(); ++i) {
          if ((rh[j] != -1 && th[i] != -1 && rh[j] != th[i]) || !StrEq{}(rdoc[j], tdoc[i])) continue;
          c = static_cast<int64_t>(i);
          break;
        }
        code[j] = c;
      }
      idx.resize(rdoc.size());
      for (size_t j = 0; j < idx.size(); ++j) idx[j] = static_cast<int64_t>(j);
      if (by_input) {
        std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) { return sc[a] > sc[c]; });
      } else {
        std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) {
          if (sc[a] != sc[c]) return sc[a] > sc[c];
          return str_cmp_nogil(rdoc[a], rdoc[c]) > 0;
        });
      }
      for (size_t j = 0; j < idx.size(); ++j) D.r_items[static_cast<size_t>(rb) + j] = code[idx[j]];
    }
  }
  D.nan = nan != 0;
  return !bad;
}

// A new dict made for `n` entries: the inner dicts of the nested outputs are filled without a resize (an empty
// dict holds 5 entries before its first).
inline py::dict dict_for(Py_ssize_t n) {
#if PY_VERSION_HEX < 0x030D0000
  PyObject* d = _PyDict_NewPresized(n);
#else
  (void)n;
  PyObject* d = PyDict_New();
#endif
  if (!d) throw py::error_already_set();
  return py::reinterpret_steal<py::dict>(d);
}

// pytrec_eval's RelevanceEvaluator.evaluate(run) for plain dicts of str documents, in one C++ call: the run's
// queries with a non-empty qrels dict, each list ranked by its float32 score descending and equal scores by
// docno descending (code point order, trec_eval's strcmp on UTF-8), the fused pass over `cols` (trec_eval's
// conventions, `threads` threads, the GIL released), and {query: {names[j]: value of column col_of[j]}} in the run's
// order (`nested`; else the values of every column and user, and the run row of every user). None when the objects are
// not plain dicts of str documents with number values, a score is NaN, or the pass reports a problem: the caller's
// general path then answers (with its errors). `by_input`: each list ranked by its scores as given (not rounded)
// descending, equal scores in the dict's order (Python's sorted(..., reverse=True), as BEIR's custom metrics).
py::object trec_nested(py::handle qrels, py::handle run, const std::vector<Column>& cols,
                       const std::vector<int64_t>& col_of, const py::list& names, double min_relevance,
                       EmptyPolicy empty, DupPolicy dups, int threads, bool nested, bool by_input) {
  if (!plain_dict(qrels.ptr()) || !plain_dict(run.ptr())) return py::none();
  const auto n_names = static_cast<size_t>(names.size());
  if (col_of.size() != n_names) throw py::value_error("trec_nested: one column per name");
  for (int64_t c : col_of)
    if (c < 0 || static_cast<size_t>(c) >= cols.size()) throw py::value_error("trec_nested: column out of range");
  // the pass's buffers and, per user, its query id (borrowed, a key of `run`) and its row in `run`
  RankingDataT<int64_t> d;
  std::vector<PyObject*> user_keys;
  std::vector<int64_t> user_rows;
  DirectTrec D;
  Pair P;
  std::vector<int64_t> r_items;
  if (trec_direct(qrels.ptr(), run.ptr(), by_input, threads, D)) {
    // every query read on its own (the usual case): codes per query, no table of documents
    if (D.nan) return py::none();
    d.n_users = static_cast<int64_t>(D.keys.size());
    d.t_indptr = D.t_indptr.data();
    d.t_items = D.t_items.data();
    d.t_grades = D.grades.data();
    d.t_nnz = static_cast<int64_t>(D.t_items.size());
    d.r_items = D.r_items.data();
    d.r_nnz = static_cast<int64_t>(D.r_items.size());
    d.r_indptr = D.r_indptr.data();
    d.r_rows = d.n_users;
    d.id_bound = D.id_bound;
    user_keys = std::move(D.keys);
    user_rows = std::move(D.rows);
  } else {
    // the qrels of the run's queries, in the run's order (a key of another type than str or int: not plain,
    // since looking it up could run Python code)
    py::dict sub;
    {
      Py_ssize_t pos = 0;
      PyObject *k, *v;
      while (PyDict_Next(run.ptr(), &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k) && !PyLong_CheckExact(k)) return py::none();
        PyObject* t = PyDict_GetItemWithError(qrels.ptr(), k);  // borrowed
        if (!t) {
          if (PyErr_Occurred()) {
            PyErr_Clear();
            return py::none();
          }
          continue;
        }
        if (!plain_dict(t)) return py::none();
        if (PyDict_GET_SIZE(t) == 0) continue;  // a query without qrels rows is not evaluated
        if (PyDict_SetItem(sub.ptr(), k, t) < 0) throw py::error_already_set();
      }
    }
    if (!walk_pair(sub, run, true, P, threads)) return py::none();
    const int ik = item_kind(P.w);
    if (ik == kInt) return py::none();  // int documents: the general path (it reads them as trec_eval's strings)
    if (!P.joined && P.ts.user_vals.size() > 0) return py::none();
    Side &ts = P.ts, &rs = P.rs;
    const auto n_users = static_cast<int64_t>(ts.user_vals.size());
    const auto n_rows = static_cast<int64_t>(rs.indptr.size()) - 1;
    // ranked lists: float32 scores descending, equal scores by docno descending (by_input: the scores as given
    // descending, equal scores in input order)
    Buf<double>& sc = rs.values;
    if (!rs.has_values) sc.assign(rs.items.size(), 0.0);
    for (double& x : sc) {
      if (std::isnan(x)) return py::none();
      if (!by_input) x = as_float32(x);
    }
    r_items.resize(rs.items.size());
    std::vector<int64_t> idx;
    for (int64_t r = 0; r < n_rows; ++r) {
      const int64_t b = rs.indptr[r], e = rs.indptr[r + 1];
      idx.resize(static_cast<size_t>(e - b));
      for (int64_t j = b; j < e; ++j) idx[static_cast<size_t>(j - b)] = j;
      if (by_input) {
        std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) { return sc[a] > sc[c]; });
        for (int64_t j = b; j < e; ++j) r_items[static_cast<size_t>(j)] = rs.items[static_cast<size_t>(idx[j - b])];
        continue;
      }
      bool bad = false;
      std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t c) {
        if (sc[a] != sc[c]) return sc[a] > sc[c];
        const int cmp = PyUnicode_Compare(P.w.ids().label(rs.items[a]), P.w.ids().label(rs.items[c]));
        if (cmp == -1 && PyErr_Occurred()) {
          PyErr_Clear();
          bad = true;
        }
        return cmp > 0;
      });
      if (bad) return py::none();
      for (int64_t j = b; j < e; ++j) r_items[static_cast<size_t>(j)] = rs.items[static_cast<size_t>(idx[j - b])];
    }
    // the pass over the truth users (each has a run row: the qrels were taken from the run's queries)
    d.n_users = n_users;
    d.t_indptr = ts.indptr.data();
    d.t_items = ts.items.data();
    if (ts.has_values) d.t_grades = ts.values.data();
    d.t_nnz = static_cast<int64_t>(ts.items.size());
    d.r_items = r_items.data();
    d.r_nnz = static_cast<int64_t>(r_items.size());
    d.r_indptr = rs.indptr.data();
    d.r_rows = n_rows;
    d.r_rowmap = n_users ? P.rowmap.data() : nullptr;
    for (int64_t u = 0; u < n_users; ++u) {
      const int64_t r = P.rowmap[static_cast<size_t>(u)];
      if (r < 0) return py::none();  // cannot happen: the qrels are the run's
      user_keys.push_back(rs.user_objs[static_cast<size_t>(r)]);
      user_rows.push_back(r);
    }
    // the truth users come in the run's order (`sub` was made in it)
    for (size_t u = 1; u < user_rows.size(); ++u)
      if (user_rows[u] <= user_rows[u - 1]) return py::none();
  }
  const int64_t n_users = d.n_users;
  RankingOptions opt;
  opt.has_min_relevance = true;
  opt.min_relevance = min_relevance;
  opt.empty = empty;
  opt.dups = dups;
  opt.whole_lists = true;
  opt.threads = threads;
  opt.simd = simd_enabled();
  std::vector<double> values(cols.size() * static_cast<size_t>(n_users));
  std::vector<int64_t> counts(cols.size());  // per-user values only: no exact sums (the callers take the means)
  int64_t n_skipped = 0;
  if (n_users) {
    Status st;
    {
      py::gil_scoped_release release;  // the pass reads only the buffers above, owned by this frame
      st = evaluate_ranking(d, cols, opt, values.data(), nullptr, counts.data(), &n_skipped);
    }
    if (!st.ok()) return py::none();
  }
  if (!nested) {  // (values[n_cols, n_users], the run row of every user): the caller takes the means
    py::array_t<double> vals({static_cast<py::ssize_t>(cols.size()), static_cast<py::ssize_t>(n_users)});
    std::copy(values.begin(), values.end(), vals.mutable_data());
    return py::make_tuple(vals, to_array(std::move(user_rows)));
  }
  // {query: {name: value}} in the run's order
  py::dict out = dict_for(static_cast<Py_ssize_t>(n_users));
  for (int64_t u = 0; u < n_users; ++u) {
    py::dict row = dict_for(static_cast<Py_ssize_t>(n_names));
    for (size_t j = 0; j < n_names; ++j) {
      const double v = values[static_cast<size_t>(col_of[j]) * static_cast<size_t>(n_users) + static_cast<size_t>(u)];
      PyObject* f = PyFloat_FromDouble(v);
      if (!f || PyDict_SetItem(row.ptr(), PyList_GET_ITEM(names.ptr(), static_cast<Py_ssize_t>(j)), f) < 0) {
        Py_XDECREF(f);
        throw py::error_already_set();
      }
      Py_DECREF(f);
    }
    if (PyDict_SetItem(out.ptr(), user_keys[static_cast<size_t>(u)], row.ptr()) < 0) throw py::error_already_set();
  }
  return out;
}

// {keys[i]: {names[j]: values[i, j]}}: the nested output of the IR drop-ins, made without a Python loop.
py::dict nested_dict(const py::array& keys, const py::list& names, const F64& values) {
  if (keys.ndim() != 1 || !keys.dtype().is(py::dtype("O")) || !(keys.flags() & py::array::c_style))
    throw py::type_error("nested_dict: `keys` must be a contiguous 1-D object array");
  const py::ssize_t n = keys.shape(0), m = static_cast<py::ssize_t>(names.size());
  if (values.ndim() != 2 || values.shape(0) != n || values.shape(1) != m)
    throw py::value_error("nested_dict: `values` must be keys x names");
  auto* const* k = static_cast<PyObject* const*>(keys.data());
  const double* v = values.data();
  py::dict out = dict_for(static_cast<Py_ssize_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    py::dict row = dict_for(m);
    for (py::ssize_t j = 0; j < m; ++j) {
      PyObject* f = PyFloat_FromDouble(v[i * m + j]);
      if (!f || PyDict_SetItem(row.ptr(), PyList_GET_ITEM(names.ptr(), j), f) < 0) {
        Py_XDECREF(f);
        throw py::error_already_set();
      }
      Py_DECREF(f);
    }
    if (PyDict_SetItem(out.ptr(), k[i], row.ptr()) < 0) throw py::error_already_set();
  }
  return out;
}

// (types of the keys of `outer`, types of the keys of its inner dicts, types of their values) as three sets, for
// the type checks of the pytrec_eval readers (one C loop over the entries, no Python object made per entry);
// None when `outer` or one of its values is not a plain dict (the caller's Python scan answers then).
py::object nested_types(py::handle outer) {
  if (!plain_dict(outer.ptr())) return py::none();
  std::vector<PyObject*> kinds[3];
  auto note = [](std::vector<PyObject*>& v, PyObject* o) {
    auto* t = reinterpret_cast<PyObject*>(Py_TYPE(o));
    if ((v.empty() || v.back() != t) && std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  };
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(outer.ptr(), &pos, &k, &v)) {
    note(kinds[0], k);
    if (!plain_dict(v)) return py::none();
    Py_ssize_t ipos = 0;
    PyObject *ik, *iv;
    while (PyDict_Next(v, &ipos, &ik, &iv)) {
      note(kinds[1], ik);
      note(kinds[2], iv);
    }
  }
  py::tuple out(3);
  for (size_t i = 0; i < 3; ++i) {
    py::set s;
    for (PyObject* t : kinds[i]) s.add(py::handle(t));
    out[i] = s;
  }
  return std::move(out);
}

// The keys q of a dict whose value is a dict holding q itself (BEIR's "identical ids": a document whose id is its
// query's), in the dict's order: one lookup per query with the key's cached hash, as `q in docs` makes it. None
// when `outer` or one of its values is not an exact dict (the caller's Python loop answers then).
py::object keys_in_values(py::handle outer) {
  if (!PyDict_CheckExact(outer.ptr())) return py::none();
  const Py_ssize_t n = PyDict_GET_SIZE(outer.ptr());
  // the (key, value) pairs first, held: a lookup may run a key's __eq__ (Python code)
  std::vector<std::pair<py::object, py::object>> pairs;
  pairs.reserve(static_cast<size_t>(n));
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(outer.ptr(), &pos, &k, &v)) {
    if (!PyDict_CheckExact(v)) return py::none();
    pairs.emplace_back(py::reinterpret_borrow<py::object>(k), py::reinterpret_borrow<py::object>(v));
  }
  py::list hit;
  for (const auto& [key, docs] : pairs) {
    const int c = PyDict_Contains(docs.ptr(), key.ptr());
    if (c < 0) throw py::error_already_set();  // an unhashable key cannot be a dict key: a key's own error
    if (c) hit.append(key);
  }
  return std::move(hit);
}

// ml_metrics' apk(actual, predicted, k) of one user, as a plain C function of the module (METH_FASTCALL: a call
// from a Python loop costs tens of nanoseconds, where the original's loop body costs about a microsecond): the
// same sums in the same order. None when the call is not this plain form (lists or tuples of at most
// kDirectMax exact str or int ids, k an exact int of 1 or more): the caller's Python code answers then.
PyObject* apk_one(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "apk_one(actual, predicted, k)");
    return nullptr;
  }
  PyObject* const* ao = nullptr;
  PyObject* const* po = nullptr;
  Py_ssize_t la = 0, lp = 0;
  if (!PyLong_CheckExact(args[2]) || !sequence_items(args[0], ao, la) || !sequence_items(args[1], po, lp) ||
      la > kDirectMax)
    Py_RETURN_NONE;
  int overflow = 0;
  const long long k = PyLong_AsLongLongAndOverflow(args[2], &overflow);
  if (overflow != 0 || k < 1) Py_RETURN_NONE;
  if (lp > k) lp = static_cast<Py_ssize_t>(k);
  if (lp > kDirectMax) Py_RETURN_NONE;
  DirectId ai[kDirectMax], pi[kDirectMax];
  for (Py_ssize_t j = 0; j < la; ++j)
    if (!(ai[j] = direct_id(ao[j])).ok) Py_RETURN_NONE;
  for (Py_ssize_t j = 0; j < lp; ++j)
    if (!(pi[j] = direct_id(po[j])).ok) Py_RETURN_NONE;
  if (la == 0) return PyFloat_FromDouble(1.0);
  return PyFloat_FromDouble(direct_ap(ai, la, pi, lp, static_cast<int64_t>(std::min<long long>(la, k))));
}

PyMethodDef raw_methods[] = {
    {"apk_one", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&apk_one)), METH_FASTCALL,
     "ml_metrics' apk of one user (lists or tuples of at most 64 str or int ids, k >= 1), or None."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void bind_walk(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), raw_methods) != 0) throw py::error_already_set();
  m.def("nested_dict", &nested_dict, py::arg("keys"), py::arg("names"), py::arg("values").noconvert(),
        "{keys[i]: {names[j]: values[i, j]}} (keys: a 1-D object array, values: float64 keys x names)");
  m.def("nested_types", &nested_types, py::arg("outer"),
        "(types of the keys of a dict of dicts, of its inner keys, of its inner values) as sets; None when the "
        "dict or one of its values is not a plain dict.");
  m.def("trec_nested", &trec_nested, py::arg("qrels"), py::arg("run"), py::arg("columns"), py::arg("col_of"),
        py::arg("names"), py::arg("min_relevance"), py::arg("empty"), py::arg("duplicates"), py::arg("threads"),
        py::arg("nested") = true, py::arg("by_input") = false,
        "pytrec_eval's evaluate(run) on plain dicts of str documents in one call: {query: {name: value}}, or None "
        "(not plain, a NaN score, or a problem the general path reports); by_input: ranked by the scores as given, "
        "equal scores in input order.");
  m.def("keys_in_values", &keys_in_values, py::arg("outer"),
        "[q for q, docs in outer.items() if q in docs] for a dict of dicts, or None when it is not one.");
  m.def("distinct_ids", &distinct_ids, py::arg("rows"), py::arg("threads") = 0, py::arg("pick") = py::none(),
        "len(set(chain(*rows))) for a list of lists or tuples of exact str or int ids, or -1 for anything else; "
        "pick: only the rows at these positions (repeats allowed).");
  m.def("mt_choices", &mt_choices, py::arg("state"), py::arg("n"), py::arg("k"),
        "random.choices(range(n), k=k) from the state Random.getstate()[1]: (positions, state after), or None.");
  m.def("draw_distinct", &draw_distinct, py::arg("generator"), py::arg("rows"), py::arg("k"), py::arg("threads") = 0,
        "distinct_ids of the k rows random.choices(rows, k=k) draws from the random.Random `generator` (advanced "
        "as that call advances it), or None (the generator untouched).");
  m.def("mt_choices_inplace", &mt_choices_inplace, py::arg("generator"), py::arg("n"), py::arg("k"),
        "random.choices(range(n), k=k) drawn from the random.Random `generator` itself (its state advanced): the "
        "positions, or None (the generator untouched).");
  m.def("lists_ap", &lists_ap, py::arg("actual"), py::arg("predicted"), py::arg("k"), py::arg("den_min_k"),
        py::arg("empty_value"), py::arg("threads") = 0,
        "ml_metrics' apk / recmetrics' _ark of every pair of equal-length lists of lists in one call (float64 per "
        "user), or None when the lists are not plain lists of str or int ids.");
  m.def("walk_py", &walk_py, py::arg("truth"), py::arg("recs"), py::arg("dict_rows") = false, py::arg("threads") = 0,
        py::arg("parallel_min") = int64_t{1} << 16,
        "Read truth and/or recs given as Python dicts or lists of str/int ids into CSR buffers with shared "
        "item codes (None: not plain, use the Python readers); no Python code runs during the walk.");
}

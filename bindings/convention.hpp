// The convention every file in bindings/ follows.
//
// Errors. The core reports bad input by throwing std::invalid_argument, which pybind11 raises as
// ValueError; bindings neither catch nor translate it. A binding checks the form of its own
// arguments (shapes, ranges, names) and raises ValueError with a message naming the argument and
// what is allowed: require(check, message) for a check made once per call, `if (...) throw
// py::value_error(...)` inside loops over items and on hot paths, where no message should be built
// unless the check fails. Where an item of a batch failed, item_errors() prefixes the
// core's message with the item, so the user learns which one. cube::SearchLimitExceeded is the one
// other exception, registered as cogsim._core.SearchLimitError.
//
// The GIL. A call reads its arguments into C++ values with the GIL held, releases it (py::gil_scoped_release)
// around the core's work, touches no Python object while it is released, and builds its result after.
// An exception thrown while released needs no care: the guard takes the GIL back as it unwinds.
// A callback into Python from a worker thread takes it with py::gil_scoped_acquire.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace cogsim::bindings {

// Raises ValueError(message) unless the argument check holds.
inline void require(bool holds, const std::string& message) {
  if (!holds) throw pybind11::value_error(message);
}

// Runs fn(); an invalid_argument it throws gets the item's name in front ("state 3: ...").
template <typename Fn>
auto item_errors(const std::string& item, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(item + ": " + e.what());
  }
}

}  // namespace cogsim::bindings

// Batch parallelism for the core: a blocking parallel_for over [0, n) on a persistent pool.
//
// Work is handed out from an atomic counter in claims that shrink as the batch drains (each a
// share of what is left, at least `chunk` items), so uneven items (a deep cube query next to a
// shallow one) balance across threads and cheap ones are not claimed one at a time. The pool's threads live for the
// whole process (a batch call costs a wake-up, not a thread start); one batch runs at a time, and a nested or
// concurrent call that finds the pool busy runs on its own thread. Exceptions from workers are rethrown on the calling
// thread, so a bad item becomes a Python error rather than a terminate().
#pragma once

#include <cstddef>
#include <functional>

namespace cogsim {

// Threads to use when the caller passes 0: the COGSIM_THREADS environment variable if set,
// else the hardware concurrency. Read once per process.
unsigned default_threads();

void run_parallel(size_t n, unsigned threads, size_t chunk, const std::function<void(size_t)>& fn);

template <typename Fn>
void parallel_for(size_t n, unsigned threads, Fn&& fn, size_t chunk = 1) {
  if (threads == 0) threads = default_threads();
  if (chunk == 0) chunk = 1;
  if (threads <= 1 || n <= chunk) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  run_parallel(n, threads, chunk, std::function<void(size_t)>(std::forward<Fn>(fn)));
}

}  // namespace cogsim

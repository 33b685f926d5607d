#include "common/parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cogsim {
namespace {

unsigned read_default_threads() {
  if (const char* env = std::getenv("COGSIM_THREADS")) {
    try {
      const long value = std::stol(env);
      if (value > 0) return static_cast<unsigned>(value);
    } catch (...) {
      // An unreadable setting falls back to the hardware count.
    }
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

class Pool {
 public:
  // Runs the batch if the pool is free; returns false (having done nothing) if it is busy.
  bool try_run(size_t n, unsigned threads, size_t chunk, const std::function<void(size_t)>& fn) {
    std::unique_lock<std::mutex> busy(batch_mutex_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    ensure_workers(threads - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      chunk_ = chunk;
      next_.store(0);
      helpers_wanted_ = threads - 1;
      open_ = true;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    work();
    // Every item is taken. Close the batch and wait only for the helpers that joined it: one
    // still waking up would otherwise add its wake-up latency to a batch it has no part in.
    std::unique_lock<std::mutex> lock(mutex_);
    open_ = false;
    done_.wait(lock, [&] { return helpers_active_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void ensure_workers(unsigned count) {
    while (workers_.size() < count) {
      const unsigned index = static_cast<unsigned>(workers_.size());
      workers_.emplace_back([this, index] { worker_loop(index); });
      workers_.back().detach();  // lives as long as the process
    }
  }

  void worker_loop(unsigned index) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= helpers_wanted_ || !open_) continue;
        ++helpers_active_;
      }
      work();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--helpers_active_ == 0 && !open_) done_.notify_one();
    }
  }

  // Guided self-scheduling: each claim takes a share of what is left (at least `chunk_`), so cheap
  // items are not fought over one at a time on a shared counter, and the shrinking claims at
  // the end still balance uneven items.
  size_t claim(size_t* end) {
    size_t begin = next_.load(std::memory_order_relaxed);
    for (;;) {
      if (begin >= n_) return n_;
      const size_t size = std::max(chunk_, (n_ - begin) / (4 * (helpers_wanted_ + 1)));
      if (next_.compare_exchange_weak(begin, begin + size, std::memory_order_relaxed)) {
        *end = std::min(n_, begin + size);
        return begin;
      }
    }
  }

  void work() {
    try {
      for (;;) {
        size_t end = 0;
        const size_t begin = claim(&end);
        if (begin >= n_) break;
        for (size_t i = begin; i < end; ++i) (*fn_)(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(n_, std::memory_order_relaxed);
    }
  }

  std::mutex batch_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(size_t)>* fn_ = nullptr;
  size_t n_ = 0, chunk_ = 1;
  std::atomic<size_t> next_{0};
  unsigned helpers_wanted_ = 0, helpers_active_ = 0;
  bool open_ = false;  // helpers may still join the current batch
  uint64_t generation_ = 0;
  std::exception_ptr error_;
};

Pool* pool = nullptr;
std::once_flag pool_once;

void forget_pool_after_fork() {
  // A forked child has none of the parent's threads: start a fresh pool on first use there.
  pool = nullptr;
  new (&pool_once) std::once_flag();
}

Pool& the_pool() {
  std::call_once(pool_once, [] {
    static bool registered = [] { return pthread_atfork(nullptr, nullptr, forget_pool_after_fork) == 0; }();
    (void)registered;
    pool = new Pool();  // leaked on purpose: worker threads may outlive static destruction
  });
  return *pool;
}

void run_on_own_threads(size_t n, unsigned threads, size_t chunk, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (;;) {
        const size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= n) break;
        for (size_t i = begin, end = std::min(n, begin + chunk); i < end; ++i) fn(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(n, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> extra;
  for (unsigned t = 1; t < threads; ++t) extra.emplace_back(worker);
  worker();
  for (auto& thread : extra) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

unsigned default_threads() {
  static const unsigned threads = read_default_threads();
  return threads;
}

void run_parallel(size_t n, unsigned threads, size_t chunk, const std::function<void(size_t)>& fn) {
  threads = static_cast<unsigned>(std::min<size_t>(threads, (n + chunk - 1) / chunk));
  if (!the_pool().try_run(n, threads, chunk, fn)) run_on_own_threads(n, threads, chunk, fn);
}

}  // namespace cogsim

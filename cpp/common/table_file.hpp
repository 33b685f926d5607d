// Versioned, checksummed binary tables on disk, memory-mapped on load.
//
// A table file is a 128-byte header (magic, format version, table name, payload size, checksum)
// followed by the payload. Loading verifies all of it; any mismatch is reported as "missing or
// corrupt" so the caller rebuilds. Files are written to a temporary name and renamed into place,
// so a crash or a concurrent builder never leaves a half-written table behind.
//
// The table folder may be shared (docs/security.md): a table is read only from a regular file (a
// link to one is read as the file; a FIFO, device, socket or directory is refused before it is
// opened, so nothing blocks), temporary files are created exclusively, and the files a build
// writes in place (its partial file and lock) are never opened through a link. A table that does
// not fit the process's memory is a TableMemoryError, never a reason to build it again.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

namespace cogsim {

uint64_t checksum64(const uint8_t* data, uint64_t size);

// A table cannot be mapped or built in the memory this process may use; the message names the
// table, what it needs and the limit (registered as cogsim._core.TableMemoryError, a MemoryError).
class TableMemoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "12.3 MiB": a byte count as people read it.
std::string size_text(uint64_t bytes);

// The message of a TableMemoryError: `doing` (e.g. "mapping the table X") needs `bytes` (0: an
// amount not known in advance), and the process's address-space limit (ulimit -v) and use where one is set.
std::string memory_shortage(const std::string& doing, uint64_t bytes);

// A descriptor of the regular file at `path` for reading: checked with stat before it is opened (a
// FIFO or a device is never opened), opened non-blocking, and checked again with fstat. Returns -1
// with errno set when it cannot be opened (ENOENT: missing); throws std::invalid_argument naming
// what is there when it is not a regular file. A symbolic link to a regular file is read as the file.
int open_regular_file(const std::string& path);

// A descriptor of `path` opened read-write in place (created if missing, mode 0644), never through
// a symbolic link and only if it is a regular file (std::invalid_argument otherwise); throws
// std::runtime_error on other I/O failures.
int open_in_place(const std::string& path);

// The content of the regular file at `path` (see open_regular_file), at most `limit` bytes; empty
// when it is missing.
std::string read_small_file(const std::string& path, uint64_t limit);

// Writes the pieces to `path` at once: to an exclusively created temporary file beside it (no link
// is followed), synced, then renamed over it. Throws std::runtime_error on I/O failure.
struct Bytes {
  const void* data;
  uint64_t size;
};
void write_file_atomically(const std::string& path, std::initializer_list<Bytes> pieces);

class MappedTable {
 public:
  MappedTable() = default;
  MappedTable(const MappedTable&) = delete;
  MappedTable& operator=(const MappedTable&) = delete;
  MappedTable(MappedTable&& other) noexcept;
  MappedTable& operator=(MappedTable&& other) noexcept;
  ~MappedTable();

  // Maps `path` and checks it holds table `name` at `version`. Returns false (and sets `why`)
  // when the file is missing, truncated, of another version or fails its checksum. Throws
  // std::invalid_argument when it is not a regular file and TableMemoryError when the mapping
  // does not fit the process's memory: neither is mended by building the table again.
  bool open(const std::string& path, const std::string& name, uint32_t version, std::string* why);

  const uint8_t* data() const { return payload_; }
  uint64_t size() const { return payload_size_; }

 private:
  void release();
  void* mapping_ = nullptr;
  uint64_t mapping_size_ = 0;
  const uint8_t* payload_ = nullptr;
  uint64_t payload_size_ = 0;
};

// Writes atomically (temporary file + rename). Throws std::runtime_error on I/O failure.
void write_table(const std::string& path, const std::string& name, uint32_t version, const uint8_t* data,
                 uint64_t size);

// Private memory for building a large table: anonymous pages, huge pages where the kernel gives
// them (random access over gigabytes misses the TLB far less). Throws std::bad_alloc if refused.
class AnonymousMemory {
 public:
  AnonymousMemory() = default;
  explicit AnonymousMemory(uint64_t size);
  AnonymousMemory(const AnonymousMemory&) = delete;
  AnonymousMemory& operator=(const AnonymousMemory&) = delete;
  AnonymousMemory(AnonymousMemory&& other) noexcept;
  AnonymousMemory& operator=(AnonymousMemory&& other) noexcept;
  ~AnonymousMemory();
  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// A table file written over a long build: `path`.partial holds the header space and the payload
// (a checkpoint), and finish() writes the header and renames it to `path`. Reads and writes go in
// chunks that leave the page cache as they finish, so a multi-gigabyte checkpoint does not double
// the memory the build holds. Throws std::runtime_error on I/O failure.
class PartialTableFile {
 public:
  PartialTableFile(const std::string& path, uint64_t payload_size);
  PartialTableFile(const PartialTableFile&) = delete;
  PartialTableFile& operator=(const PartialTableFile&) = delete;
  ~PartialTableFile();

  // Whether the partial file holds a whole payload (a checkpoint may be in it).
  bool has_payload() const;
  void read_payload(uint8_t* data) const;
  void write_payload(const uint8_t* data);
  void finish(const std::string& name, uint32_t version, uint64_t checksum);
  const std::string& partial_path() const { return partial_; }

 private:
  std::string path_, partial_;
  uint64_t payload_size_;
  int fd_ = -1;
};

// An exclusive advisory lock on `path` (a regular file, created if missing, never through a link),
// held until destruction or the process ends. try_lock() returns false if another process holds it.
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();
  bool try_lock();

 private:
  std::string path_;
  int fd_ = -1;
};

// One build of a cached table among the processes that share the cache folder (the demo's worker
// processes start together on an empty cache): holds the lock `table_path`.lock while it lives. If
// another process holds it, `waiting` is called once and the lock is polled until it is free, for
// at most `max_wait_seconds`; then the build goes ahead without it (tables are written atomically,
// so a second builder costs time, never a table). With the lock, the caller loads the table again
// (another process may have built it meanwhile) before building it. Throws std::invalid_argument
// when the lock is not a regular file.
class TableBuildLock {
 public:
  TableBuildLock(const std::string& table_path, const std::function<void()>& waiting, double max_wait_seconds = 600);
  TableBuildLock(const TableBuildLock&) = delete;
  TableBuildLock& operator=(const TableBuildLock&) = delete;

 private:
  FileLock lock_;
};

}  // namespace cogsim

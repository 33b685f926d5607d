// Versioned, checksummed binary tables on disk, memory-mapped on load.
//
// A table file is a 128-byte header (magic, format version, table name, payload size, checksum)
// followed by the payload. Loading verifies all of it; any mismatch is reported as "missing or
// corrupt" so the caller rebuilds. Files are written to a temporary name and renamed into place,
// so a crash or a concurrent builder never leaves a half-written table behind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace cogsim {

uint64_t checksum64(const uint8_t* data, uint64_t size);

class MappedTable {
 public:
  MappedTable() = default;
  MappedTable(const MappedTable&) = delete;
  MappedTable& operator=(const MappedTable&) = delete;
  MappedTable(MappedTable&& other) noexcept;
  MappedTable& operator=(MappedTable&& other) noexcept;
  ~MappedTable();

  // Maps `path` and checks it holds table `name` at `version`. Returns false (and sets `why`)
  // when the file is missing, truncated, of another version or fails its checksum.
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

// An exclusive advisory lock on `path` (created if missing), held until destruction or the
// process ends. try_lock() returns false if another process holds it.
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

}  // namespace cogsim

#include "common/table_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace cogsim {
namespace {

constexpr char kMagic[8] = {'C', 'O', 'G', 'S', 'I', 'M', 'T', 'B'};
constexpr size_t kHeaderSize = 128;
constexpr size_t kNameSize = 64;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t payload_size;
  uint64_t checksum;
  char name[kNameSize];
  uint8_t reserved[kHeaderSize - 8 - 4 - 4 - 8 - 8 - kNameSize];
};
static_assert(sizeof(Header) == kHeaderSize);

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

Header make_header(const std::string& name, uint32_t version, uint64_t size, uint64_t checksum) {
  if (name.size() >= kNameSize) throw std::invalid_argument("table name too long: " + name);
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = version;
  header.header_size = kHeaderSize;
  header.payload_size = size;
  header.checksum = checksum;
  std::memcpy(header.name, name.data(), name.size());
  return header;
}

// Large tables are read at random: ask for huge pages (the page cache then reads the file in
// 2 MiB folios where the kernel supports it, and maps them with one TLB entry each).
void advise_random_access(void* map, uint64_t size) {
#if defined(MADV_HUGEPAGE)
  madvise(map, size, MADV_HUGEPAGE);
#endif
  (void)map;
  (void)size;
}

// Faults every page in now, so lookups that touch the table at random do not each pay a page
// fault during the first queries.
void populate(void* map, uint64_t size) {
#if defined(MADV_POPULATE_READ)
  if (madvise(map, size, MADV_POPULATE_READ) == 0) return;
#endif
  const auto* bytes = static_cast<const volatile uint8_t*>(map);
  for (uint64_t offset = 0; offset < size; offset += 4096) (void)bytes[offset];
}

constexpr uint64_t kChunk = uint64_t{64} << 20;

std::string io_error(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a device";
}

[[noreturn]] void refuse_non_regular(const std::string& path, mode_t mode) {
  throw std::invalid_argument(path + " is " + file_kind(mode) +
                              ", not a regular file; cogsim keeps its tables only in regular files: remove it");
}

// The address space this process uses now (VmSize), or 0 where it cannot be read.
uint64_t address_space_used() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string size_text(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(uint64_t{1} << 30));
  } else if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / static_cast<double>(uint64_t{1} << 20));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

std::string memory_shortage(const std::string& doing, uint64_t bytes) {
  std::string message = doing + " needs " +
                        (bytes ? size_text(bytes) + " of memory, more" : std::string("more memory")) +
                        " than this process can have";
  struct rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    message += ": its address space is limited to " + size_text(limit.rlim_cur) + " (ulimit -v)";
    if (const uint64_t used = address_space_used()) message += ", of which " + size_text(used) + " is in use";
    return message + "; raise the limit";
  }
  return message + " (the machine is short of memory); free some memory";
}

int open_regular_file(const std::string& path) {
  struct stat before{};
  if (::stat(path.c_str(), &before) != 0) return -1;
  if (!S_ISREG(before.st_mode)) refuse_non_regular(path, before.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat after{};
  if (fstat(fd, &after) != 0 || !S_ISREG(after.st_mode)) {  // swapped between the two checks
    ::close(fd);
    refuse_non_regular(path, after.st_mode);
  }
  return fd;
}

int open_in_place(const std::string& path) {
  struct stat before{};
  if (::lstat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) refuse_non_regular(path, before.st_mode);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ELOOP) refuse_non_regular(path, S_IFLNK);
  if (fd < 0) throw std::runtime_error(io_error("open", path));
  struct stat after{};
  if (fstat(fd, &after) != 0 || !S_ISREG(after.st_mode)) {
    ::close(fd);
    refuse_non_regular(path, after.st_mode);
  }
  return fd;
}

std::string read_small_file(const std::string& path, uint64_t limit) {
  const int fd = open_regular_file(path);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    throw std::runtime_error(io_error("read", path));
  }
  std::string text(static_cast<size_t>(limit), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

void write_file_atomically(const std::string& path, std::initializer_list<Bytes> pieces) {
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  std::vector<char> temporary(path.begin(), path.end());
  for (char c : std::string(".tmp.XXXXXX")) temporary.push_back(c);
  temporary.push_back('\0');
  const int fd = ::mkstemp(temporary.data());  // O_CREAT | O_EXCL: a fresh file of this process, never a link
  if (fd < 0) throw std::runtime_error(io_error("write", path));
  auto fail = [&](const std::string& what) {
    const std::string error = io_error(what, temporary.data());
    ::close(fd);
    ::unlink(temporary.data());
    throw std::runtime_error(error);
  };
  if (::fchmod(fd, 0644) != 0) fail("write");
  for (const Bytes& piece : pieces) {
    const auto* p = static_cast<const uint8_t*>(piece.data);
    for (uint64_t count = piece.size; count > 0;) {
      const ssize_t n = ::write(fd, p, static_cast<size_t>(std::min<uint64_t>(count, 1u << 30)));
      if (n <= 0) fail("write");
      p += n;
      count -= static_cast<uint64_t>(n);
    }
  }
  if (::fsync(fd) != 0) fail("finish");
  if (::close(fd) != 0) {
    ::unlink(temporary.data());
    throw std::runtime_error(io_error("finish", temporary.data()));
  }
  if (std::rename(temporary.data(), path.c_str()) != 0) {
    const std::string error = io_error("move into place", path);
    ::unlink(temporary.data());
    throw std::runtime_error(error);
  }
}

uint64_t checksum64(const uint8_t* data, uint64_t size) {
  // Four independent multiply-rotate lanes over 8-byte words, then the tail; fast enough to
  // verify hundreds of megabytes on every load.
  constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL, kPrime2 = 0xC2B2AE3D27D4EB4FULL;
  uint64_t lanes[4] = {kPrime1, kPrime2, kPrime1 ^ kPrime2, ~kPrime1};
  uint64_t i = 0;
  for (; i + 32 <= size; i += 32) {
    for (int l = 0; l < 4; ++l) {
      uint64_t word;
      std::memcpy(&word, data + i + 8 * l, 8);
      lanes[l] = rotl(lanes[l] + word * kPrime2, 31) * kPrime1;
    }
  }
  uint64_t h = size * kPrime1;
  for (uint64_t lane : lanes) h = rotl(h ^ lane, 27) * kPrime1 + kPrime2;
  for (; i < size; ++i) h = rotl(h ^ data[i], 11) * kPrime1;
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  return h;
}

MappedTable::MappedTable(MappedTable&& other) noexcept { *this = std::move(other); }

MappedTable& MappedTable::operator=(MappedTable&& other) noexcept {
  if (this != &other) {
    release();
    std::swap(mapping_, other.mapping_);
    std::swap(mapping_size_, other.mapping_size_);
    std::swap(payload_, other.payload_);
    std::swap(payload_size_, other.payload_size_);
  }
  return *this;
}

MappedTable::~MappedTable() { release(); }

void MappedTable::release() {
  if (mapping_) munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
  payload_ = nullptr;
  payload_size_ = 0;
}

bool MappedTable::open(const std::string& path, const std::string& name, uint32_t version, std::string* why) {
  release();
  const int fd = open_regular_file(path);
  if (fd < 0) {
    *why = errno == ENOENT ? "missing" : std::string("unreadable (") + std::strerror(errno) + ")";
    return false;
  }
  struct stat st{};
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kHeaderSize) {
    ::close(fd);
    *why = "truncated header";
    return false;
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  void* map = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  const int mmap_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) {
    if (mmap_errno == ENOMEM) throw TableMemoryError(memory_shortage("mapping the table " + path, size));
    *why = std::string("mmap failed: ") + std::strerror(mmap_errno);
    return false;
  }
  advise_random_access(map, size);
  populate(map, size);
  mapping_ = map;
  mapping_size_ = size;
  Header header;
  std::memcpy(&header, map, sizeof header);
  std::string stored_name(header.name, strnlen(header.name, kNameSize));
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) {
    *why = "not a cogsim table";
  } else if (header.version != version) {
    *why = "version " + std::to_string(header.version) + ", expected " + std::to_string(version);
  } else if (stored_name != name) {
    *why = "holds table '" + stored_name + "', expected '" + name + "'";
  } else if (header.header_size != kHeaderSize || header.payload_size != mapping_size_ - kHeaderSize) {
    *why = "truncated payload";
  } else {
    const auto* payload = static_cast<const uint8_t*>(map) + kHeaderSize;
    if (checksum64(payload, header.payload_size) != header.checksum) {
      *why = "checksum mismatch";
    } else {
      payload_ = payload;
      payload_size_ = header.payload_size;
      return true;
    }
  }
  release();
  return false;
}

void write_table(const std::string& path, const std::string& name, uint32_t version, const uint8_t* data,
                 uint64_t size) {
  const Header header = make_header(name, version, size, checksum64(data, size));
  write_file_atomically(path, {{&header, sizeof header}, {data, size}});
}

AnonymousMemory::AnonymousMemory(uint64_t size) : size_(size) {
  void* map = mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) throw std::bad_alloc();
  advise_random_access(map, size);
  data_ = static_cast<uint8_t*>(map);
}

AnonymousMemory::AnonymousMemory(AnonymousMemory&& other) noexcept { *this = std::move(other); }

AnonymousMemory& AnonymousMemory::operator=(AnonymousMemory&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

AnonymousMemory::~AnonymousMemory() {
  if (data_) munmap(data_, static_cast<size_t>(size_));
}

PartialTableFile::PartialTableFile(const std::string& path, uint64_t payload_size)
    : path_(path), partial_(path + ".partial"), payload_size_(payload_size) {
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  fd_ = open_in_place(partial_);
}

PartialTableFile::~PartialTableFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool PartialTableFile::has_payload() const {
  struct stat st{};
  return fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) == kHeaderSize + payload_size_;
}

void PartialTableFile::read_payload(uint8_t* data) const {
  for (uint64_t done = 0; done < payload_size_;) {
    const uint64_t want = std::min(kChunk, payload_size_ - done);
    const ssize_t n = ::pread(fd_, data + done, static_cast<size_t>(want), static_cast<off_t>(kHeaderSize + done));
    if (n <= 0) throw std::runtime_error(io_error("read", partial_));
    posix_fadvise(fd_, static_cast<off_t>(kHeaderSize + done), n, POSIX_FADV_DONTNEED);
    done += static_cast<uint64_t>(n);
  }
}

void PartialTableFile::write_payload(const uint8_t* data) {
  if (::ftruncate(fd_, static_cast<off_t>(kHeaderSize + payload_size_)) != 0) {
    throw std::runtime_error(io_error("size", partial_));
  }
  for (uint64_t done = 0; done < payload_size_;) {
    const uint64_t want = std::min(kChunk, payload_size_ - done);
    const off_t offset = static_cast<off_t>(kHeaderSize + done);
    const ssize_t n = ::pwrite(fd_, data + done, static_cast<size_t>(want), offset);
    if (n <= 0) throw std::runtime_error(io_error("write", partial_));
    // Wait for this chunk to reach the disk and drop it from the page cache.
    sync_file_range(fd_, offset, n, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    posix_fadvise(fd_, offset, n, POSIX_FADV_DONTNEED);
    done += static_cast<uint64_t>(n);
  }
  if (::fsync(fd_) != 0) throw std::runtime_error(io_error("sync", partial_));
}

void PartialTableFile::finish(const std::string& name, uint32_t version, uint64_t checksum) {
  const Header header = make_header(name, version, payload_size_, checksum);
  if (::pwrite(fd_, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) || ::fsync(fd_) != 0) {
    throw std::runtime_error(io_error("finish", partial_));
  }
  if (std::rename(partial_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error(io_error("move into place", path_));
  }
}

FileLock::FileLock(const std::string& path) : path_(path) {}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

bool FileLock::try_lock() {
  if (fd_ < 0) fd_ = open_in_place(path_);
  return ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

TableBuildLock::TableBuildLock(const std::string& table_path, const std::function<void()>& waiting,
                               double max_wait_seconds)
    : lock_(table_path + ".lock") {
  if (lock_.try_lock()) return;
  if (waiting) waiting();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (lock_.try_lock()) return;
  }
}

}  // namespace cogsim

#include "common/table_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

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

}  // namespace

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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = "missing";
    return false;
  }
  struct stat st{};
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kHeaderSize) {
    ::close(fd);
    *why = "truncated header";
    return false;
  }
  // MAP_POPULATE faults every page in now, so lookups that touch the table at random do not each
  // pay a page fault during the first queries.
  void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    *why = std::string("mmap failed: ") + std::strerror(errno);
    return false;
  }
  mapping_ = map;
  mapping_size_ = static_cast<uint64_t>(st.st_size);
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
  namespace fs = std::filesystem;
  if (name.size() >= kNameSize) throw std::invalid_argument("table name too long: " + name);
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = version;
  header.header_size = kHeaderSize;
  header.payload_size = size;
  header.checksum = checksum64(data, size);
  std::memcpy(header.name, name.data(), name.size());

  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write table " + temporary + ": " + std::strerror(errno));
  auto write_all = [&](const void* bytes, uint64_t count) {
    const auto* p = static_cast<const uint8_t*>(bytes);
    while (count > 0) {
      const ssize_t n = ::write(fd, p, static_cast<size_t>(std::min<uint64_t>(count, 1u << 30)));
      if (n <= 0) {
        const std::string error = std::strerror(errno);
        ::close(fd);
        ::unlink(temporary.c_str());
        throw std::runtime_error("cannot write table " + temporary + ": " + error);
      }
      p += n;
      count -= static_cast<uint64_t>(n);
    }
  };
  write_all(&header, sizeof header);
  write_all(data, size);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot finish table " + temporary + ": " + std::strerror(errno));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot move table into place at " + path + ": " + std::strerror(errno));
  }
}

}  // namespace cogsim

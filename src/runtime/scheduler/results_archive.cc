#include "runtime/scheduler/results_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "core/status.h"
#include "fmt/format.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

absl::Status ErrnoError(std::string_view what, const std::filesystem::path& path) {
  return absl::UnavailableError(fmt::format("cannot {} {}: {}", what, path.string(), std::strerror(errno)));
}

// Fd closes a file descriptor when it goes.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status WriteAll(int fd, std::string_view bytes, const std::filesystem::path& path) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("write", path);
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// ReadRange: `size` bytes of `path` from byte `begin`.
absl::StatusOr<std::string> ReadRange(const std::filesystem::path& path, uint64_t begin, uint64_t size) {
  std::string bytes(size, '\0');
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("open", path);
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::pread(fd.get(), bytes.data() + got, bytes.size() - got, static_cast<off_t>(begin + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? absl::DataLossError(fmt::format("{}: shorter than indexed", path.string()))
                              : ErrnoError("read", path);
    got += static_cast<size_t>(n);
  }
  return bytes;
}

// ScanRecords parses the records of `in` one by one, giving each with its
// byte range, and returns the bytes of whole records read: it stops at the
// end or at bytes that do not parse as a record.
uint64_t ScanRecords(google::protobuf::io::ZeroCopyInputStream& in,
                     const std::function<void(v1::ArchivedJob&, uint64_t begin, uint64_t end)>& record) {
  uint64_t valid = 0;
  while (true) {
    v1::ArchivedJob job;
    bool clean_eof = false;
    // The parser's own coded stream gives back what it read ahead when it
    // goes, so ByteCount() is the end of this record.
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&job, &in, &clean_eof)) return valid;
    const auto end = static_cast<uint64_t>(in.ByteCount());
    record(job, valid, end);
    valid = end;
  }
}

struct FileScan {
  std::map<uint32_t, v1::ArchivedJob> jobs;  // the last record of each id
  uint64_t valid = 0;                        // bytes of whole records
  uint64_t size = 0;                         // of the file
};

// ScanFile reads every record of the file at `path` (absent: none), giving
// each id and byte range to `on_record` when set.
absl::StatusOr<FileScan> ScanFile(const std::filesystem::path& path,
                                  const std::function<void(uint32_t id, uint64_t begin, uint64_t end)>& on_record) {
  FileScan scan;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return scan;
    return ErrnoError("open", path);
  }
  google::protobuf::io::FileInputStream in(fd);
  in.SetCloseOnDelete(true);
  scan.valid = ScanRecords(in, [&](v1::ArchivedJob& job, uint64_t begin, uint64_t end) {
    const uint32_t id = job.id();
    if (on_record) on_record(id, begin, end);
    scan.jobs[id] = std::move(job);
  });
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ErrnoError("stat", path);
  scan.size = static_cast<uint64_t>(st.st_size);
  return scan;
}

}  // namespace

ResultsArchive::ResultsArchive(std::filesystem::path state_dir) : path_(state_dir / "results-archive.binpb") {}

void ResultsArchive::Index(uint32_t id, uint64_t begin, uint64_t end) {
  if (!segments_.empty() && segments_.back().end == begin && segments_.back().records < kRecordsPerSegment) {
    Segment& s = segments_.back();
    s.min_id = std::min(s.min_id, id);
    s.max_id = std::max(s.max_id, id);
    ++s.records;
    s.end = end;
    return;
  }
  segments_.push_back({.min_id = id, .max_id = id, .records = 1, .begin = begin, .end = end});
}

absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> ResultsArchive::Open() {
  segments_.clear();
  ASSIGN_OR_RETURN(FileScan scan, ScanFile(path_, [&](uint32_t id, uint64_t begin, uint64_t end) {
    Index(id, begin, end);
  }));
  if (scan.size > scan.valid) RETURN_IF_ERROR(MoveTornTail(scan.valid, scan.size));
  return std::move(scan.jobs);
}

absl::Status ResultsArchive::MoveTornTail(uint64_t valid, uint64_t size) {
  const std::filesystem::path aside = path_.string() + fmt::format(".torn-{}", valid);
  spdlog::warn("{}: the {} bytes from byte {} are not a whole record (a crash mid-append); moved to {}",
               path_.string(), size - valid, valid, aside.string());
  ASSIGN_OR_RETURN(const std::string tail, ReadRange(path_, valid, size - valid));
  // The copy is synced before the archive is cut: a crash between the two
  // does this again on the next start, to the same file.
  {
    const Fd out(::open(aside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (out.get() < 0) return ErrnoError("create", aside);
    RETURN_IF_ERROR(WriteAll(out.get(), tail, aside));
    if (::fsync(out.get()) != 0) return ErrnoError("fsync", aside);
  }
  const Fd archive(::open(path_.c_str(), O_WRONLY | O_CLOEXEC));
  if (archive.get() < 0) return ErrnoError("open", path_);
  if (::ftruncate(archive.get(), static_cast<off_t>(valid)) != 0) return ErrnoError("truncate", path_);
  if (::fsync(archive.get()) != 0) return ErrnoError("fsync", path_);
  return absl::OkStatus();
}

absl::Status ResultsArchive::Append(const std::vector<v1::ArchivedJob>& jobs) {
  std::string bytes;
  std::vector<uint64_t> ends;  // each record's end, from the append's start
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    for (const v1::ArchivedJob& job : jobs) {
      if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(job, &out)) {
        return absl::InternalError("cannot serialize an archived job");
      }
      ends.push_back(static_cast<uint64_t>(out.ByteCount()));
    }
  }
  const Fd fd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ErrnoError("open", path_);
  const off_t base = ::lseek(fd.get(), 0, SEEK_END);
  if (base < 0) return ErrnoError("seek", path_);
  absl::Status written = WriteAll(fd.get(), bytes, path_);
  if (written.ok() && ::fsync(fd.get()) != 0) written = ErrnoError("fsync", path_);
  if (!written.ok()) {
    // The caller keeps the jobs journaled and archives them again later;
    // a part written here would hide every record appended after it.
    if (::ftruncate(fd.get(), base) != 0) spdlog::error("cannot truncate {}: {}", path_.string(), std::strerror(errno));
    return written;
  }
  uint64_t begin = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    Index(jobs[k].id(), static_cast<uint64_t>(base) + begin, static_cast<uint64_t>(base) + ends[k]);
    begin = ends[k];
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::ArchivedJob>> ResultsArchive::Find(uint32_t id) const {
  // The latest segment holding the id has its last record.
  for (auto s = segments_.rbegin(); s != segments_.rend(); ++s) {
    if (id < s->min_id || id > s->max_id) continue;
    ASSIGN_OR_RETURN(const std::string bytes, ReadRange(path_, s->begin, s->end - s->begin));
    google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
    std::optional<v1::ArchivedJob> found;
    ScanRecords(in, [&](v1::ArchivedJob& job, uint64_t, uint64_t) {
      if (job.id() == id) found = std::move(job);
    });
    if (found) return found;
  }
  return std::nullopt;
}

absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> ResultsArchive::ReadAll() const {
  ASSIGN_OR_RETURN(FileScan scan, ScanFile(path_, nullptr));
  return std::move(scan.jobs);
}

}  // namespace weft::runtime

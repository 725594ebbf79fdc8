#include "runtime/scheduler/results_archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fmt/format.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace weft::runtime {

std::filesystem::path ResultsArchivePath(const std::filesystem::path& state_dir) {
  return state_dir / "results-archive.binpb";
}

absl::Status AppendArchive(const std::filesystem::path& path, const std::vector<v1::ArchivedJob>& jobs) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    for (const v1::ArchivedJob& job : jobs) {
      if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(job, &out)) {
        return absl::InternalError("cannot serialize an archived job");
      }
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return absl::UnavailableError(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      return absl::UnavailableError(fmt::format("cannot write {}: {}", path.string(), std::strerror(e)));
    }
    written += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int e = errno;
  ::close(fd);
  if (!synced) return absl::UnavailableError(fmt::format("cannot fsync {}: {}", path.string(), std::strerror(e)));
  return absl::OkStatus();
}

absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> ReadArchive(const std::filesystem::path& path) {
  std::map<uint32_t, v1::ArchivedJob> jobs;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return jobs;
    return absl::UnavailableError(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  }
  google::protobuf::io::FileInputStream in(fd);
  in.SetCloseOnDelete(true);
  while (true) {
    v1::ArchivedJob job;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&job, &in, &clean_eof)) {
      // The end of the file, or a record cut short by a crash mid-append:
      // its jobs were still journaled, and will be archived again.
      break;
    }
    const uint32_t id = job.id();
    jobs[id] = std::move(job);
  }
  return jobs;
}

}  // namespace weft::runtime

#include "trace/gz_input.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/status.h"
#include "fmt/format.h"

namespace weft {
namespace {

constexpr uint8_t kMagic[2] = {0x1f, 0x8b};
// A gzip header's third byte names the method, 8 for deflate; its fourth
// holds the flags, whose top three are reserved, must be 0, and igzip does
// not check them (zlib did, after the method).
constexpr size_t kMethodByte = 2, kFlagsByte = 3;
constexpr uint8_t kDeflate = 8;
constexpr uint8_t kReservedFlags = 0xe0;

bool AtMagic(const uint8_t* p) { return p[0] == kMagic[0] && p[1] == kMagic[1]; }

// InflateError words igzip's error codes, in zlib's words where zlib had
// them for the same fault.
const char* InflateError(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate code";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";  // the member's crc32 or length
    default:
      return "invalid compressed data";
  }
}

}  // namespace

// inflate_state is about 85 KiB (Huffman tables and a buffer of history),
// so it lives on the heap, one per open gzip file.
struct GzInput::Inflater {
  inflate_state state;
};

GzInput::GzInput(int fd, std::string path, size_t input_chunk)
    : fd_(fd), path_(std::move(path)), input_(std::max<size_t>(input_chunk, sizeof kMagic)) {}

GzInput::~GzInput() { ::close(fd_); }

absl::StatusOr<std::unique_ptr<GzInput>> GzInput::Open(const std::string& path, size_t input_chunk) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::InvalidArgumentError(fmt::format("{}: no such file", path));
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(fmt::format("{}: is a directory", path));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InvalidArgumentError(fmt::format("{}: cannot open", path));
  std::unique_ptr<GzInput> in(new GzInput(fd, path, input_chunk));
  // gzip or plain, by the first two bytes; a file of one byte is plain (zlib
  // decided the same way).
  RETURN_IF_ERROR(in->Fill(sizeof kMagic));
  if (in->unread() >= sizeof kMagic && AtMagic(in->input_.data())) {
    in->inflater_ = std::make_unique<Inflater>();
    isal_inflate_init(&in->inflater_->state);
    in->inflater_->state.crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's crc32 and length
    RETURN_IF_ERROR(in->StartMember());
  }
  return in;
}

absl::Status GzInput::StartMember() {
  if (unread() <= kFlagsByte) RETURN_IF_ERROR(Fill(kFlagsByte + 1));
  if (unread() > kFlagsByte && input_[pos_ + kMethodByte] == kDeflate &&
      (input_[pos_ + kFlagsByte] & kReservedFlags) != 0) {
    return Error("unknown header flags set");
  }
  member_ = Member::kIn;
  return absl::OkStatus();
}

absl::Status GzInput::Error(std::string_view what) const {
  return absl::InvalidArgumentError(fmt::format("{}: cannot read: {}", path_, what));
}

absl::Status GzInput::Fill(size_t want) {
  if (pos_ > 0) {
    std::memmove(input_.data(), input_.data() + pos_, unread());
    end_ -= pos_;
    pos_ = 0;
  }
  while (end_ < want && end_ < input_.size() && !file_end_) {
    const ssize_t n = ::read(fd_, input_.data() + end_, input_.size() - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error(std::strerror(errno));
    }
    end_ += static_cast<size_t>(n);
    file_end_ = n == 0;
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> GzInput::Read(char* buf, size_t size) {
  return inflater_ != nullptr ? Inflate(buf, size) : ReadPlain(buf, size);
}

absl::StatusOr<size_t> GzInput::ReadPlain(char* buf, size_t size) {
  // What Open read to look at the first bytes, then straight from the file.
  size_t done = std::min(size, unread());
  std::memcpy(buf, input_.data() + pos_, done);
  pos_ += done;
  while (done < size && !file_end_) {
    const ssize_t n = ::read(fd_, buf + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error(std::strerror(errno));
    }
    done += static_cast<size_t>(n);
    file_end_ = n == 0;
  }
  return done;
}

absl::StatusOr<size_t> GzInput::Inflate(char* buf, size_t size) {
  inflate_state& s = inflater_->state;
  s.next_out = reinterpret_cast<uint8_t*>(buf);
  s.avail_out = static_cast<uint32_t>(std::min<size_t>(size, std::numeric_limits<uint32_t>::max()));
  while (s.avail_out > 0 && member_ != Member::kPastLast) {
    if (member_ == Member::kBetween) {
      // Another member follows when the next bytes are the magic ones;
      // anything else after a whole member is ignored, as zlib's gzread
      // and gzip -d ignore it.
      if (unread() < sizeof kMagic) RETURN_IF_ERROR(Fill(sizeof kMagic));
      if (unread() < sizeof kMagic || !AtMagic(input_.data() + pos_)) {
        member_ = Member::kPastLast;
        break;
      }
      isal_inflate_reset(&s);
      RETURN_IF_ERROR(StartMember());
    }
    if (unread() == 0) RETURN_IF_ERROR(Fill(1));
    s.next_in = input_.data() + pos_;
    s.avail_in = static_cast<uint32_t>(unread());
    const uint32_t out_before = s.avail_out;
    const int rc = isal_inflate(&s);
    const size_t used = static_cast<size_t>(s.next_in - (input_.data() + pos_));
    pos_ += used;
    if (rc < 0) return Error(InflateError(rc));
    if (s.block_state == ISAL_BLOCK_FINISH) {
      member_ = Member::kBetween;
    } else if (used == 0 && s.avail_out == out_before) {
      // igzip keeps what it cannot decode yet (a header or trailer cut by
      // the buffer's edge) in its own state, so no progress means it needs
      // input past the file's end.
      if (file_end_) return Error("unexpected end of file");
      // A guard against looping: igzip takes all the input it is given.
      if (unread() == input_.size()) return Error("igzip used none of a full input buffer");
      RETURN_IF_ERROR(Fill(unread() + 1));
    }
  }
  return static_cast<size_t>(s.next_out - reinterpret_cast<uint8_t*>(buf));
}

}  // namespace weft

#include "metrics/result_file.h"

#include <zstd.h>

#include <filesystem>

namespace weft {

namespace {
constexpr size_t kFlushBytes = 1 << 20;
constexpr int kZstdLevel = 3;  // zstd's default: a CSV shrinks ~8x at several hundred MB/s
}  // namespace

absl::StatusOr<std::unique_ptr<ResultFile>> ResultFile::Open(const std::string& dir, std::string_view name,
                                                             bool compress) {
  const std::string final_path = fmt::format("{}/{}{}", dir, name, compress ? ".zst" : "");
  std::FILE* file = std::fopen((final_path + ".tmp").c_str(), "wb");
  if (file == nullptr) return absl::InvalidArgumentError(fmt::format("--out {}: cannot write there", dir));
  std::unique_ptr<ResultFile> f(new ResultFile(final_path, file));
  if (compress) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    if (cctx == nullptr) return absl::ResourceExhaustedError("zstd: cannot allocate a compressor");
    f->zstd_ = cctx;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel);
    // One worker thread compresses while the run goes on; a libzstd built
    // without threads refuses the parameter and compresses inline instead.
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 1);
    f->compressed_.resize(ZSTD_CStreamOutSize());
  }
  return f;
}

ResultFile::~ResultFile() {
  if (zstd_ != nullptr) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_));
  if (file_ != nullptr) {
    std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(final_ + ".tmp", ec);
  }
}

void ResultFile::Write(const char* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) failed_ = true;
}

void ResultFile::Compress(const char* data, size_t size, bool end) {
  auto* cctx = static_cast<ZSTD_CCtx*>(zstd_);
  ZSTD_inBuffer in{data, size, 0};
  while (true) {
    ZSTD_outBuffer out{compressed_.data(), compressed_.size(), 0};
    const size_t left = ZSTD_compressStream2(cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left)) {
      failed_ = true;
      return;
    }
    Write(compressed_.data(), out.pos);
    // Done when the input is taken and, at the end, the frame is complete.
    if (end ? left == 0 : in.pos == in.size) return;
  }
}

void ResultFile::Flush(bool force) {
  if (!force && buffer_.size() < kFlushBytes) return;
  if (zstd_ != nullptr) {
    Compress(buffer_.data(), buffer_.size(), false);
  } else {
    Write(buffer_.data(), buffer_.size());
  }
  buffer_.clear();
}

fmt::memory_buffer* LazyResultFile::Buffer() {
  if (file_ == nullptr && !open_failed_) {
    absl::StatusOr<std::unique_ptr<ResultFile>> file = ResultFile::Open(dir_, name_, compress_);
    if (file.ok()) {
      file_ = *std::move(file);
      file_->buffer().append(std::string_view(header_));
    } else {
      open_failed_ = true;
    }
  }
  return file_ == nullptr ? nullptr : &file_->buffer();
}

absl::Status LazyResultFile::Finish() {
  if (open_failed_) return absl::InternalError(fmt::format("cannot write {} in {}", name_, dir_));
  if (file_ == nullptr) return absl::OkStatus();
  return file_->Finish();
}

absl::Status ResultFile::Finish() {
  Flush(true);
  if (zstd_ != nullptr) Compress(nullptr, 0, true);
  const bool ok = !failed_ && std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  const std::string tmp = final_ + ".tmp";
  std::error_code ec;
  if (!ok || !closed) {
    std::filesystem::remove(tmp, ec);
    return absl::InternalError(fmt::format("writing {} failed (disk full?)", final_));
  }
  std::filesystem::rename(tmp, final_, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    return absl::InternalError(fmt::format("cannot move {} into place: {}", final_, why));
  }
  return absl::OkStatus();
}

bool ResultFileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) || std::filesystem::exists(path + ".zst", ec);
}

absl::Status ReadResultFile(const std::string& path, const std::function<absl::Status(const char*, size_t)>& chunk) {
  std::error_code ec;
  const bool compressed = !std::filesystem::exists(path, ec) && std::filesystem::exists(path + ".zst", ec);
  const std::string name = compressed ? path + ".zst" : path;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(name.c_str(), "rb"), &std::fclose);
  if (!file) return absl::InvalidArgumentError(fmt::format("{}: cannot read", path));
  std::vector<char> in(1 << 20);
  if (!compressed) {
    while (const size_t n = std::fread(in.data(), 1, in.size(), file.get())) {
      if (absl::Status s = chunk(in.data(), n); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!dctx) return absl::ResourceExhaustedError("zstd: cannot allocate a decompressor");
  std::vector<char> out(ZSTD_DStreamOutSize());
  size_t frame_left = 0;  // zstd's hint: 0 once a frame is complete
  bool any = false;
  while (const size_t n = std::fread(in.data(), 1, in.size(), file.get())) {
    any = true;
    ZSTD_inBuffer input{in.data(), n, 0};
    while (input.pos < input.size) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      frame_left = ZSTD_decompressStream(dctx.get(), &output, &input);
      if (ZSTD_isError(frame_left)) {
        return absl::InvalidArgumentError(fmt::format("{}: {}", name, ZSTD_getErrorName(frame_left)));
      }
      if (absl::Status s = chunk(out.data(), output.pos); !s.ok()) return s;
    }
  }
  if (!any || frame_left != 0) return absl::InvalidArgumentError(fmt::format("{}: truncated zstd file", name));
  return absl::OkStatus();
}

}  // namespace weft

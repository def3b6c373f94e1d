#include "gridlock/core/output.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/core/version.hpp"

namespace gridlock {
namespace fs = std::filesystem;

namespace {

// std::strerror is not thread-safe (SMPI runs ranks as threads); the error category is.
std::string errno_text(int error) { return std::generic_category().message(error); }

// A temporary name next to the target, unique per process and call, so concurrent writers
// (several ranks, several tools) never share one.
fs::path temporary_sibling(const fs::path& path) {
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::uint64_t tag = mix64(now ^ (static_cast<std::uint64_t>(::getpid()) << 32U));
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}.{:016x}", ::getpid(), tag);
  return tmp;
}

fs::path directory_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {buffer.data(), n};
}

std::string host_name() {
  std::array<char, 256> buffer{};
  if (::gethostname(buffer.data(), buffer.size() - 1) != 0) {
    return "unknown";
  }
  return buffer.data();
}

std::string schema_name_of(const Json& context) {
  if (!context.is_object()) {
    return "";
  }
  const auto it = context.find("schema");
  return it != context.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json base_context(std::string_view tool, std::string_view schema, int schema_version) {
  Json context;
  context["tool"] = tool;
  context["gridlock_version"] = kVersion;
  context["git_commit"] = kGitCommit;
  context["schema"] = schema;
  context["schema_version"] = schema_version;
  context["date"] = utc_timestamp();
  context["host"] = host_name();
  return context;
}

namespace {

// A path the shell gives for a pipe (`/dev/stdin`, `/dev/fd/63` from `<(command)`) is a chain of
// symbolic links ending in the kernel's `pipe:[inode]` name, which no named FIFO has.
bool is_shell_pipe(const fs::path& path) {
  fs::path link = path;
  for (int depth = 0; depth < 8; ++depth) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(link, ec);
    if (ec) {
      return false;
    }
    if (target.native().starts_with("pipe:[")) {
      return true;
    }
    link = target.is_absolute() ? target : link.parent_path() / target;
  }
  return false;
}

}  // namespace

bool check_regular_input(const fs::path& path, std::string_view what, std::uintmax_t max_bytes,
                         std::string_view hint) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw IoError(fmt::format("cannot open {} '{}': no such file; {}", what, path.string(), hint));
  }
  if (ec) {
    throw IoError(fmt::format("cannot read {} '{}': {}; check the path and permissions", what, path.string(),
                              ec.message()));
  }
  if (fs::is_fifo(status) && is_shell_pipe(path)) {
    return true;
  }
  if (!fs::is_regular_file(status)) {
    const char* kind = fs::is_directory(status)        ? "a directory"
                       : fs::is_fifo(status)           ? "a FIFO"
                       : fs::is_character_file(status) ? "a character device"
                       : fs::is_block_file(status)     ? "a block device"
                       : fs::is_socket(status)         ? "a socket"
                                                       : "not a regular file";
    throw IoError(
        fmt::format("cannot read {} '{}': it is {}; give a regular file (copy a FIFO's or device's "
                    "output to a file first)",
                    what, path.string(), kind));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw InputError(fmt::format("{} '{}' has {} bytes, more than the limit of {} for this kind of file",
                                 what, path.string(), size, format_bytes(max_bytes)));
  }
  return false;
}

std::string read_input_file(const fs::path& path, std::string_view what, std::string_view hint,
                            std::uintmax_t max_bytes) {
  return std::string(InputFile(path, what, hint, max_bytes).bytes());
}

InputFile::InputFile(const fs::path& path, std::string_view what, std::string_view hint,
                     std::uintmax_t max_bytes) {
  const bool pipe = check_regular_input(path, what, max_bytes, hint);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw IoError(fmt::format("cannot open {} '{}': {}; {}", what, path.string(), errno_text(errno), hint));
  }
  struct stat info {};
  if (!pipe && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
      ::close(fd);
      throw InputError(fmt::format("{} '{}' has {} bytes, more than the limit of {} for this kind of file",
                                   what, path.string(), info.st_size, format_bytes(max_bytes)));
    }
    // MAP_POPULATE reads the whole file now (one pass, read-ahead) instead of faulting it in
    // page by page while it is decoded.
    void* map =
        ::mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map != MAP_FAILED) {
      ::close(fd);
      map_ = map;
      map_size_ = static_cast<std::size_t>(info.st_size);
      bytes_ = std::string_view(static_cast<const char*>(map), map_size_);
      return;
    }
  }
  // A shell pipe, a file empty as far as stat knows (/proc), or not mappable: read from the
  // descriptor already open, up to the limit.
  std::array<char, std::size_t{1} << 16U> chunk{};
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got > 0) {
      content_.append(chunk.data(), static_cast<std::size_t>(got));
      if (content_.size() > max_bytes) {
        ::close(fd);
        throw InputError(fmt::format("{} '{}' has more than the limit of {} for this kind of file", what,
                                     path.string(), format_bytes(max_bytes)));
      }
      continue;
    }
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      throw IoError(fmt::format("cannot read {} '{}': {}", what, path.string(), errno_text(error)));
    }
    break;
  }
  ::close(fd);
  bytes_ = content_;
}

InputFile::~InputFile() {
  if (map_ != nullptr) {
    ::munmap(map_, map_size_);
  }
}

namespace {

// An output path that exists and is neither a regular file nor a directory (/dev/stdout, a FIFO,
// a device): written in place, since renaming a file over it would replace the node itself.
bool is_special_output(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  return !ec && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const fs::path& path) : path_(path) {
  if (path.empty()) {
    throw IoError("cannot write output: the file name is empty");
  }
  if (is_special_output(path)) {
    in_place_ = true;
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) {
      throw IoError(fmt::format("cannot write '{}': {}", path.string(), errno_text(errno)));
    }
    return;
  }
  tmp_ = temporary_sibling(path);
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (file_ == nullptr) {
    throw IoError(fmt::format("cannot write '{}': {} (check that the directory '{}' exists and is writable)",
                              path.string(), errno_text(errno), directory_of(path).string()));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    if (!in_place_) {
      std::remove(tmp_.c_str());
    }
  }
}

void AtomicFileWriter::fail(int error) {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!in_place_) {
    std::remove(tmp_.c_str());
  }
  throw IoError(fmt::format("cannot write '{}': {} (is the disk full?)", path_.string(), errno_text(error)));
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (file_ == nullptr) {
    throw IoError(fmt::format("cannot write '{}': the file was already committed or failed", path_.string()));
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    fail(errno);
  }
}

void AtomicFileWriter::commit() {
  if (file_ == nullptr) {
    throw IoError(fmt::format("cannot write '{}': the file was already committed or failed", path_.string()));
  }
  // Pipes and devices cannot be synced or renamed: what was written to them is there.
  if (std::fflush(file_) != 0 || (!in_place_ && ::fsync(::fileno(file_)) != 0)) {
    fail(errno);
  }
  const int close_errno = std::fclose(file_) == 0 ? 0 : errno;
  file_ = nullptr;
  if (close_errno != 0) {
    if (!in_place_) {
      std::remove(tmp_.c_str());
    }
    throw IoError(fmt::format("cannot write '{}': {}{}", path_.string(), errno_text(close_errno),
                              in_place_ ? "" : " (is the disk full?)"));
  }
  if (in_place_) {
    return;
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(tmp_.c_str());
    throw IoError(
        fmt::format("cannot write '{}': rename failed: {}", path_.string(), errno_text(rename_errno)));
  }
}

void write_file_atomic(const fs::path& path, std::string_view content) {
  AtomicFileWriter writer(path);
  writer.write(content);
  writer.commit();
}

void check_output_not_input(const fs::path& output, std::string_view option,
                            const std::vector<fs::path>& inputs) {
  for (const auto& input : inputs) {
    std::error_code ec;
    // equivalent() compares device and inode, so hard links and symbolic links are caught too.
    if (!input.empty() && !output.empty() && fs::equivalent(output, input, ec) && !ec) {
      throw InputError(
          fmt::format("{} '{}' is the input file '{}': writing it would destroy the input; give "
                      "another output file",
                      option, output.string(), input.string()));
    }
  }
}

void check_writable(const fs::path& path) {
  if (path.empty()) {
    throw IoError("output file name is empty");
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw IoError(fmt::format("cannot write '{}': it is a directory; give a file name", path.string()));
  }
  if (is_special_output(path)) {
    // Written in place (AtomicFileWriter); a FIFO may get its reader only later.
    if (::access(path.c_str(), W_OK) != 0) {
      throw IoError(fmt::format("cannot write '{}': {}", path.string(), errno_text(errno)));
    }
    return;
  }
  const fs::path dir = directory_of(path);
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    throw IoError(fmt::format("cannot write '{}': '{}' is not a directory; give a path in a directory",
                              path.string(), dir.string()));
  }
  if (!fs::is_directory(status)) {
    throw IoError(fmt::format("cannot write '{}': directory '{}' does not exist (create it first)",
                              path.string(), dir.string()));
  }
  // Permissions alone do not tell (root passes access(W_OK) on /proc, a read-only mount, a full
  // quota): create and remove a file next to the target, as write_file_atomic will.
  const fs::path probe = temporary_sibling(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw IoError(fmt::format("cannot write '{}': cannot create a file in directory '{}' ({})", path.string(),
                              dir.string(), errno_text(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_json_file(const fs::path& path, const Json& context, const Json& body) {
  Json document;
  document["context"] = context;
  for (const auto& [key, value] : body.items()) {
    document[key] = value;
  }
  // NaN and infinities are not JSON; nlohmann writes them as null, which is what readers expect.
  write_file_atomic(path, document.dump(2) + "\n");
}

std::string csv_escape(std::string_view cell) {
  if (cell.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(cell);
  }
  std::string quoted = "\"";
  for (const char c : cell) {
    if (c == '"') {
      quoted += '"';
    }
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

CsvWriter::CsvWriter(const Json& context, const std::vector<std::string>& columns)
    : columns_(columns.size()) {
  for (const auto& [key, value] : context.items()) {
    // Nested values (parameters) are written as compact JSON on their comment line.
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    text_ += fmt::format("# {}: {}\n", key, text);
  }
  add_row(columns);
}

void CsvWriter::add_row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_) {
    throw InputError(fmt::format("CSV row has {} cells, expected {}", cells.size(), columns_));
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i != 0) {
      text_ += ',';
    }
    text_ += csv_escape(cells[i]);
  }
  text_ += '\n';
}

void CsvWriter::write(const fs::path& path) const { write_file_atomic(path, text_); }

}  // namespace gridlock

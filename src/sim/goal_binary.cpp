// The binary schedule format (docs/formats/goal.md) and file loading/saving.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

constexpr std::string_view kEndMagic{"GLSCHEND", 8};
constexpr std::uint8_t kTypeMask = 0x03U;
constexpr std::uint8_t kAnyPeerBit = 0x04U;
constexpr std::uint8_t kHasTagBit = 0x08U;
constexpr std::uint8_t kAnyTagBit = 0x10U;
constexpr std::uint8_t kHasCpuNicBit = 0x20U;
constexpr std::uint8_t kKnownBits = 0x3FU;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80U) {
    out.push_back(static_cast<char>((v & 0x7FU) | 0x80U));
    v >>= 7U;
  }
  out.push_back(static_cast<char>(v));
}
void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>(v & 0xFFU));
    v >>= 8U;
  }
}
std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1U) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1U) ^ -static_cast<std::int64_t>(v & 1U);
}

class Reader {
 public:
  Reader(std::string_view bytes, std::string_view name) : bytes_(bytes), name_(name) {}

  [[noreturn, gnu::cold, gnu::noinline]] void fail(std::string_view what) const {
    throw InputError(fmt::format("{}: byte {}: invalid binary schedule: {}", name_, pos_, what));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void out_of_range(std::string_view what, std::uint64_t v,
                                                           std::uint64_t limit) const {
    fail(fmt::format("{} {} out of range (must be below {})", what, v, limit));
  }
  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) {
      fail("unexpected end of file (truncated?)");
    }
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) {
      v |= static_cast<std::uint32_t>(byte()) << (8U * i);
    }
    return v;
  }
  std::uint64_t varint() {
    // Fast path: a varint has at most 10 bytes, so no per-byte end check is needed away from the
    // end of the file; malformed numbers take the checked path below for the message.
    if (bytes_.size() - pos_ >= 10) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(bytes_.data() + pos_);
      std::uint64_t v = 0;
      for (unsigned i = 0; i < 9; ++i) {
        v |= static_cast<std::uint64_t>(p[i] & 0x7FU) << (7U * i);
        if ((p[i] & 0x80U) == 0) {
          pos_ += i + 1;
          return v;
        }
      }
    }
    std::uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = byte();
      if (shift == 63 && b > 1) {
        fail("a number overflows 64 bits");
      }
      v |= static_cast<std::uint64_t>(b & 0x7FU) << shift;
      if ((b & 0x80U) == 0) {
        return v;
      }
    }
    fail("a number overflows 64 bits");
  }
  std::uint64_t varint_below(std::uint64_t limit, std::string_view what) {
    const std::uint64_t v = varint();
    if (v >= limit) [[unlikely]] {
      out_of_range(what, v, limit);
    }
    return v;
  }
  std::string_view take(std::size_t n) {
    if (bytes_.size() - pos_ < n) {
      fail("unexpected end of file (truncated?)");
    }
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  [[nodiscard]] bool at_end() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::string_view name_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string write_binary(const Schedule& schedule) {
  std::string out;
  out.append(kBinaryMagic);
  put_u32(out, kBinaryVersion);
  put_u32(out, 0);  // flags, reserved
  put_u32(out, schedule.num_ranks());
  put_u32(out, static_cast<std::uint32_t>(schedule.programs().size()));
  for (const Program& program : schedule.programs()) {
    const auto n = static_cast<std::uint32_t>(program.ops.size());
    put_varint(out, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Op& op = program.ops[i];
      std::uint8_t flags = static_cast<std::uint8_t>(op.type);
      if (op.type != OpType::kCalc && op.peer_offset == kAnySource) {
        flags |= kAnyPeerBit;
      }
      if (op.tag == kAnyTag) {
        flags |= kAnyTagBit;
      } else if (op.tag != 0) {
        flags |= kHasTagBit;
      }
      if (op.cpu != 0 || op.nic != 0) {
        flags |= kHasCpuNicBit;
      }
      out.push_back(static_cast<char>(flags));
      put_varint(out, op.size);
      if (op.type != OpType::kCalc && op.peer_offset != kAnySource) {
        put_varint(out, op.peer_offset);
      }
      if ((flags & kHasTagBit) != 0) {
        put_varint(out, op.tag);
      }
      if ((flags & kHasCpuNicBit) != 0) {
        out.push_back(static_cast<char>(op.cpu));
        out.push_back(static_cast<char>(op.nic));
      }
      const std::uint32_t k0 = program.succ_begin[2 * static_cast<std::size_t>(i)];
      const std::uint32_t k1 = program.succ_begin[2 * static_cast<std::size_t>(i) + 1];
      const std::uint32_t k2 = program.succ_begin[2 * static_cast<std::size_t>(i) + 2];
      put_varint(out, k1 - k0);
      put_varint(out, k2 - k1);
      for (std::uint32_t k = k0; k < k2; ++k) {
        put_varint(out, zigzag(static_cast<std::int64_t>(program.succ[k]) - static_cast<std::int64_t>(i)));
      }
    }
  }
  // Rank table, run-length coded: (program, run length) pairs.
  const auto& table = schedule.rank_program();
  for (std::size_t r = 0; r < table.size();) {
    std::size_t run = 1;
    while (r + run < table.size() && table[r + run] == table[r]) {
      ++run;
    }
    put_varint(out, table[r]);
    put_varint(out, run);
    r += run;
  }
  out.append(kEndMagic);
  return out;
}

Schedule read_binary(std::string_view bytes, std::string_view source_name, std::uint32_t max_ranks) {
  Reader in(bytes, source_name);
  if (in.take(kBinaryMagic.size()) != kBinaryMagic) {
    in.fail("the file does not start with the gridlock schedule magic bytes");
  }
  const std::uint32_t version = in.u32();
  if (version != kBinaryVersion) {
    in.fail(fmt::format("format version {} is not supported (this gridlock reads version {})", version,
                        kBinaryVersion));
  }
  if (in.u32() != 0) {
    in.fail("unknown flags");
  }
  const std::uint32_t num_ranks = in.u32();
  if (num_ranks == 0 || num_ranks > std::min(max_ranks, kMaxRanks)) {
    in.fail(fmt::format("number of ranks {} out of range", num_ranks));
  }
  const std::uint32_t num_programs = in.u32();
  // Every program takes at least one byte: bounds the allocation on corrupt input.
  if (num_programs == 0 || num_programs > num_ranks || num_programs > bytes.size()) {
    in.fail(fmt::format("number of programs {} out of range (1 .. {})", num_programs, num_ranks));
  }
  // All programs go into one flat store (a few allocations however many programs there are).
  ProgramStore store;
  store.extents.resize(num_programs);
  for (ProgramExtent& extent : store.extents) {
    const auto n =
        static_cast<std::uint32_t>(in.varint_below(std::uint64_t{kMaxOpsPerRank} + 1, "operation count"));
    // Every op takes at least 4 bytes, which bounds allocations on corrupt input.
    if (n > bytes.size()) {
      in.fail("operation count larger than the file");
    }
    extent.num_ops = n;
    const std::size_t op_base = store.ops.size();
    const std::size_t begin_base = store.succ_begin.size();
    const std::size_t succ_base = store.succ.size();
    store.ops.resize(op_base + n);
    store.succ_begin.resize(begin_base + 2 * static_cast<std::size_t>(n) + 1);
    store.succ_begin[begin_base] = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      Op& op = store.ops[op_base + i];
      const std::uint8_t flags = in.byte();
      const std::uint8_t type = flags & kTypeMask;
      if ((flags & ~kKnownBits) != 0 || type == 0 ||
          ((flags & kHasTagBit) != 0 && (flags & kAnyTagBit) != 0)) {
        in.fail(fmt::format("invalid operation flags 0x{:02x}", flags));
      }
      op.type = static_cast<OpType>(type);
      op.size = in.varint();
      if (op.type == OpType::kCalc) {
        if ((flags & (kAnyPeerBit | kAnyTagBit | kHasTagBit)) != 0) {
          in.fail("a calc with a peer or tag");
        }
        op.peer_offset = 0;
      } else if ((flags & kAnyPeerBit) != 0) {
        if (op.type == OpType::kSend) {
          in.fail("a send to any source");
        }
        op.peer_offset = kAnySource;
      } else {
        op.peer_offset = static_cast<std::uint32_t>(in.varint_below(num_ranks, "peer offset"));
      }
      if ((flags & kAnyTagBit) != 0) {
        if (op.type == OpType::kSend) {
          in.fail("a send with the any-tag value");
        }
        op.tag = kAnyTag;
      } else if ((flags & kHasTagBit) != 0) {
        op.tag = static_cast<std::uint32_t>(in.varint_below(kAnyTag, "tag"));
      }
      if ((flags & kHasCpuNicBit) != 0) {
        op.cpu = in.byte();
        op.nic = in.byte();
        if (op.type == OpType::kCalc && op.nic != 0) {
          in.fail("a calc with a NIC index (calcs use only a CPU)");
        }
      }
      const std::uint64_t n_done = in.varint_below(bytes.size() + 1, "dependant count");
      const std::uint64_t n_start = in.varint_below(bytes.size() + 1, "dependant count");
      for (std::uint64_t k = 0; k < n_done + n_start; ++k) {
        const std::int64_t target = static_cast<std::int64_t>(i) + unzigzag(in.varint());
        if (target < 0 || target >= static_cast<std::int64_t>(n)) {
          in.fail(fmt::format("dependency of operation {} on an operation out of range", i));
        }
        store.succ.push_back(static_cast<std::uint32_t>(target));
      }
      const std::size_t num_succ = store.succ.size() - succ_base;
      if (num_succ >= kMaxOpsPerRank) {
        in.fail("too many dependencies in one program");
      }
      std::uint32_t* offsets = store.succ_begin.data() + begin_base + 2 * static_cast<std::size_t>(i);
      offsets[1] = offsets[0] + static_cast<std::uint32_t>(n_done);
      offsets[2] = static_cast<std::uint32_t>(num_succ);
    }
    extent.num_succ = static_cast<std::uint32_t>(store.succ.size() - succ_base);
  }
  std::vector<std::uint32_t> table;
  while (table.size() < num_ranks) {
    const auto program = static_cast<std::uint32_t>(in.varint_below(num_programs, "program index"));
    const std::uint64_t run = in.varint_below(num_ranks - table.size() + 1, "rank run length");
    if (run == 0) {
      in.fail("empty rank run");
    }
    table.insert(table.end(), run, program);
  }
  if (in.take(kEndMagic.size()) != kEndMagic) {
    in.fail("missing end marker");
  }
  if (!in.at_end()) {
    in.fail("trailing bytes after the end marker");
  }
  // The programs are taken as they are (the writer shared them already); from_programs checks
  // the dependency lists for cycles and computes dependency counts and roots.
  try {
    return ScheduleBuilder::from_programs(num_ranks, std::move(store), std::move(table));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: invalid binary schedule: {}", source_name, e.what()));
  }
}

Schedule load_schedule(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    throw IoError(fmt::format("cannot open schedule '{}': check the path and permissions", path.string()));
  }
  std::string bytes;
  std::array<char, 1U << 16U> chunk{};
  std::size_t got = 0;
  while ((got = std::fread(chunk.data(), 1, chunk.size(), file)) > 0) {
    bytes.append(chunk.data(), got);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) {
    throw IoError(fmt::format("cannot read schedule '{}'", path.string()));
  }
  if (bytes.size() >= kBinaryMagic.size() &&
      std::string_view(bytes).substr(0, kBinaryMagic.size()) == kBinaryMagic) {
    return read_binary(bytes, path.string());
  }
  return parse_goal(bytes, path.string());
}

void save_schedule(const Schedule& schedule, const std::filesystem::path& path) {
  if (path.extension() == ".gsched") {
    write_file_atomic(path, write_binary(schedule));
  } else {
    write_file_atomic(path, write_goal(schedule));
  }
}

}  // namespace gridlock::sim

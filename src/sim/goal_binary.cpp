// The binary schedule format (docs/formats/goal.md) and file loading/saving.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "detail/acyclic.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/threads.hpp"
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

// The kind byte of an op without its size class (the same in format versions 1 and 2).
std::uint8_t op_flags(const Op& op) {
  auto flags = static_cast<std::uint8_t>(op.type);
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
  return flags;
}

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
// The op a dependant at zigzagged distance `delta` from op `i` names. Added modulo 2^64 because a
// corrupt delta may be anywhere in int64, where a signed add could overflow. Ops are numbered below
// 2^32, so the wrapped sum is below the op count exactly when the true target is in range: a
// negative target wraps to 2^63 or above, a too-large one stays too large.
std::uint64_t dependant_target(std::uint64_t i, std::uint64_t delta) {
  return i + static_cast<std::uint64_t>(unzigzag(delta));
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
  [[noreturn, gnu::cold, gnu::noinline]] void fail_at(std::size_t pos, std::string_view what) {
    pos_ = pos;
    fail(what);
  }
  [[nodiscard]] std::size_t pos() const { return pos_; }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_program(std::string_view what) const {
    throw InputError(fmt::format("{}: invalid binary schedule: {}", name_, what));
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

// Version 1: programs one after the other, each op a flags byte and varints (docs/formats/goal.md).
void decode_programs_v1(Reader& in, std::size_t file_size, std::uint32_t num_ranks, ProgramStore& store) {
  for (ProgramExtent& extent : store.extents) {
    const auto n =
        static_cast<std::uint32_t>(in.varint_below(std::uint64_t{kMaxOpsPerRank} + 1, "operation count"));
    // Every op takes at least 4 bytes, which bounds allocations on corrupt input.
    if (n > file_size) {
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
      const std::uint64_t n_done = in.varint_below(file_size + 1, "dependant count");
      const std::uint64_t n_start = in.varint_below(file_size + 1, "dependant count");
      for (std::uint64_t k = 0; k < n_done + n_start; ++k) {
        const std::uint64_t target = dependant_target(i, in.varint());
        if (target >= n) {
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
}

// Version 2: a program table, then one column per op field over all ops (docs/formats/goal.md).
// Fixed-width fields decode in tight loops, and each column is bounds-checked once.
constexpr unsigned kSizeClassShift = 6;
constexpr std::array<std::uint8_t, 4> kSizeBytes{1, 2, 4, 8};

// What a version 2 kind byte implies; looked up once per op.
struct KindInfo {
  std::uint8_t valid = 0;  // 1 for a well-formed kind byte
  std::uint8_t size_bytes = 0;
  std::uint8_t has_peer = 0;
  std::uint8_t has_tag = 0;
  std::uint8_t has_cpu_nic = 0;
};

// Why a kind byte (v1 flags plus a size class) is malformed, or "" if it is not.
constexpr std::string_view kind_problem(std::uint8_t flags) {
  const unsigned type = flags & kTypeMask;
  if (type == 0 || ((flags & kHasTagBit) != 0 && (flags & kAnyTagBit) != 0)) {
    return "invalid operation flags";
  }
  if (type == static_cast<unsigned>(OpType::kCalc) &&
      (flags & (kAnyPeerBit | kAnyTagBit | kHasTagBit)) != 0) {
    return "a calc with a peer or tag";
  }
  if (type == static_cast<unsigned>(OpType::kSend) && (flags & kAnyPeerBit) != 0) {
    return "a send to any source";
  }
  if (type == static_cast<unsigned>(OpType::kSend) && (flags & kAnyTagBit) != 0) {
    return "a send with the any-tag value";
  }
  return "";
}

constexpr std::array<KindInfo, 256> make_kind_table() {
  std::array<KindInfo, 256> table{};
  for (unsigned f = 0; f < 256; ++f) {
    const auto flags = static_cast<std::uint8_t>(f);
    KindInfo& k = table[f];
    k.valid = kind_problem(flags).empty() ? 1 : 0;
    k.size_bytes = kSizeBytes[f >> kSizeClassShift];
    k.has_peer =
        (flags & kTypeMask) != static_cast<unsigned>(OpType::kCalc) && (flags & kAnyPeerBit) == 0 ? 1 : 0;
    k.has_tag = (flags & kHasTagBit) != 0 ? 1 : 0;
    k.has_cpu_nic = (flags & kHasCpuNicBit) != 0 ? 1 : 0;
  }
  return table;
}
constexpr std::array<KindInfo, 256> kKinds = make_kind_table();

// A little-endian unsigned integer of W bytes. Widths 1, 2, 4 and 8 are one load on a
// little-endian host (GCC does not merge the byte loop into one load at -O2).
template <unsigned W>
std::uint64_t load_le(const std::uint8_t* p) {
  if constexpr (std::endian::native == std::endian::little && (W == 1 || W == 2 || W == 4 || W == 8)) {
    using Word = std::conditional_t<
        W == 1, std::uint8_t,
        std::conditional_t<W == 2, std::uint16_t, std::conditional_t<W == 4, std::uint32_t, std::uint64_t>>>;
    Word v = 0;
    std::memcpy(&v, p, W);
    return v;
  } else {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < W; ++i) {
      v |= static_cast<std::uint64_t>(p[i]) << (8U * i);
    }
    return v;
  }
}

// Calls f(std::integral_constant<unsigned, w>) so that loops over fixed-width fields are compiled
// once per width.
template <class F>
void with_width(unsigned width, F&& f) {
  switch (width) {
    case 1:
      f(std::integral_constant<unsigned, 1>{});
      break;
    case 2:
      f(std::integral_constant<unsigned, 2>{});
      break;
    case 3:
      f(std::integral_constant<unsigned, 3>{});
      break;
    default:
      f(std::integral_constant<unsigned, 4>{});
      break;
  }
}

void put_le(std::string& out, std::uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; ++i) {
    out.push_back(static_cast<char>(v & 0xFFU));
    v >>= 8U;
  }
}

// Bytes needed for the peer offsets of a schedule of `num_ranks` ranks (every offset is below).
unsigned peer_width(std::uint32_t num_ranks) {
  const std::uint32_t largest = num_ranks - 1;
  return largest <= 0xFFU ? 1 : largest <= 0xFFFFU ? 2 : largest <= 0xFFFFFFU ? 3 : 4;
}

unsigned size_class(std::uint64_t size) {
  return size <= 0xFFU ? 0 : size <= 0xFFFFU ? 1 : size <= 0xFFFFFFFFU ? 2 : 3;
}

// Dependant counts (requires, irequires) of one op in a count column of the given width.
[[gnu::always_inline]] inline std::pair<std::uint64_t, std::uint64_t> read_counts(const std::uint8_t* p,
                                                                                  unsigned width) {
  switch (width) {
    case 0:
      return {*p & 0xFU, *p >> 4U};
    case 1:
      return {load_le<1>(p), load_le<1>(p + 1)};
    case 2:
      return {load_le<2>(p), load_le<2>(p + 2)};
    default:
      return {load_le<4>(p), load_le<4>(p + 4)};
  }
}

// The CPU and NIC counts a decoded schedule needs.
struct Hosts {
  std::uint32_t num_cpus = 1;
  std::uint32_t num_nics = 1;
};

// Where one thread starts decoding version 2 columns: its first program and, in each column, the
// position of that program's first field.
struct ColumnCursor {
  std::size_t first_program = 0;
  std::uint64_t size = 0;
  std::uint64_t peer = 0;
  std::uint64_t tag = 0;
  std::uint64_t cpu_nic = 0;
};

// The bounds-checked columns of a version 2 file and their file offsets (for error messages).
struct Columns {
  const std::uint8_t* kinds = nullptr;
  const std::uint8_t* sizes = nullptr;
  const std::uint8_t* peers = nullptr;
  const std::uint8_t* tags = nullptr;
  const std::uint8_t* cpu_nic = nullptr;
  const std::uint8_t* counts = nullptr;
  const std::uint8_t* deps = nullptr;
  std::size_t peers_pos = 0;
  std::size_t tags_pos = 0;
  std::size_t cpu_nic_pos = 0;
  std::size_t counts_pos = 0;
  std::size_t deps_pos = 0;
  unsigned count_width = 0;
  unsigned count_bytes = 0;
};

// memcmp(a, b, n) == 0 for the short runs of one program's bytes, where a call to memcmp costs
// more than the comparison.
[[gnu::always_inline]] inline bool bytes_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  for (; n >= 8; n -= 8, a += 8, b += 8) {
    if (load_le<8>(a) != load_le<8>(b)) {
      return false;
    }
  }
  unsigned diff = 0;
  for (std::size_t i = 0; i < n; ++i) {
    diff |= static_cast<unsigned>(a[i] ^ b[i]);
  }
  return diff == 0;
}

constexpr std::uint32_t kNoRepresentative = 0xFFFFFFFFU;

// One program of a version 2 file: where its ops and dependants are in the columns.
struct FileProgram {
  std::uint64_t op_begin = 0;
  std::uint64_t succ_offset = 0;
  std::uint32_t num_ops = 0;
  std::uint32_t num_succ = 0;
};

// Where one program's fields start in the sizes, tags and CPU/NIC columns, and how many bytes they
// take there (the kinds, counts and dependants of a program are found from its FileProgram).
struct FieldBytes {
  std::uint64_t size = 0;
  std::uint64_t tag = 0;
  std::uint64_t cpu_nic = 0;
  std::uint64_t size_length = 0;
  std::uint64_t tag_length = 0;
  std::uint64_t cpu_nic_length = 0;
};

// A distinct program of a file: the first program with its bytes, the peers aside.
struct Representative {
  std::size_t program = 0;
  FieldBytes at;
  std::uint64_t hash = 0;
};

// Programs told apart by their bytes in every column but the peers: programs with equal bytes
// decode to the same program, whatever their peers.
class RepresentativeSet {
 public:
  RepresentativeSet(const Columns& c, std::span<const FileProgram> programs, unsigned dep_width)
      : c_(&c), programs_(programs), dep_width_(dep_width) {}

  // Do programs a and b have the same bytes, the peers aside?
  [[nodiscard]] bool same_bytes(std::size_t a, const FieldBytes& at_a, std::size_t b,
                                const FieldBytes& at_b) const {
    const FileProgram& pa = programs_[a];
    const FileProgram& pb = programs_[b];
    return pa.num_ops == pb.num_ops && pa.num_succ == pb.num_succ && at_a.size_length == at_b.size_length &&
           at_a.tag_length == at_b.tag_length && at_a.cpu_nic_length == at_b.cpu_nic_length &&
           bytes_equal(c_->kinds + pa.op_begin, c_->kinds + pb.op_begin, pa.num_ops) &&
           bytes_equal(c_->sizes + at_a.size, c_->sizes + at_b.size, at_a.size_length) &&
           bytes_equal(c_->tags + at_a.tag, c_->tags + at_b.tag, at_a.tag_length) &&
           bytes_equal(c_->cpu_nic + at_a.cpu_nic, c_->cpu_nic + at_b.cpu_nic, at_a.cpu_nic_length) &&
           bytes_equal(c_->counts + pa.op_begin * c_->count_bytes, c_->counts + pb.op_begin * c_->count_bytes,
                       std::uint64_t{pa.num_ops} * c_->count_bytes) &&
           bytes_equal(c_->deps + pa.succ_offset * dep_width_, c_->deps + pb.succ_offset * dep_width_,
                       std::uint64_t{pa.num_succ} * dep_width_);
  }
  // A hash of the bytes same_bytes compares.
  [[nodiscard]] std::uint64_t hash(std::size_t program, const FieldBytes& at) const {
    const FileProgram& p = programs_[program];
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (std::uint64_t{p.num_ops} << 32U | p.num_succ);
    const auto mix = [&h](std::uint64_t word) {
      h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
      h ^= h >> 32U;
    };
    const auto mix_bytes = [&mix](const std::uint8_t* b, std::uint64_t n) {
      for (; n >= 8; n -= 8, b += 8) {
        mix(load_le<8>(b));
      }
      std::uint64_t tail = n;
      for (std::uint64_t i = 0; i < n; ++i) {
        tail = tail << 8U | b[i];
      }
      mix(tail);
    };
    mix_bytes(c_->kinds + p.op_begin, p.num_ops);
    mix_bytes(c_->sizes + at.size, at.size_length);
    mix_bytes(c_->tags + at.tag, at.tag_length);
    mix_bytes(c_->cpu_nic + at.cpu_nic, at.cpu_nic_length);
    mix_bytes(c_->counts + p.op_begin * c_->count_bytes, std::uint64_t{p.num_ops} * c_->count_bytes);
    mix_bytes(c_->deps + p.succ_offset * dep_width_, std::uint64_t{p.num_succ} * dep_width_);
    return h;
  }
  // The index of the representative with the bytes of `program`, added if there is none.
  std::uint32_t find_or_add(std::size_t program, const FieldBytes& at, std::uint64_t hash) {
    const auto [first, last] = by_hash_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      const Representative& r = list_[it->second];
      if (same_bytes(r.program, r.at, program, at)) {
        return it->second;
      }
    }
    const auto id = static_cast<std::uint32_t>(list_.size());
    list_.push_back(Representative{program, at, hash});
    by_hash_.emplace(hash, id);
    return id;
  }
  [[nodiscard]] const std::vector<Representative>& list() const { return list_; }

 private:
  const Columns* c_;
  std::span<const FileProgram> programs_;
  unsigned dep_width_;
  std::vector<Representative> list_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash_;
};

// First pass over programs [from.first_program, last_program) of a version 2 file: decodes and
// checks every program's peers into `peers` (at the program's first op) and finds each program's
// representative among the share's (`rep_of`, share-local indices). A program whose bytes equal
// the previous program's (a random ring: only the peers differ) costs one comparison; the others
// are hashed. Writes are disjoint between shares, so shares can run on different threads.
template <unsigned PeerWidth>
RepresentativeSet identify_share_v2(Reader in, const Columns& c, unsigned dep_width, std::uint32_t num_ranks,
                                    std::span<const FileProgram> programs, std::uint32_t* peers,
                                    std::uint32_t* rep_of, const ColumnCursor& from,
                                    std::size_t last_program) {
  RepresentativeSet reps(c, programs, dep_width);
  FieldBytes at{from.size, from.tag, from.cpu_nic, 0, 0, 0};
  const std::uint8_t* peer_p = c.peers + from.peer;
  std::size_t previous = 0;
  FieldBytes previous_at;
  std::uint32_t previous_rep = kNoRepresentative;
  for (std::size_t prog = from.first_program; prog < last_program; ++prog) {
    const FileProgram& e = programs[prog];
    const std::uint8_t* kind = c.kinds + e.op_begin;
    // Equal kinds give equal lengths in the other columns, so the comparison stays inside them.
    at.size_length = previous_at.size_length;
    at.tag_length = previous_at.tag_length;
    at.cpu_nic_length = previous_at.cpu_nic_length;
    if (previous_rep == kNoRepresentative || !reps.same_bytes(previous, previous_at, prog, at)) {
      std::uint64_t size_length = 0;
      std::uint64_t tags = 0;
      std::uint64_t cpu_nics = 0;
      for (std::size_t i = 0; i < e.num_ops; ++i) {
        const KindInfo& k = kKinds[kind[i]];
        size_length += k.size_bytes;
        tags += k.has_tag;
        cpu_nics += k.has_cpu_nic;
      }
      at.size_length = size_length;
      at.tag_length = 4 * tags;
      at.cpu_nic_length = 2 * cpu_nics;
      previous_rep = reps.find_or_add(prog, at, reps.hash(prog, at));
    }
    previous = prog;
    previous_at = at;
    rep_of[prog] = previous_rep;
    std::uint32_t* peer_out = peers + e.op_begin;
    for (std::size_t i = 0; i < e.num_ops; ++i) {
      const std::uint8_t f = kind[i];
      if (kKinds[f].has_peer != 0) {
        const std::uint64_t peer = load_le<PeerWidth>(peer_p);
        if (peer >= num_ranks) [[unlikely]] {
          in.fail_at(c.peers_pos + static_cast<std::size_t>(peer_p - c.peers),
                     fmt::format("peer offset {} out of range (must be below {})", peer, num_ranks));
        }
        peer_out[i] = static_cast<std::uint32_t>(peer);
        peer_p += PeerWidth;
      } else {
        peer_out[i] = (f & kAnyPeerBit) != 0 ? kAnySource : 0;
      }
    }
    at.size += at.size_length;
    at.tag += at.tag_length;
    at.cpu_nic += at.cpu_nic_length;
  }
  return reps;
}

// What one thread's share of the representatives gives besides the arrays it fills in place.
struct ShareResult {
  std::vector<std::uint32_t> roots;  // the share's roots, program after program
  std::uint32_t max_cpu = 0;
  std::uint32_t max_nic = 0;
};

// Second pass: decodes, validates and completes representatives [first, last) into the store's
// pre-sized ops, succ_begin, succ and dep_count arrays (at their extents; disjoint between shares,
// so shares can run on different threads); roots go to the result with share-relative root_begin.
// Ops keep peer offset 0 (the peers are the ranks'). Each program is finished while it is in
// cache: separate passes over all ops were memory-bound.
template <unsigned DepWidth>
ShareResult decode_share_v2(Reader in, const Columns& c, std::span<const FileProgram> programs,
                            std::span<const Representative> reps, ProgramStore& store, std::size_t first,
                            std::size_t last) {
  ShareResult result;
  std::vector<std::uint32_t> remaining;
  std::vector<std::uint32_t> ready;
  std::vector<std::uint32_t> scratch;
  for (std::size_t id = first; id < last; ++id) {
    const Representative& rep = reps[id];
    const std::size_t prog = rep.program;
    const FileProgram& f_e = programs[prog];
    ProgramExtent& e = store.extents[id];
    const std::size_t n = e.num_ops;
    const std::uint8_t* kind = c.kinds + f_e.op_begin;
    const std::uint8_t* size_p = c.sizes + rep.at.size;
    const std::uint8_t* tag_p = c.tags + rep.at.tag;
    const std::uint8_t* cpu_nic_p = c.cpu_nic + rep.at.cpu_nic;
    const std::uint8_t* count_p = c.counts + f_e.op_begin * c.count_bytes;
    const std::uint8_t* dep_p = c.deps + f_e.succ_offset * DepWidth;
    std::uint32_t* offsets = store.succ_begin.data() + 2 * e.op_begin + id;
    std::uint32_t* succ = store.succ.data() + e.succ_offset;
    std::uint32_t* dep_count = store.dep_count.data() + e.op_begin;
    Op* ops = store.ops.data() + e.op_begin;
    std::uint64_t run = 0;
    bool backward = false;
    offsets[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t f = kind[i];
      Op op;
      op.type = static_cast<OpType>(f & kTypeMask);
      switch (f >> kSizeClassShift) {
        case 0:
          op.size = load_le<1>(size_p);
          size_p += 1;
          break;
        case 1:
          op.size = load_le<2>(size_p);
          size_p += 2;
          break;
        case 2:
          op.size = load_le<4>(size_p);
          size_p += 4;
          break;
        default:
          op.size = load_le<8>(size_p);
          size_p += 8;
          break;
      }
      op.peer_offset = (f & kAnyPeerBit) != 0 ? kAnySource : 0;  // only receives may have the bit
      op.tag = (f & kAnyTagBit) != 0 ? kAnyTag : 0;
      if ((f & kHasTagBit) != 0) [[unlikely]] {
        op.tag = static_cast<std::uint32_t>(load_le<4>(tag_p));
        if (op.tag == kAnyTag) {
          in.fail_at(c.tags_pos + static_cast<std::size_t>(tag_p - c.tags),
                     fmt::format("tag {} out of range (must be below {})", op.tag, kAnyTag));
        }
        tag_p += 4;
      }
      if ((f & kHasCpuNicBit) != 0) [[unlikely]] {
        op.cpu = cpu_nic_p[0];
        op.nic = cpu_nic_p[1];
        if (op.type == OpType::kCalc && op.nic != 0) {
          in.fail_at(c.cpu_nic_pos + static_cast<std::size_t>(cpu_nic_p - c.cpu_nic),
                     "a calc with a NIC index (calcs use only a CPU)");
        }
        result.max_cpu = std::max<std::uint32_t>(result.max_cpu, op.cpu);
        result.max_nic = std::max<std::uint32_t>(result.max_nic, op.nic);
        cpu_nic_p += 2;
      }
      ops[i] = op;
      const auto [done, start] = read_counts(count_p, c.count_width);
      const std::uint64_t first_dep = run;
      run += done;
      offsets[2 * i + 1] = static_cast<std::uint32_t>(run);
      run += start;
      offsets[2 * i + 2] = static_cast<std::uint32_t>(run);
      // Checked before the dependants are read: they must stay inside this program's share.
      if (run > e.num_succ) [[unlikely]] {
        in.fail_at(
            c.counts_pos + static_cast<std::size_t>(count_p - c.counts),
            fmt::format("the dependant counts of program {} add up to more than the program table's {}", prog,
                        e.num_succ));
      }
      count_p += c.count_bytes;
      for (std::uint64_t k = first_dep; k < run; ++k) {
        const std::uint64_t target = dependant_target(i, load_le<DepWidth>(dep_p));
        if (target >= n) [[unlikely]] {
          in.fail_at(c.deps_pos + static_cast<std::size_t>(dep_p - c.deps),
                     fmt::format("dependency of operation {} on an operation out of range", i));
        }
        dep_p += DepWidth;
        succ[k] = static_cast<std::uint32_t>(target);
        ++dep_count[target];
        backward |= static_cast<std::size_t>(target) <= i;
      }
    }
    if (run != e.num_succ) [[unlikely]] {
      in.fail_at(c.counts_pos + f_e.op_begin * c.count_bytes,
                 fmt::format("the dependant counts of program {} add up to {}, the program table says {}",
                             prog, run, e.num_succ));
    }
    e.root_begin = result.roots.size();
    detail::append_roots(std::span<const Op>(ops, n), dep_count, result.roots, scratch);
    e.num_roots = static_cast<std::uint32_t>(result.roots.size() - e.root_begin);
    // Dependants that all come later cannot form a cycle; Kahn's algorithm only for the rest.
    if (backward) {
      const Program program{std::span<const Op>(ops, n),
                            std::span<const std::uint32_t>(offsets, 2 * n + 1),
                            std::span<const std::uint32_t>(succ, e.num_succ),
                            std::span<const std::uint32_t>(dep_count, n),
                            {}};
      if (!detail::acyclic(program, remaining, ready)) {
        in.fail_program(fmt::format("program {} has a dependency cycle", prog));
      }
    }
  }
  return result;
}

// The column lengths a run of kind bytes implies (in fields, not bytes, for peers, tags and
// CPU/NIC pairs), and whether any kind byte is invalid.
struct KindSums {
  std::uint64_t size = 0;
  std::uint64_t peer = 0;
  std::uint64_t tag = 0;
  std::uint64_t cpu_nic = 0;
  bool invalid = false;
};

// Each kind byte's contributions to KindSums packed into one word, so that summing a block of
// kinds is one load and one add per byte: the size bytes in bits 0-13, then 12 bits each for
// peers, tags, CPU/NIC pairs and invalid bytes. A block of at most kKindBlock bytes cannot carry
// from one field into the next (8 * 1024 < 2^14, 1024 < 2^12).
constexpr std::size_t kKindBlock = 1024;
constexpr std::array<std::uint64_t, 256> make_packed_kinds() {
  std::array<std::uint64_t, 256> packed{};
  for (unsigned f = 0; f < 256; ++f) {
    const KindInfo& k = kKinds[f];
    packed[f] = std::uint64_t{k.size_bytes} | std::uint64_t{k.has_peer} << 14U |
                std::uint64_t{k.has_tag} << 26U | std::uint64_t{k.has_cpu_nic} << 38U |
                std::uint64_t{k.valid ^ 1U} << 50U;
  }
  return packed;
}
constexpr std::array<std::uint64_t, 256> kPackedKinds = make_packed_kinds();

KindSums sum_kinds(const std::uint8_t* kinds, std::size_t n) {
  KindSums sums;
  std::uint64_t invalid = 0;
  for (std::size_t i = 0; i < n;) {
    const std::size_t end = std::min(n, i + kKindBlock);
    std::uint64_t block = 0;
    for (; i < end; ++i) {
      block += kPackedKinds[kinds[i]];
    }
    sums.size += block & 0x3FFFU;
    sums.peer += (block >> 14U) & 0xFFFU;
    sums.tag += (block >> 26U) & 0xFFFU;
    sums.cpu_nic += (block >> 38U) & 0xFFFU;
    invalid += block >> 50U;
  }
  sums.invalid = invalid != 0;
  return sums;
}

// Threads for decoding `total_ops` operations when `requested` is 0: one for small schedules
// (starting threads would cost more than it saves), else up to the cores available.
unsigned decode_threads(std::uint64_t total_ops, unsigned requested) {
  if (requested != 0) {
    return std::min(requested, kMaxLoadThreads);
  }
  constexpr std::uint64_t kOpsPerThread = std::uint64_t{1} << 18U;
  const unsigned cores = std::max(1U, std::min(kMaxLoadThreads, std::thread::hardware_concurrency()));
  return static_cast<unsigned>(std::clamp<std::uint64_t>(total_ops / kOpsPerThread, 1, cores));
}

// A decoded version 2 file: its distinct programs without peers, each file program's index among
// them, and the peer offsets of every op of every file program (file program p's from
// programs[p].op_begin).
struct DecodedV2 {
  ProgramStore store;
  std::vector<std::uint32_t> shape_of;
  std::shared_ptr<std::uint32_t[]> peers;  // not zeroed: the decoder writes every element
  std::vector<FileProgram> programs;       // the file's program table
  Hosts hosts;
};

// A version 2 file's program table: each program's op and dependant counts and where they start
// in the columns, and the totals.
struct ProgramTable {
  std::vector<FileProgram> programs;
  std::uint64_t total_ops = 0;
  std::uint64_t total_succ = 0;
};

ProgramTable read_program_table(Reader& in, std::size_t file_size, std::uint32_t num_programs) {
  ProgramTable table;
  table.programs.resize(num_programs);
  for (FileProgram& e : table.programs) {
    e.num_ops =
        static_cast<std::uint32_t>(in.varint_below(std::uint64_t{kMaxOpsPerRank} + 1, "operation count"));
    e.num_succ = static_cast<std::uint32_t>(in.varint_below(kMaxOpsPerRank, "dependency count"));
    e.op_begin = table.total_ops;
    e.succ_offset = table.total_succ;
    table.total_ops += e.num_ops;
    table.total_succ += e.num_succ;
    // Every op and every dependency takes at least one byte: bounds allocations on corrupt input.
    if (table.total_ops > file_size || table.total_succ > file_size) {
      in.fail("operation or dependency counts larger than the file");
    }
  }
  return table;
}

// Takes every column of the file into `c` (each bounds-checked whole) and returns where each of
// `threads` shares of programs with about equal numbers of ops and dependencies starts in every
// column. The kinds come first, alone: they say how long the later columns are; each share sums
// the column lengths its own kinds imply (on its own thread), and the prefix sums are where the
// shares start.
std::vector<ColumnCursor> take_columns(Reader& in, Columns& c, unsigned dep_width, const ProgramTable& table,
                                       std::uint32_t num_ranks, unsigned threads) {
  const std::vector<FileProgram>& programs = table.programs;
  const std::size_t num_programs = programs.size();
  std::vector<ColumnCursor> shares(threads);
  for (unsigned t = 1; t < threads; ++t) {
    const std::uint64_t goal = (table.total_ops + table.total_succ) * t / threads;
    std::size_t p = shares[t - 1].first_program;
    while (p < num_programs && programs[p].op_begin + programs[p].succ_offset < goal) {
      ++p;
    }
    shares[t].first_program = p;
  }
  const std::size_t kinds_pos = in.pos();
  c.kinds = reinterpret_cast<const std::uint8_t*>(in.take(table.total_ops).data());
  const auto first_op = [&](unsigned t) {
    return t < threads && shares[t].first_program < num_programs ? programs[shares[t].first_program].op_begin
                                                                 : table.total_ops;
  };
  std::vector<KindSums> partial(threads);
  run_on_threads(threads, [&](unsigned t) {
    partial[t] = sum_kinds(c.kinds + first_op(t), first_op(t + 1) - first_op(t));
  });
  ColumnCursor sums;
  bool invalid = false;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t first_program = shares[t].first_program;
    shares[t] = sums;
    shares[t].first_program = first_program;
    sums.size += partial[t].size;
    sums.peer += partial[t].peer;
    sums.tag += partial[t].tag;
    sums.cpu_nic += partial[t].cpu_nic;
    invalid = invalid || partial[t].invalid;
  }
  if (invalid) {
    for (std::size_t i = 0; i < table.total_ops; ++i) {
      if (kKinds[c.kinds[i]].valid == 0) {
        in.fail_at(kinds_pos + i,
                   fmt::format("{} (kind byte 0x{:02x})", kind_problem(c.kinds[i]), c.kinds[i]));
      }
    }
  }
  const unsigned pw = peer_width(num_ranks);
  c.count_bytes = c.count_width == 0 ? 1 : 2U * c.count_width;
  // `*_pos` are file offsets for error messages.
  const auto column = [&in](std::uint64_t length) {
    return reinterpret_cast<const std::uint8_t*>(in.take(length).data());
  };
  c.sizes = column(sums.size);
  c.peers_pos = in.pos();
  c.peers = column(sums.peer * pw);
  c.tags_pos = in.pos();
  c.tags = column(sums.tag * 4);
  c.cpu_nic_pos = in.pos();
  c.cpu_nic = column(sums.cpu_nic * 2);
  c.counts_pos = in.pos();
  c.counts = column(table.total_ops * c.count_bytes);
  c.deps_pos = in.pos();
  c.deps = column(table.total_succ * dep_width);
  for (ColumnCursor& share : shares) {
    share.peer *= pw;
    share.tag *= 4;
    share.cpu_nic *= 2;
  }
  return shares;
}

// Rethrows the first share's error: the one a single-threaded reader would have met first.
void rethrow_first(const std::vector<std::exception_ptr>& errors) {
  for (const std::exception_ptr& error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

// First pass: decodes every program's peers into decoded.peers and finds the distinct programs
// (into `reps`, in order of first appearance in the file; decoded.shape_of maps each program to
// its representative), share by share on several threads.
void identify_programs(Reader& in, const Columns& c, unsigned dep_width, std::uint32_t num_ranks,
                       const ProgramTable& table, const std::vector<ColumnCursor>& shares,
                       RepresentativeSet& reps, DecodedV2& decoded) {
  const std::vector<FileProgram>& programs = table.programs;
  const auto threads = static_cast<unsigned>(shares.size());
  const std::size_t num_programs = programs.size();
  const unsigned pw = peer_width(num_ranks);
  decoded.peers = std::make_shared_for_overwrite<std::uint32_t[]>(table.total_ops);
  // Each share writes its programs' share-local representative indices; made global below.
  decoded.shape_of.resize(num_programs);
  std::vector<std::optional<RepresentativeSet>> found(threads);
  std::vector<std::exception_ptr> errors(threads);
  run_on_threads(threads, [&](unsigned t) {
    const std::size_t last = t + 1 < threads ? shares[t + 1].first_program : num_programs;
    try {
      with_width(pw, [&](auto peer_w) {
        found[t].emplace(identify_share_v2<peer_w()>(in, c, dep_width, num_ranks, programs,
                                                     decoded.peers.get(), decoded.shape_of.data(), shares[t],
                                                     last));
      });
    } catch (...) {
      errors[t] = std::current_exception();
    }
  });
  rethrow_first(errors);
  for (unsigned t = 0; t < threads; ++t) {
    const std::vector<Representative>& local = found[t]->list();
    std::vector<std::uint32_t> global(local.size());
    for (std::size_t i = 0; i < local.size(); ++i) {
      global[i] = reps.find_or_add(local[i].program, local[i].at, local[i].hash);
    }
    const std::size_t last = t + 1 < threads ? shares[t + 1].first_program : num_programs;
    for (std::size_t prog = shares[t].first_program; prog < last; ++prog) {
      decoded.shape_of[prog] = global[decoded.shape_of[prog]];
    }
    found[t].reset();
  }
}

// Second pass: the distinct programs `list`, decoded in place into decoded.store (laid out for
// them) on several threads; sets decoded.hosts.
void decode_representatives(Reader& in, const Columns& c, unsigned dep_width,
                            const std::vector<FileProgram>& programs, const std::vector<Representative>& list,
                            unsigned requested_threads, DecodedV2& decoded) {
  ProgramStore& store = decoded.store;
  store.extents.resize(list.size());
  std::uint64_t rep_ops = 0;
  std::uint64_t rep_succ = 0;
  for (std::size_t id = 0; id < list.size(); ++id) {
    ProgramExtent& e = store.extents[id];
    e.num_ops = programs[list[id].program].num_ops;
    e.num_succ = programs[list[id].program].num_succ;
    e.op_begin = rep_ops;
    e.succ_offset = rep_succ;
    rep_ops += e.num_ops;
    rep_succ += e.num_succ;
  }
  store.ops.resize(rep_ops);
  store.succ_begin.resize(2 * rep_ops + list.size());
  store.succ.resize(rep_succ);
  store.dep_count.assign(rep_ops, 0);
  const unsigned decoders = decode_threads(rep_ops, requested_threads);
  std::vector<std::size_t> first_rep(decoders + 1, list.size());
  first_rep[0] = 0;
  for (unsigned t = 1; t < decoders; ++t) {
    const std::uint64_t goal = (rep_ops + rep_succ) * t / decoders;
    std::size_t id = first_rep[t - 1];
    while (id < list.size() && store.extents[id].op_begin + store.extents[id].succ_offset < goal) {
      ++id;
    }
    first_rep[t] = id;
  }
  std::vector<ShareResult> results(decoders);
  std::vector<std::exception_ptr> errors(decoders);
  run_on_threads(decoders, [&](unsigned t) {
    try {
      switch (dep_width) {
        case 1:
          results[t] = decode_share_v2<1>(in, c, programs, list, store, first_rep[t], first_rep[t + 1]);
          break;
        case 2:
          results[t] = decode_share_v2<2>(in, c, programs, list, store, first_rep[t], first_rep[t + 1]);
          break;
        default:
          results[t] = decode_share_v2<4>(in, c, programs, list, store, first_rep[t], first_rep[t + 1]);
          break;
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
  });
  rethrow_first(errors);
  std::uint32_t max_cpu = 0;
  std::uint32_t max_nic = 0;
  std::size_t roots = 0;
  for (const ShareResult& r : results) {
    roots += r.roots.size();
  }
  store.roots.reserve(roots);
  for (unsigned t = 0; t < decoders; ++t) {
    const std::size_t base = store.roots.size();
    for (std::size_t id = first_rep[t]; id < first_rep[t + 1]; ++id) {
      store.extents[id].root_begin += base;
    }
    store.roots.insert(store.roots.end(), results[t].roots.begin(), results[t].roots.end());
    max_cpu = std::max(max_cpu, results[t].max_cpu);
    max_nic = std::max(max_nic, results[t].max_nic);
  }
  decoded.hosts.num_cpus = max_cpu + 1;
  decoded.hosts.num_nics = max_nic + 1;
}

// Version 2. The columns are bounds-checked as wholes. A first pass decodes every program's peers
// and finds the distinct programs (by their bytes, peers aside); a second decodes only those. Both
// run in shares of about equal size on several threads (each share of the first pass starts at
// known positions in every column, found while the kinds are counted).
DecodedV2 decode_programs_v2(Reader& in, std::size_t file_size, std::uint32_t num_ranks,
                             std::uint32_t num_programs, unsigned requested_threads) {
  Columns c;
  c.count_width = in.byte();
  if (c.count_width != 0 && c.count_width != 1 && c.count_width != 2 && c.count_width != 4) {
    in.fail_at(in.pos() - 1, fmt::format("dependant count width {} is not 0, 1, 2 or 4", c.count_width));
  }
  const std::uint8_t dep_width = in.byte();
  if (dep_width != 1 && dep_width != 2 && dep_width != 4) {
    in.fail_at(in.pos() - 1, fmt::format("dependant width {} is not 1, 2 or 4", dep_width));
  }
  ProgramTable table = read_program_table(in, file_size, num_programs);
  const std::vector<ColumnCursor> shares =
      take_columns(in, c, dep_width, table, num_ranks, decode_threads(table.total_ops, requested_threads));
  DecodedV2 decoded;
  RepresentativeSet reps(c, table.programs, dep_width);
  identify_programs(in, c, dep_width, num_ranks, table, shares, reps, decoded);
  decode_representatives(in, c, dep_width, table.programs, reps.list(), requested_threads, decoded);
  decoded.programs = std::move(table.programs);
  return decoded;
}

}  // namespace

namespace {

// The programs a file stores: one per distinct (program, peers) pair of the schedule, in the
// order of their first ranks (how the builder used to number programs, so files stay the same).
struct FilePrograms {
  struct Entry {
    const Program* program;
    std::span<const std::uint32_t> peers;
  };
  std::vector<Entry> list;
  std::vector<std::uint32_t> rank_entry;  // index into list of each rank's
};

FilePrograms file_programs(const Schedule& schedule) {
  Schedule::ProgramsWithPeers pairs = schedule.programs_with_peers();
  FilePrograms out;
  out.list.reserve(pairs.first_rank.size());
  for (const std::uint32_t r : pairs.first_rank) {
    out.list.push_back({&schedule.program_of(r), schedule.peer_offsets(r)});
  }
  out.rank_entry = std::move(pairs.of_rank);
  return out;
}

// Rank table, run-length coded: (program, run length) pairs; then the end marker.
void put_rank_table(std::string& out, const FilePrograms& programs) {
  const auto& table = programs.rank_entry;
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
}

std::string write_binary_v1(const Schedule& schedule) {
  const FilePrograms programs = file_programs(schedule);
  std::string out;
  out.append(kBinaryMagic);
  put_u32(out, 1);
  put_u32(out, 0);  // flags, reserved
  put_u32(out, schedule.num_ranks());
  put_u32(out, static_cast<std::uint32_t>(programs.list.size()));
  for (const auto& [program_ptr, peers] : programs.list) {
    const Program& program = *program_ptr;
    const auto n = static_cast<std::uint32_t>(program.ops.size());
    put_varint(out, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Op& op = program.ops[i];
      const std::uint8_t flags = op_flags(op);
      out.push_back(static_cast<char>(flags));
      put_varint(out, op.size);
      if (op.type != OpType::kCalc && op.peer_offset != kAnySource) {
        put_varint(out, peers[i]);
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
  put_rank_table(out, programs);
  return out;
}

std::string write_binary_v2(const Schedule& schedule) {
  const FilePrograms file = file_programs(schedule);
  std::uint64_t most_dependants = 0;
  std::uint64_t largest_delta = 0;
  for (const Program& program : schedule.programs()) {
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      most_dependants = std::max<std::uint64_t>(
          most_dependants, std::max(program.succ_begin[2 * i + 1] - program.succ_begin[2 * i],
                                    program.succ_begin[2 * i + 2] - program.succ_begin[2 * i + 1]));
      for (std::uint32_t k = program.succ_begin[2 * i]; k < program.succ_begin[2 * i + 2]; ++k) {
        largest_delta = std::max(
            largest_delta, zigzag(static_cast<std::int64_t>(program.succ[k]) - static_cast<std::int64_t>(i)));
      }
    }
  }
  const unsigned count_width = most_dependants < 16         ? 0
                               : most_dependants <= 0xFFU   ? 1
                               : most_dependants <= 0xFFFFU ? 2
                                                            : 4;
  const unsigned dep_width = largest_delta <= 0xFFU ? 1 : largest_delta <= 0xFFFFU ? 2 : 4;
  std::string out;
  out.append(kBinaryMagic);
  put_u32(out, 2);
  put_u32(out, 0);  // flags, reserved
  put_u32(out, schedule.num_ranks());
  put_u32(out, static_cast<std::uint32_t>(file.list.size()));
  out.push_back(static_cast<char>(count_width));
  out.push_back(static_cast<char>(dep_width));
  for (const auto& entry : file.list) {
    put_varint(out, entry.program->ops.size());
    put_varint(out, entry.program->succ.size());
  }
  const auto each_op = [&](auto&& f) {
    for (const auto& entry : file.list) {
      for (const Op& op : entry.program->ops) {
        f(op);
      }
    }
  };
  each_op([&](const Op& op) {
    out.push_back(static_cast<char>(op_flags(op) | (size_class(op.size) << kSizeClassShift)));
  });
  each_op([&](const Op& op) { put_le(out, op.size, kSizeBytes[size_class(op.size)]); });
  const unsigned pw = peer_width(schedule.num_ranks());
  for (const auto& entry : file.list) {
    for (std::size_t i = 0; i < entry.program->ops.size(); ++i) {
      const Op& op = entry.program->ops[i];
      if (op.type != OpType::kCalc && op.peer_offset != kAnySource) {
        put_le(out, entry.peers[i], pw);
      }
    }
  }
  each_op([&](const Op& op) {
    if (op.tag != 0 && op.tag != kAnyTag) {
      put_le(out, op.tag, 4);
    }
  });
  each_op([&](const Op& op) {
    if (op.cpu != 0 || op.nic != 0) {
      out.push_back(static_cast<char>(op.cpu));
      out.push_back(static_cast<char>(op.nic));
    }
  });
  for (const auto& entry : file.list) {
    const Program& program = *entry.program;
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const std::uint32_t done = program.succ_begin[2 * i + 1] - program.succ_begin[2 * i];
      const std::uint32_t start = program.succ_begin[2 * i + 2] - program.succ_begin[2 * i + 1];
      if (count_width == 0) {
        out.push_back(static_cast<char>(done | (start << 4U)));
      } else {
        put_le(out, done, count_width);
        put_le(out, start, count_width);
      }
    }
  }
  for (const auto& entry : file.list) {
    const Program& program = *entry.program;
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      for (std::uint32_t k = program.succ_begin[2 * i]; k < program.succ_begin[2 * i + 2]; ++k) {
        put_le(out, zigzag(static_cast<std::int64_t>(program.succ[k]) - static_cast<std::int64_t>(i)),
               dep_width);
      }
    }
  }
  put_rank_table(out, file);
  return out;
}

}  // namespace

std::string write_binary(const Schedule& schedule, std::uint32_t version) {
  if (schedule.has_repeating()) {
    // The format has no loops: a repeating program written once would be a different schedule.
    throw InputError(
        "a schedule with repeating programs (generators) cannot be written as a binary schedule");
  }
  if (version == 1) {
    return write_binary_v1(schedule);
  }
  if (version == 2) {
    return write_binary_v2(schedule);
  }
  throw InputError(
      fmt::format("binary schedule format version {} cannot be written (versions 1 and 2 can)", version));
}

namespace detail {
// Hands programs that read_binary validated and completed to the schedule (ScheduleBuilder's friend).
struct BinaryLoader {
  static Schedule adopt(std::uint32_t num_ranks, std::uint32_t num_cpus, std::uint32_t num_nics,
                        ProgramStore programs, std::vector<std::uint32_t> rank_program,
                        std::shared_ptr<const std::uint32_t[]> peer_store,
                        std::vector<std::uint64_t> rank_peer_begin) {
    return ScheduleBuilder::adopt_checked(num_ranks, num_cpus, num_nics, std::move(programs),
                                          std::move(rank_program), std::move(peer_store),
                                          std::move(rank_peer_begin));
  }
};
}  // namespace detail

Schedule read_binary(std::string_view bytes, std::string_view source_name, std::uint32_t max_ranks,
                     unsigned threads, MemoryBudget* budget, std::uint64_t extra_bytes_per_rank) {
  Reader in(bytes, source_name);
  if (in.take(kBinaryMagic.size()) != kBinaryMagic) {
    in.fail("the file does not start with the gridlock schedule magic bytes");
  }
  const std::uint32_t version = in.u32();
  if (version != 1 && version != kBinaryVersion) {
    in.fail(fmt::format("format version {} is not supported (this gridlock reads versions 1 and {})", version,
                        kBinaryVersion));
  }
  if (in.u32() != 0) {
    in.fail("unknown flags");
  }
  const std::uint32_t num_ranks = in.u32();
  if (num_ranks == 0 || num_ranks > std::min(max_ranks, kMaxRanks)) {
    in.fail(fmt::format("number of ranks {} out of range", num_ranks));
  }
  if (budget != nullptr) {
    budget->reserve(saturating_add(estimate_schedule_rank_bytes(num_ranks, false),
                                   saturating_mul(num_ranks, extra_bytes_per_rank)),
                    fmt::format("{}: a binary schedule of {} ranks", source_name, num_ranks),
                    "give a schedule of fewer ranks");
  }
  const std::uint32_t num_programs = in.u32();
  // Every program takes at least one byte: bounds the allocation on corrupt input.
  if (num_programs == 0 || num_programs > num_ranks || num_programs > bytes.size()) {
    in.fail(fmt::format("number of programs {} out of range (1 .. {})", num_programs, num_ranks));
  }
  // All programs go into one flat store (a few allocations however many programs there are).
  ProgramStore store;
  DecodedV2 decoded;
  if (version == 1) {
    store.extents.resize(num_programs);
    decode_programs_v1(in, bytes.size(), num_ranks, store);
  } else {
    decoded = decode_programs_v2(in, bytes.size(), num_ranks, num_programs, threads);
  }
  // Each rank's program; for version 2 its file program's shape and where its peers begin.
  // The tables grow run by run, as the file proves them: a corrupt header's rank count alone must
  // not allocate gigabytes.
  std::vector<std::uint32_t> table;
  std::vector<std::uint64_t> peer_begin;
  while (table.size() < num_ranks) {
    const auto program = static_cast<std::uint32_t>(in.varint_below(num_programs, "program index"));
    const auto run =
        static_cast<std::uint32_t>(in.varint_below(num_ranks - table.size() + 1, "rank run length"));
    if (run == 0) {
      in.fail("empty rank run");
    }
    if (version == 1) {
      table.insert(table.end(), run, program);
    } else {
      const FileProgram& e = decoded.programs[program];
      table.insert(table.end(), run, decoded.shape_of[program]);
      // Ranks without ops have no peers: one value for all, as the builder gives them.
      peer_begin.insert(peer_begin.end(), run, e.num_ops == 0 ? 0 : e.op_begin);
    }
  }
  if (in.take(kEndMagic.size()) != kEndMagic) {
    in.fail("missing end marker");
  }
  if (!in.at_end()) {
    in.fail("trailing bytes after the end marker");
  }
  // Version 2 decoding checked the programs, shared those that differ only in peers and completed
  // them; each rank gets its file program's shape and peers. For version 1, from_programs checks
  // the dependency lists for cycles and computes dependency counts and roots.
  if (version != 1) {
    return detail::BinaryLoader::adopt(num_ranks, decoded.hosts.num_cpus, decoded.hosts.num_nics,
                                       std::move(decoded.store), std::move(table), std::move(decoded.peers),
                                       std::move(peer_begin));
  }
  try {
    return ScheduleBuilder::from_programs(num_ranks, std::move(store), std::move(table));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: invalid binary schedule: {}", source_name, e.what()));
  }
}

Schedule load_schedule(const std::filesystem::path& path, bool keep_sources, MemoryBudget* budget,
                       std::uint64_t extra_bytes_per_rank) {
  const InputFile file(path, "schedule", "check the path", kNoInputLimit);
  const std::string_view bytes = file.bytes();
  if (budget != nullptr) {
    // The text's operations are at most a few times its bytes (a GOAL op line is 10 bytes or
    // more, an op 24 bytes and its edges): the file's own size stands for them, twice.
    budget->reserve(saturating_mul(bytes.size(), 2),
                    fmt::format("{} ({} bytes)", path.string(), bytes.size()), "give a smaller schedule");
  }
  if (bytes.size() >= kBinaryMagic.size() &&
      std::string_view(bytes).substr(0, kBinaryMagic.size()) == kBinaryMagic) {
    return read_binary(bytes, path.string(), kMaxRanks, 0, budget, extra_bytes_per_rank);
  }
  // A binary file cut within its magic: no GOAL text starts with 'G', so it is not text either.
  if (!bytes.empty() && bytes.size() < kBinaryMagic.size() && kBinaryMagic.starts_with(bytes)) {
    throw InputError(fmt::format(
        "{}: truncated binary schedule: {} of the {} bytes of the magic 'GLSCHED\\x1a', then nothing; "
        "expected the magic, a header and the programs (copy or write the file again)",
        path.string(), bytes.size(), kBinaryMagic.size()));
  }
  return parse_goal(bytes, path.string(), keep_sources, kMaxRanks, budget, extra_bytes_per_rank);
}

std::uint64_t estimate_schedule_rank_bytes(std::uint64_t ranks, bool keep_sources) noexcept {
  constexpr std::uint64_t kPerRank = 64;
  constexpr std::uint64_t kSourcesPerRank = 64;
  return saturating_mul(ranks, keep_sources ? kPerRank + kSourcesPerRank : kPerRank);
}

std::uint64_t estimate_simulation_bytes(std::uint64_t ranks, std::uint64_t total_ops) noexcept {
  constexpr std::uint64_t kPerOp = 24;
  return saturating_add(saturating_mul(ranks, kSimulationBytesPerRank), saturating_mul(total_ops, kPerOp));
}

bool is_binary_schedule_name(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  constexpr std::string_view kExtension = ".gsched";
  return ext.size() == kExtension.size() &&
         std::equal(ext.begin(), ext.end(), kExtension.begin(), [](char a, char b) {
           return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
         });
}

void save_schedule(const Schedule& schedule, const std::filesystem::path& path) {
  if (is_binary_schedule_name(path)) {
    write_file_atomic(path, write_binary(schedule));
  } else {
    // Streamed: a million-rank GOAL file is gigabytes of text.
    AtomicFileWriter file(path);
    write_goal(schedule, [&file](std::string_view piece) { file.write(piece); });
    file.commit();
  }
}

}  // namespace gridlock::sim

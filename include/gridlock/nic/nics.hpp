#pragma once
/// @file
/// The network ports (NICs) of the node a rank runs on, and which of them lie nearest to where the
/// rank is bound (issue 41): read with hwloc (Debian's libhwloc-dev) from the running machine or
/// from an XML description of a node as `lstopo --of xml` writes it. MPI libraries pick the NIC
/// nearest to a rank's binding; gridlock-bench groups ranks by it to form GPCNeT's per-port slices.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::nic {

/// What kind of operating-system device a NIC was found as.
enum class NicKind : std::uint8_t {
  kOpenFabrics,  ///< An RDMA device (InfiniBand or RoCE HCA, e.g. mlx5_0; Slingshot's cxi0).
  kNetwork,      ///< A network interface (e.g. hsn0, eth0), taken only where no RDMA device exists.
};

/// One network port of a node.
struct Nic {
  std::string name;                      ///< The OS device's name: "mlx5_0", "cxi0", "hsn0".
  NicKind kind = NicKind::kOpenFabrics;  ///< How it was found.
  std::string pci_bus_id;                ///< Its PCI function, "0000:41:00.0".
  /// OS indexes of the processing units local to it (the cpuset of its nearest non-I/O ancestor,
  /// usually a package or NUMA node), ascending.
  std::vector<unsigned> local_cpus;
};

/// The NICs of a node described by `xml` (hwloc's XML format; `where` names it in errors): every
/// RDMA device on a PCI function, or, when there is none, every network interface on one (no
/// loopback, bridge or other virtual interface); one NIC per PCI function, in the order hwloc lists
/// them. Throws InputError when the XML cannot be read.
[[nodiscard]] std::vector<Nic> nics_from_xml(std::string_view xml, std::string_view where);

/// The NICs of the machine this process runs on, as nics_from_xml() chooses them. Throws
/// IoError when hwloc cannot read the machine.
[[nodiscard]] std::vector<Nic> machine_nics();

/// OS indexes of the processing units this process is bound to, ascending (every one the process
/// may use when it is not bound), below CPU_SETSIZE (1,024). Throws IoError when the system cannot
/// tell.
[[nodiscard]] std::vector<unsigned> bound_cpus();

/// Indexes into `nics` of the NICs nearest to a rank bound to `cpus`: those whose local CPUs hold
/// the most of them. Several when they tie (an unbound rank; two NICs on one package); every NIC
/// when none is local to any of them; empty only when `nics` is.
[[nodiscard]] std::vector<std::size_t> nearest_nics(const std::vector<Nic>& nics,
                                                    const std::vector<unsigned>& cpus);

/// `mlx5_0 (0000:41:00.0, CPUs 0-15)`: a NIC in one line, CPU ranges compressed (without a PCI
/// function, a virtual NIC: `vnic0 (CPUs 0-7)`).
[[nodiscard]] std::string describe(const Nic& nic);

}  // namespace gridlock::nic

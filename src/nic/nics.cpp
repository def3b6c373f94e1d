#include "gridlock/nic/nics.hpp"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <memory>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::nic {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// A topology with I/O devices kept: hwloc drops them by default, and NICs are I/O devices.
Topology new_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    throw IoError("hwloc: cannot start reading the machine's topology (out of memory?)");
  }
  Topology t(raw);
  if (hwloc_topology_set_io_types_filter(t.get(), HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    throw IoError("hwloc: cannot keep I/O devices in the topology");
  }
  // The PCI tree and its network devices come from sysfs (the linux component); the pci component
  // (libpciaccess) adds vendor names only, and Debian's hwloc 2.9 plugin leaks what it allocates
  // (found by LeakSanitizer). Where hwloc has no such component the call fails and changes nothing.
  (void)hwloc_topology_set_components(t.get(), HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
  return t;
}

std::vector<unsigned> cpus_of(hwloc_const_bitmap_t set) {
  std::vector<unsigned> out;
  if (set == nullptr) {
    return out;
  }
  for (int i = hwloc_bitmap_first(set); i != -1; i = hwloc_bitmap_next(set, i)) {
    out.push_back(static_cast<unsigned>(i));
  }
  return out;
}

// The PCI function an OS device sits on, or null for a virtual device (loopback, bridge, tunnel).
hwloc_obj_t pci_parent(hwloc_obj_t osdev) {
  for (hwloc_obj_t p = osdev->parent; p != nullptr; p = p->parent) {
    if (p->type == HWLOC_OBJ_PCI_DEVICE) {
      return p;
    }
    if (p->type != HWLOC_OBJ_OS_DEVICE) {
      return nullptr;
    }
  }
  return nullptr;
}

std::vector<Nic> nics_of(hwloc_topology_t topology) {
  std::vector<Nic> rdma;
  std::vector<Nic> network;
  std::set<std::string> seen_rdma;
  std::set<std::string> seen_network;
  for (hwloc_obj_t dev = hwloc_get_next_osdev(topology, nullptr); dev != nullptr;
       dev = hwloc_get_next_osdev(topology, dev)) {
    const hwloc_obj_osdev_type_e type = dev->attr->osdev.type;
    if (type != HWLOC_OBJ_OSDEV_OPENFABRICS && type != HWLOC_OBJ_OSDEV_NETWORK) {
      continue;
    }
    const hwloc_obj_t pci = pci_parent(dev);
    if (pci == nullptr || dev->name == nullptr) {
      continue;
    }
    const auto& a = pci->attr->pcidev;
    Nic nic;
    nic.name = dev->name;
    nic.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.{:01x}", a.domain, a.bus, a.dev, a.func);
    const hwloc_obj_t host = hwloc_get_non_io_ancestor_obj(topology, dev);
    nic.local_cpus = cpus_of(host != nullptr ? host->cpuset : nullptr);
    // One NIC per PCI function: an HCA's port is also a network interface (mlx5_0 and ib0).
    if (type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
      nic.kind = NicKind::kOpenFabrics;
      if (seen_rdma.insert(nic.pci_bus_id).second) {
        rdma.push_back(std::move(nic));
      }
    } else {
      nic.kind = NicKind::kNetwork;
      if (seen_network.insert(nic.pci_bus_id).second) {
        network.push_back(std::move(nic));
      }
    }
  }
  return rdma.empty() ? network : rdma;
}

}  // namespace

std::vector<Nic> nics_from_xml(std::string_view xml, std::string_view where) {
  Topology t = new_topology();
  if (xml.size() > static_cast<std::size_t>(INT_MAX) ||
      hwloc_topology_set_xmlbuffer(t.get(), xml.data(), static_cast<int>(xml.size())) != 0 ||
      hwloc_topology_load(t.get()) != 0) {
    throw InputError(
        fmt::format("{}: not a node topology hwloc can read (write one with `lstopo --of xml FILE` "
                    "on the node)",
                    where));
  }
  return nics_of(t.get());
}

std::vector<Nic> machine_nics() {
  Topology t = new_topology();
  if (hwloc_topology_load(t.get()) != 0) {
    throw IoError("hwloc: cannot read this machine's topology");
  }
  return nics_of(t.get());
}

std::vector<unsigned> bound_cpus() {
  // sched_getaffinity rather than hwloc_get_cpubind: the latter needs a loaded topology, which
  // costs every rank of a node 30-100 ms and megabytes; only one rank per node reads the NICs.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    throw IoError(fmt::format("cannot read this process's CPU binding (sched_getaffinity: {})",
                              std::generic_category().message(errno)));
  }
  std::vector<unsigned> out;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      out.push_back(cpu);
    }
  }
  return out;
}

std::vector<std::size_t> nearest_nics(const std::vector<Nic>& nics, const std::vector<unsigned>& cpus) {
  std::vector<std::size_t> overlap(nics.size(), 0);
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const std::vector<unsigned>& local = nics[i].local_cpus;
    for (const unsigned cpu : cpus) {
      overlap[i] += std::binary_search(local.begin(), local.end(), cpu) ? 1U : 0U;
    }
  }
  const std::size_t best = overlap.empty() ? 0 : *std::max_element(overlap.begin(), overlap.end());
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (overlap[i] == best) {
      out.push_back(i);
    }
  }
  return out;
}

std::string describe(const Nic& nic) {
  const std::string cpus =
      nic.local_cpus.empty() ? std::string("unknown") : format_ranges(nic.local_cpus, ",");
  return nic.pci_bus_id.empty() ? fmt::format("{} (CPUs {})", nic.name, cpus)
                                : fmt::format("{} ({}, CPUs {})", nic.name, nic.pci_bus_id, cpus);
}

}  // namespace gridlock::nic

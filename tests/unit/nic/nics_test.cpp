#include "gridlock/nic/nics.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"

namespace gridlock::nic {
namespace {

// One PCI function of a test node: its package, bus id and OS devices (name, hwloc osdev type:
// 2 network, 3 OpenFabrics, 0 block).
struct Device {
  unsigned package = 0;
  std::string bus;  // "41" for 0000:41:00.0
  std::vector<std::pair<std::string, int>> osdevs;
};

// An hwloc XML node of `packages` packages with `cores` single-PU cores each (PUs numbered package
// by package) and `devices` behind a host bridge of their package.
std::string node_xml(unsigned packages, unsigned cores, const std::vector<Device>& devices) {
  unsigned gp = 100;
  const auto mask = [](unsigned first, unsigned count) {
    return fmt::format("0x{:08x}", ((1U << count) - 1U) << first);
  };
  std::string xml = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" cpuset=\"{0}\" "
      "complete_cpuset=\"{0}\" allowed_cpuset=\"{0}\" nodeset=\"{1}\" complete_nodeset=\"{1}\" "
      "allowed_nodeset=\"{1}\" gp_index=\"1\">\n",
      mask(0, packages * cores), mask(0, packages));
  for (unsigned p = 0; p < packages; ++p) {
    const std::string cpus = mask(p * cores, cores);
    const std::string nodes = mask(p, 1);
    xml += fmt::format(
        "<object type=\"Package\" os_index=\"{0}\" cpuset=\"{1}\" complete_cpuset=\"{1}\" nodeset=\"{2}\" "
        "complete_nodeset=\"{2}\" gp_index=\"{3}\">\n<object type=\"NUMANode\" os_index=\"{0}\" "
        "cpuset=\"{1}\" "
        "complete_cpuset=\"{1}\" nodeset=\"{2}\" complete_nodeset=\"{2}\" gp_index=\"{4}\" "
        "local_memory=\"1073741824\"/>\n",
        p, cpus, nodes, gp, gp + 1);
    gp += 2;
    for (unsigned c = 0; c < cores; ++c) {
      const unsigned pu = p * cores + c;
      xml += fmt::format(
          "<object type=\"Core\" os_index=\"{0}\" cpuset=\"{1}\" complete_cpuset=\"{1}\" nodeset=\"{2}\" "
          "complete_nodeset=\"{2}\" gp_index=\"{3}\"><object type=\"PU\" os_index=\"{0}\" cpuset=\"{1}\" "
          "complete_cpuset=\"{1}\" nodeset=\"{2}\" complete_nodeset=\"{2}\" gp_index=\"{4}\"/></object>\n",
          pu, mask(pu, 1), nodes, gp, gp + 1);
      gp += 2;
    }
    std::string io;
    for (const Device& d : devices) {
      if (d.package != p) {
        continue;
      }
      io += fmt::format(
          "<object type=\"PCIDev\" gp_index=\"{}\" pci_busid=\"0000:{}:00.0\" pci_type=\"0200 [15b3:101b] "
          "[15b3:0007] 00\" pci_link_speed=\"0.000000\">\n",
          gp++, d.bus);
      for (const auto& [name, type] : d.osdevs) {
        io += fmt::format("<object type=\"OSDev\" gp_index=\"{}\" name=\"{}\" osdev_type=\"{}\"/>\n", gp++,
                          name, type);
      }
      io += "</object>\n";
    }
    if (!io.empty()) {
      xml += fmt::format(
          "<object type=\"Bridge\" gp_index=\"{}\" bridge_type=\"0-1\" depth=\"0\" "
          "bridge_pci=\"0000:[{:02x}-{:02x}]\">\n{}</object>\n",
          gp++, p, p, io);
    }
    xml += "</object>\n";
  }
  xml += "</object>\n</topology>\n";
  return xml;
}

// A dual-socket node with an HCA per socket, an Ethernet port and a disk: the HCAs are the NICs
// (one per PCI function: mlx5_0 and its ib0 are one port), each local to its socket.
TEST(Nics, RdmaDevicesPerSocketAreTheNics) {
  const std::string xml = node_xml(2, 4,
                                   {{0, "41", {{"mlx5_0", 3}, {"ib0", 2}}},
                                    {0, "42", {{"eth0", 2}, {"sda", 0}}},
                                    {1, "c1", {{"mlx5_1", 3}}}});
  const std::vector<Nic> nics = nics_from_xml(xml, "node.xml");
  ASSERT_EQ(nics.size(), 2U);
  EXPECT_EQ(nics[0].name, "mlx5_0");
  EXPECT_EQ(nics[0].kind, NicKind::kOpenFabrics);
  EXPECT_EQ(nics[0].pci_bus_id, "0000:41:00.0");
  EXPECT_EQ(nics[0].local_cpus, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(nics[1].name, "mlx5_1");
  EXPECT_EQ(nics[1].local_cpus, (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_EQ(describe(nics[1]), "mlx5_1 (0000:c1:00.0, CPUs 4-7)");
  // A rank bound to a core of socket 1 uses mlx5_1; one bound to both sockets' cores, or not
  // bound at all, is as near to both.
  EXPECT_EQ(nearest_nics(nics, {5}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(nearest_nics(nics, {0, 1}), (std::vector<std::size_t>{0}));
  EXPECT_EQ(nearest_nics(nics, {3, 4}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(nearest_nics(nics, {0, 1, 2, 3, 4, 5, 6, 7}), (std::vector<std::size_t>{0, 1}));
  // A CPU no NIC is local to: every NIC is as near.
  EXPECT_EQ(nearest_nics(nics, {42}), (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(nearest_nics({}, {0}).empty());
}

// Without an RDMA device (Slingshot's hsn interfaces, plain Ethernet clusters) the network
// interfaces on PCI functions are the NICs; a node may have several on one socket.
TEST(Nics, NetworkInterfacesWhenThereIsNoRdmaDevice) {
  const std::string xml = node_xml(
      2, 2, {{0, "21", {{"hsn0", 2}}}, {0, "22", {{"hsn1", 2}}}, {1, "a1", {{"hsn2", 2}, {"nvme0n1", 0}}}});
  const std::vector<Nic> nics = nics_from_xml(xml, "node.xml");
  ASSERT_EQ(nics.size(), 3U);
  EXPECT_EQ(nics[0].kind, NicKind::kNetwork);
  EXPECT_EQ(nics[2].name, "hsn2");
  EXPECT_EQ(nearest_nics(nics, {1}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(nearest_nics(nics, {2, 3}), (std::vector<std::size_t>{2}));
  EXPECT_EQ(describe(nics[0]), "hsn0 (0000:21:00.0, CPUs 0-1)");
  Nic virtual_nic;
  virtual_nic.name = "vnic0";
  virtual_nic.local_cpus = {0, 1, 2, 5};
  EXPECT_EQ(describe(virtual_nic), "vnic0 (CPUs 0-2,5)");
}

TEST(Nics, ANodeWithoutNicsAndUnreadableXml) {
  EXPECT_TRUE(nics_from_xml(node_xml(1, 2, {{0, "01", {{"sda", 0}}}}), "node.xml").empty());
  try {
    (void)nics_from_xml("<topology", "bad.xml");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.xml: not a node topology hwloc can read"), std::string::npos)
        << e.what();
  }
}

// The machine the test runs on: whatever it has, the answers are consistent with each other.
TEST(Nics, ThisMachine) {
  const std::vector<unsigned> cpus = bound_cpus();
  EXPECT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  const std::vector<Nic> nics = machine_nics();
  const std::vector<std::size_t> near = nearest_nics(nics, cpus);
  EXPECT_EQ(near.empty(), nics.empty());
  for (const std::size_t i : near) {
    EXPECT_LT(i, nics.size());
  }
}

}  // namespace
}  // namespace gridlock::nic

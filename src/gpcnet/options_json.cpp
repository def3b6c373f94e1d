#include "gridlock/gpcnet/options_json.hpp"

#include "gridlock/gpcnet/suite.hpp"

namespace gridlock::gpcnet {
namespace {

Json loop_to_json(const LoopCounts& loop) {
  Json j;
  j["measurements"] = loop.measurements;
  j["rings"] = loop.rings;
  j["iterations"] = loop.iterations;
  j["warmup"] = loop.warmup;
  return j;
}

}  // namespace

Json options_to_json(const Options& o) {
  Json j;
  j["mode"] = mode_key(o.mode);
  j["quick"] = o.quick;
  j["virtual_nodes"] = o.virtual_nodes;
  j["ranks_per_node_option"] = o.ranks_per_node;
  j["nics_per_node_option"] = o.nics_per_node;
  j["virtual_nics"] = o.virtual_nics;
  j["allow_uneven"] = o.allow_uneven;
  j["canary_fraction"] = o.canary_fraction;
  Json congestors = Json::array();
  for (const auto type : o.congestors) {
    congestors.push_back(congestor_key(type));
  }
  j["congestors"] = congestors;
  j["each_congestor"] = o.each_congestor;
  // Only in split launches, so that the options of every other run stay as they were.
  if (o.role != SplitRole::kBoth) {
    j["role"] = split_role_key(o.role);
    j["rendezvous"] = o.rendezvous_dir;
    j["rendezvous_timeout_s"] = o.rendezvous_timeout_s;
  }
  j["latency"] = loop_to_json(o.latency);
  j["bandwidth"] = loop_to_json(o.bandwidth);
  j["allreduce"] = loop_to_json(o.allreduce);
  j["alltoall"] = loop_to_json(o.alltoall);
  j["latency_bytes"] = o.latency_bytes;
  j["bandwidth_bytes"] = o.bandwidth_bytes;
  j["bandwidth_outstanding"] = o.bandwidth_outstanding;
  j["allreduce_bytes"] = o.allreduce_bytes;
  j["alltoall_bytes"] = o.alltoall_bytes;
  j["recv_buffers"] = recv_buffers_key(o.recv_buffers);
  j["idle_wait"] = idle_wait_key(o.idle_wait);
  j["average"] = average_key(o.average);
  j["congestor_bytes"] = o.congestor_bytes;
  j["allreduce_congestor_bytes"] = o.allreduce_congestor_bytes;
  j["congestor_warmup"] = o.congestor_warmup;
  j["congestor_check"] = o.congestor_check;
  j["test_timeout_s"] = o.test_timeout_s;
  j["deadline_s"] = o.deadline_s;
  j["json"] = o.json_path;
  j["csv_dir"] = o.csv_dir;
  return j;
}

}  // namespace gridlock::gpcnet

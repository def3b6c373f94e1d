#include "gridlock/gpcnet/options_json.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
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

[[noreturn]] void bad_value(std::string_view key, const Json& value, std::string_view accepted) {
  throw InputError(
      fmt::format("gridlock-bench parameters: \"{}\" is {}; give {}", key, value.dump(), accepted));
}

// Reads parameters[key] into `out` when present.
void read_uint(const Json& parameters, std::string_view key, std::uint64_t& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  if (!it->is_number_unsigned()) {
    bad_value(key, *it, "a non-negative integer");
  }
  out = it->get<std::uint64_t>();
}

void read_double(const Json& parameters, std::string_view key, double& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  if (!it->is_number()) {
    bad_value(key, *it, "a number");
  }
  out = it->get<double>();
}

void read_bool(const Json& parameters, std::string_view key, bool& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  if (!it->is_boolean()) {
    bad_value(key, *it, "true or false");
  }
  out = it->get<bool>();
}

void read_string(const Json& parameters, std::string_view key, std::string& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  if (!it->is_string()) {
    bad_value(key, *it, "a string");
  }
  out = it->get<std::string>();
}

void read_loop(const Json& parameters, std::string_view key, LoopCounts& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  if (!it->is_object()) {
    bad_value(key, *it, "an object of measurements, rings, iterations and warmup");
  }
  const std::string prefix(key);
  for (auto [name, field] : {std::pair{"measurements", &out.measurements}, std::pair{"rings", &out.rings},
                             std::pair{"iterations", &out.iterations}, std::pair{"warmup", &out.warmup}}) {
    const auto f = it->find(name);
    if (f == it->end()) {
      continue;
    }
    if (!f->is_number_unsigned()) {
      bad_value(prefix + "." + name, *f, "a non-negative integer");
    }
    *field = f->get<std::uint64_t>();
  }
}

// Reads a key that names one of `choices` (name, value pairs) into `out`.
template <typename Enum, std::size_t N>
void read_choice(const Json& parameters, std::string_view key,
                 const std::array<std::pair<std::string_view, Enum>, N>& choices, Enum& out) {
  const auto it = parameters.find(std::string(key));
  if (it == parameters.end()) {
    return;
  }
  std::string names;
  for (const auto& choice : choices) {
    names += names.empty() ? "" : ", ";
    names += choice.first;
    if (it->is_string() && it->get<std::string>() == choice.first) {
      out = choice.second;
      return;
    }
  }
  bad_value(key, *it, "one of " + names);
}

std::vector<CongestorType> read_congestors(const Json& value) {
  std::string names;
  for (const auto& test : congestor_tests()) {
    names += names.empty() ? "" : ", ";
    names += test.key;
  }
  if (!value.is_array()) {
    bad_value("congestors", value, "a list of congestor names (" + names + ")");
  }
  std::vector<CongestorType> types;
  for (const auto& item : value) {
    const auto tests = congestor_tests();
    const auto found = std::find_if(tests.begin(), tests.end(), [&](const CongestorTest& t) {
      return item.is_string() && item.get<std::string>() == t.key;
    });
    if (found == tests.end()) {
      bad_value("congestors", item, "one of " + names);
    }
    types.push_back(found->type);
  }
  return types;
}

}  // namespace

Json options_to_json(const Options& o) {
  Json j;
  j["mode"] = o.mode == Mode::kLoad ? "load" : "network";
  j["quick"] = o.quick;
  j["virtual_nodes"] = o.virtual_nodes;
  j["ranks_per_node_option"] = o.ranks_per_node;
  j["canary_fraction"] = o.canary_fraction;
  Json congestors = Json::array();
  for (const auto type : o.congestors) {
    congestors.push_back(congestor_key(type));
  }
  j["congestors"] = congestors;
  j["each_congestor"] = o.each_congestor;
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

Options options_from_json(const Json& parameters) {
  if (!parameters.is_object()) {
    throw InputError(fmt::format("gridlock-bench parameters: expected an object, got {}", parameters.dump()));
  }
  Options o;
  read_choice(parameters, "mode",
              std::array{std::pair{std::string_view("load"), Mode::kLoad},
                         std::pair{std::string_view("network"), Mode::kNetwork}},
              o.mode);
  read_bool(parameters, "quick", o.quick);
  read_uint(parameters, "virtual_nodes", o.virtual_nodes);
  read_uint(parameters, "ranks_per_node_option", o.ranks_per_node);
  read_double(parameters, "canary_fraction", o.canary_fraction);
  if (const auto it = parameters.find("congestors"); it != parameters.end()) {
    o.congestors = read_congestors(*it);
  }
  read_bool(parameters, "each_congestor", o.each_congestor);
  read_loop(parameters, "latency", o.latency);
  read_loop(parameters, "bandwidth", o.bandwidth);
  read_loop(parameters, "allreduce", o.allreduce);
  read_loop(parameters, "alltoall", o.alltoall);
  read_uint(parameters, "latency_bytes", o.latency_bytes);
  read_uint(parameters, "bandwidth_bytes", o.bandwidth_bytes);
  read_uint(parameters, "bandwidth_outstanding", o.bandwidth_outstanding);
  read_uint(parameters, "allreduce_bytes", o.allreduce_bytes);
  read_uint(parameters, "alltoall_bytes", o.alltoall_bytes);
  read_choice(parameters, "recv_buffers",
              std::array{std::pair{recv_buffers_key(RecvBuffers::kShared), RecvBuffers::kShared},
                         std::pair{recv_buffers_key(RecvBuffers::kSeparate), RecvBuffers::kSeparate}},
              o.recv_buffers);
  read_choice(parameters, "idle_wait",
              std::array{std::pair{idle_wait_key(IdleWait::kBarrier), IdleWait::kBarrier},
                         std::pair{idle_wait_key(IdleWait::kSleep), IdleWait::kSleep},
                         std::pair{idle_wait_key(IdleWait::kPoll), IdleWait::kPoll}},
              o.idle_wait);
  read_choice(parameters, "average",
              std::array{std::pair{average_key(Average::kBlocks), Average::kBlocks},
                         std::pair{average_key(Average::kSamples), Average::kSamples}},
              o.average);
  read_uint(parameters, "congestor_bytes", o.congestor_bytes);
  read_uint(parameters, "allreduce_congestor_bytes", o.allreduce_congestor_bytes);
  read_uint(parameters, "congestor_warmup", o.congestor_warmup);
  read_uint(parameters, "congestor_check", o.congestor_check);
  read_double(parameters, "test_timeout_s", o.test_timeout_s);
  read_double(parameters, "deadline_s", o.deadline_s);
  read_string(parameters, "json", o.json_path);
  read_string(parameters, "csv_dir", o.csv_dir);
  return o;
}

}  // namespace gridlock::gpcnet

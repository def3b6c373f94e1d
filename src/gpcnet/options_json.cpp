#include "gridlock/gpcnet/options_json.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <type_traits>
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

// Whether a JSON value holds a T, and the words for what is accepted.
template <typename T>
bool holds(const Json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value.is_boolean();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return value.is_number_unsigned();
  } else if constexpr (std::is_same_v<T, double>) {
    return value.is_number();
  } else {
    return value.is_string();
  }
}

template <typename T>
std::string_view accepted() {
  if constexpr (std::is_same_v<T, bool>) {
    return "true or false";
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return "a non-negative integer";
  } else if constexpr (std::is_same_v<T, double>) {
    return "a number";
  } else {
    return "a string";
  }
}

// Reads object[key] into `out` when present; messages call the key `shown`.
template <typename T>
void read(const Json& object, std::string_view key, T& out, std::string_view shown = {}) {
  const auto it = object.find(std::string(key));
  if (it == object.end()) {
    return;
  }
  if (!holds<T>(*it)) {
    bad_value(shown.empty() ? key : shown, *it, accepted<T>());
  }
  out = it->template get<T>();
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
    read(*it, name, *field, prefix + "." + name);
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
  read(parameters, "quick", o.quick);
  read(parameters, "virtual_nodes", o.virtual_nodes);
  read(parameters, "ranks_per_node_option", o.ranks_per_node);
  read(parameters, "canary_fraction", o.canary_fraction);
  if (const auto it = parameters.find("congestors"); it != parameters.end()) {
    o.congestors = read_congestors(*it);
  }
  read(parameters, "each_congestor", o.each_congestor);
  read_loop(parameters, "latency", o.latency);
  read_loop(parameters, "bandwidth", o.bandwidth);
  read_loop(parameters, "allreduce", o.allreduce);
  read_loop(parameters, "alltoall", o.alltoall);
  read(parameters, "latency_bytes", o.latency_bytes);
  read(parameters, "bandwidth_bytes", o.bandwidth_bytes);
  read(parameters, "bandwidth_outstanding", o.bandwidth_outstanding);
  read(parameters, "allreduce_bytes", o.allreduce_bytes);
  read(parameters, "alltoall_bytes", o.alltoall_bytes);
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
  read(parameters, "congestor_bytes", o.congestor_bytes);
  read(parameters, "allreduce_congestor_bytes", o.allreduce_congestor_bytes);
  read(parameters, "congestor_warmup", o.congestor_warmup);
  read(parameters, "congestor_check", o.congestor_check);
  read(parameters, "test_timeout_s", o.test_timeout_s);
  read(parameters, "deadline_s", o.deadline_s);
  read(parameters, "json", o.json_path);
  read(parameters, "csv_dir", o.csv_dir);
  return o;
}

}  // namespace gridlock::gpcnet

#include "gridlock/oracle/service.hpp"

#include <chrono>
#include <exception>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::oracle {
namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<NamedSource> make_sources(const topo::Topology& topology, const ServiceOptions& options) {
  const auto names =
      options.sources.empty() ? std::vector<std::string>{default_source(topology)} : options.sources;
  std::vector<NamedSource> out;
  out.reserve(names.size());
  for (const auto& name : names) {
    out.push_back(NamedSource{name, make_source(name, topology, options.source_options)});
  }
  return out;
}

}  // namespace

bool is_paper_machine(const topo::Topology& topology) {
  const auto* torus = dynamic_cast<const topo::Torus3D*>(&topology);
  if (torus == nullptr) {
    return false;
  }
  const auto& o = torus->options();
  return o.dims == std::array<int, 3>{2, 2, 8} && o.nodes_per_router == 2 && o.coords_file.empty();
}

std::string default_source(const topo::Topology& topology) {
  return is_paper_machine(topology) ? "sim:paper" : "sim:none";
}

Service::Service(const topo::Topology& topology, const ServiceOptions& options)
    : Service(topology, make_sources(topology, options), options) {}

Service::Service(const topo::Topology& topology, std::vector<NamedSource> sources, ServiceOptions options)
    : topology_(topology),
      options_(std::move(options)),
      store_(topology, options_.retention_s),
      oracle_(topology, store_) {
  std::set<std::string> seen;
  for (auto& named : sources) {
    // Two copies of one source add the same traffic twice (a link at 128% used bandwidth).
    if (!seen.insert(named.name).second) {
      throw InputError(
          fmt::format("--source '{}' is given twice: each source is read once (a second copy would count its "
                      "traffic twice); remove the duplicate",
                      printable_excerpt(named.name)));
    }
    if (!named.source) {
      throw InputError(fmt::format("source '{}' is empty", printable_excerpt(named.name)));
    }
    slots_.push_back(Slot{std::move(named), 0, 0, {}});
  }
  if (!(options_.poll_s > 0)) {
    throw InputError("the poll period must be positive, e.g. --poll 1s");
  }
  refresh_status();
}

Service::~Service() { stop(); }

void Service::poll_once(double now_s) {
  const std::lock_guard lock(poll_mutex_);
  for (auto& slot : slots_) {
    ++slot.polls;
    try {
      slot.named.source->poll(store_, now_s);
    } catch (const std::exception& e) {
      ++slot.errors;
      slot.last_error = e.what();
    } catch (...) {
      ++slot.errors;
      slot.last_error = "unknown exception";
    }
  }
  refresh_status();
  ++polls_;
}

void Service::refresh_status() {
  std::vector<SourceHealth> list;
  list.reserve(slots_.size());
  for (const auto& slot : slots_) {
    SourceHealth health;
    health.source = slot.named.name;
    health.polls = slot.polls;
    health.errors = slot.errors;
    health.ok = slot.last_error.empty();
    health.error = slot.last_error;
    try {
      health.status = slot.named.source->status();
    } catch (const std::exception& e) {
      health.ok = false;
      health.error = fmt::format("status() failed: {}", e.what());
    }
    list.push_back(std::move(health));
  }
  auto fresh = std::make_shared<const std::vector<SourceHealth>>(std::move(list));
  const std::lock_guard lock(status_mutex_);
  status_ = std::move(fresh);
}

std::vector<SourceHealth> Service::status() const {
  std::shared_ptr<const std::vector<SourceHealth>> copy;
  {
    const std::lock_guard lock(status_mutex_);
    copy = status_;
  }
  return *copy;
}

std::vector<std::string> Service::source_names() const {
  std::vector<std::string> out;
  for (const auto& slot : slots_) {
    out.push_back(slot.named.name);
  }
  return out;
}

void Service::start() {
  const std::lock_guard lock(thread_mutex_);
  if (thread_.joinable()) {
    return;
  }
  stopping_ = false;
  thread_ = std::thread([this] {
    std::unique_lock wait_lock(thread_mutex_);
    while (!stopping_) {
      if (wake_.wait_for(wait_lock, std::chrono::duration<double>(options_.poll_s),
                         [this] { return stopping_; })) {
        break;
      }
      wait_lock.unlock();
      poll_once(wall_seconds());
      wait_lock.lock();
    }
  });
}

void Service::stop() {
  std::thread thread;
  {
    const std::lock_guard lock(thread_mutex_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  wake_.notify_all();
  if (thread.joinable()) {
    thread.join();
  }
}

}  // namespace gridlock::oracle

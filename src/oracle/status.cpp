#include <stdexcept>
#include <string>
#include <type_traits>

#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/oracle/status_json.hpp"

namespace gridlock::oracle {

const StatusValue* SourceStatus::find(std::string_view name) const noexcept {
  for (const auto& [key, value] : fields) {
    if (key == name) {
      return &value;
    }
  }
  return nullptr;
}

std::uint64_t SourceStatus::count(std::string_view name) const {
  const StatusValue* value = find(name);
  if (value == nullptr || !std::holds_alternative<std::uint64_t>(*value)) {
    throw std::out_of_range("source status: no count '" + std::string(name) + "' in a " + kind + " status");
  }
  return std::get<std::uint64_t>(*value);
}

const std::string& SourceStatus::text(std::string_view name) const {
  const StatusValue* value = find(name);
  if (value == nullptr || !std::holds_alternative<std::string>(*value)) {
    throw std::out_of_range("source status: no text '" + std::string(name) + "' in a " + kind + " status");
  }
  return std::get<std::string>(*value);
}

Json to_json(const StatusValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

Json to_json(const SourceStatus& status) {
  Json out{{"kind", status.kind}};
  for (const auto& [key, value] : status.fields) {
    out[key] = to_json(value);
  }
  return out;
}

Json to_json(const SourceHealth& health) {
  Json out{{"source", health.source}, {"polls", health.polls}, {"errors", health.errors}};
  out["ok"] = health.ok;
  if (!health.error.empty()) {
    out["error"] = health.error;
  }
  if (health.status.has_value()) {
    out["status"] = to_json(*health.status);
  }
  return out;
}

Json to_json(const std::vector<SourceHealth>& health) {
  Json out = Json::array();
  for (const SourceHealth& h : health) {
    out.push_back(to_json(h));
  }
  return out;
}

}  // namespace gridlock::oracle

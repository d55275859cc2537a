// Reads result files back into the result model (schema_version 3; 2 without samples, and 1 with
// prose findings).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "device_fields.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void malformed(const std::string& origin, const std::string& what) {
  throw UsageError(fmt::format("{}: not a gpuprobe result file: {}", printable(origin), what));
}

// The text between the first pair of `open` and `close` after `from` in `message` ("" if none).
std::string between(const std::string& message, const std::string& from, char open, char close) {
  const auto start = message.find(from);
  if (start == std::string::npos) return {};
  const auto a = message.find(open, start + from.size());
  const auto b = a == std::string::npos ? a : message.find(close, a + 1);
  return b == std::string::npos ? std::string() : message.substr(a + 1, b - a - 1);
}

// What a library error met while reading the parsed file means, in gpuprobe's words.
std::string shape_problem(const nlohmann::json::exception& e) {
  const std::string m = e.what();
  if (e.id == 403) return fmt::format("the field '{}' is missing", between(m, "key", '\'', '\''));
  if (e.id == 302) {
    const auto types = m.find("type must be ");
    if (types != std::string::npos) {
      const auto but = m.find(", but is ", types);
      if (but != std::string::npos)
        return fmt::format("a {} where a {} belongs", m.substr(but + 9),
                           m.substr(types + 13, but - types - 13));
    }
  }
  if (e.id == 306 || e.id == 304) return "a value where an object with fields belongs";
  return "a field of an unexpected type or shape";
}

// The integer at obj[key] (fallback when absent or null), refused when it is not an integer
// or does not fit T: a converting read of 1e300 into an int would be undefined.
template <typename T>
T integer_or(const ojson& obj, const char* key, T fallback, const std::string& origin) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return fallback;
  const ojson& v = obj[key];
  if (!v.is_number_integer()) malformed(origin, fmt::format("'{}' is not an integer", key));
  const bool fits = v.is_number_unsigned() ? std::in_range<T>(v.get<std::uint64_t>())
                                           : std::in_range<T>(v.get<std::int64_t>());
  if (!fits) malformed(origin, fmt::format("'{}' = {} is out of range", key, v.dump()));
  return v.is_number_unsigned() ? static_cast<T>(v.get<std::uint64_t>())
                                : static_cast<T>(v.get<std::int64_t>());
}

// A list param: an array of integers (an empty one too) or of strings.
Scalar list_from(const ojson& j, const std::string& key, const std::string& origin) {
  if (std::all_of(j.begin(), j.end(), [](const ojson& v) { return v.is_string(); }) && !j.empty())
    return j.get<TextList>();
  IntList out;
  for (const auto& v : j) {
    const bool fits =
        v.is_number_integer() &&
        (!v.is_number_unsigned() || std::in_range<std::int64_t>(v.get<std::uint64_t>()));
    if (!fits)
      malformed(origin, fmt::format("parameter '{}' is not a list of integers or of strings", key));
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

Scalar scalar_from(const ojson& j, const std::string& key, const std::string& origin) {
  if (j.is_null()) return std::monostate{};
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_unsigned() && !std::in_range<std::int64_t>(j.get<std::uint64_t>()))
    malformed(origin, fmt::format("parameter '{}' = {} is out of range", key, j.dump()));
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) return list_from(j, key, origin);
  malformed(origin,
            fmt::format("parameter '{}' is not a string, number, boolean, list or null", key));
}

std::vector<Param> params_from(const ojson& j, const std::string& origin) {
  std::vector<Param> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out.push_back({it.key(), scalar_from(*it, it.key(), origin), ""});
  return out;
}

// A metric's samples: an array of rounds, each an array of finite numbers.
std::vector<std::vector<double>> samples_from(const ojson& j, const std::string& origin) {
  if (!j.is_array()) malformed(origin, "'samples' is not an array of rounds");
  std::vector<std::vector<double>> out;
  for (const auto& round : j) {
    if (!round.is_array()) malformed(origin, "a round of 'samples' is not an array");
    auto& values = out.emplace_back();
    for (const auto& v : round) {
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        malformed(origin, fmt::format("sample {} is not a finite number", v.dump()));
      values.push_back(v.get<double>());
    }
  }
  return out;
}

std::vector<Quantity> quantities_from(const ojson& j) {
  std::vector<Quantity> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    Quantity q{it.key(), it->value("unit", ""), std::nullopt};
    if (it->contains("value") && (*it)["value"].is_number()) q.value = (*it)["value"].get<double>();
    out.push_back(std::move(q));
  }
  return out;
}

// Gives the params of a result's rows and summary rows the units of its "param_units" ({"bytes":
// "B"}; schema 3). Absent (schema 1 and 2): the params keep no unit.
void apply_param_units(const ojson& rj, ProbeResult& result, const std::string& origin) {
  if (!rj.contains("param_units") || rj["param_units"].is_null()) return;
  const ojson& units = rj["param_units"];
  if (!units.is_object()) malformed(origin, "'param_units' is not an object");
  for (auto it = units.begin(); it != units.end(); ++it) {
    if (!it->is_string())
      malformed(origin, fmt::format("the unit of param '{}' is not a string", it.key()));
  }
  auto apply = [&units](std::vector<Param>& params) {
    for (auto& p : params) {
      if (units.contains(p.key)) p.unit = units[p.key].get<std::string>();
    }
  };
  for (auto& row : result.rows)
    apply(row.params);
  for (auto& s : result.summary)
    apply(s.params);
}

ToolInfo tool_from(const ojson& t) {
  return {t.value("name", "gpuprobe"), t.value("version", ""), t.value("git", "")};
}

HostInfo host_from(const ojson& h, const std::string& origin) {
  HostInfo host;
  host.hostname = h.value("hostname", "");
  host.cpu = h.value("cpu", "");
  if (h.contains("driver_version") && !h["driver_version"].is_null())
    host.driver_version = integer_or(h, "driver_version", 0, origin);
  if (h.contains("runtime_version") && !h["runtime_version"].is_null())
    host.runtime_version = integer_or(h, "runtime_version", 0, origin);
  return host;
}

// Reads one field of a device: integers range-checked (integer_or), text, booleans and reals as
// nlohmann's value(); an absent field keeps the default.
struct DeviceFieldReader {
  const ojson& d;
  const std::string& origin;
  template <typename T>
  void operator()(const char* key, T& field) const {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                  std::is_same_v<T, double>)
      field = d.value(key, field);
    else
      field = integer_or(d, key, field, origin);
  }
  // Absent or null: unknown.
  void operator()(const char* key, std::optional<int>& field) const {
    if (d.contains(key) && !d[key].is_null()) field = integer_or(d, key, 0, origin);
  }
};

// "peer_links" (absent in files written before link facts: none).
std::vector<PeerLinkInfo> peer_links_from(const ojson& d, const std::string& origin) {
  std::vector<PeerLinkInfo> out;
  if (!d.contains("peer_links") || d["peer_links"].is_null()) return out;
  const ojson& links = d["peer_links"];
  if (!links.is_array()) malformed(origin, "a device's 'peer_links' is not an array");
  for (const auto& l : links) {
    if (!l.is_object()) malformed(origin, "an entry of a device's 'peer_links' is not an object");
    PeerLinkInfo link;
    for_each_peer_link_field(link, DeviceFieldReader{l, origin});
    out.push_back(std::move(link));
  }
  return out;
}

DeviceInfo device_from(const ojson& d, const std::string& origin) {
  DeviceInfo info;
  for_each_device_field(info, DeviceFieldReader{d, origin});
  info.peer_links = peer_links_from(d, origin);
  return info;
}

std::vector<DeviceInfo> devices_from(const ojson& j, const std::string& origin) {
  std::vector<DeviceInfo> out;
  for (const auto& d : j)
    out.push_back(device_from(d, origin));
  return out;
}

Status status_from(const std::string& s, const std::string& origin) {
  for (Status st : {Status::kOk, Status::kFailed, Status::kSkipped, Status::kPlanned}) {
    if (s == status_name(st)) return st;
  }
  malformed(origin, fmt::format("unknown status '{}'", s));
}

Row row_from(const ojson& row_j, const std::string& origin) {
  Row row;
  row.params = params_from(row_j.at("params"), origin);
  const auto& metrics = row_j.value("metrics", ojson::object());
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    Metric m{it.key(), it->value("unit", ""), {}, {}};
    m.stats.median = it->at("median").get<double>();
    m.stats.min = it->value("min", m.stats.median);
    m.stats.max = it->value("max", m.stats.median);
    m.stats.mean = it->value("mean", m.stats.median);
    m.stats.stdev = it->value("stdev", 0.0);
    m.stats.rel_noise = it->value("rel_noise", 0.0);
    m.stats.n = integer_or(*it, "n", std::size_t{0}, origin);
    if (it->contains("samples")) m.samples = samples_from(it->at("samples"), origin);
    row.metrics.push_back(std::move(m));
  }
  if (row_j.contains("derived")) row.derived = quantities_from(row_j["derived"]);
  if (row_j.contains("model")) row.model = quantities_from(row_j["model"]);
  if (row_j.contains("counters") && row_j["counters"].is_object())
    row.counters = quantities_from(row_j["counters"]);
  row.flags = row_j.value("flags", std::vector<std::string>{});
  return row;
}

// The GPUs a host-scoped result spans ("devices": [0, 1]); absent (older files, device-scoped
// results): none.
std::vector<int> spanned_devices(const ojson& rj, const std::string& origin) {
  std::vector<int> out;
  if (!rj.contains("devices") || rj["devices"].is_null()) return out;
  if (!rj["devices"].is_array()) malformed(origin, "a result's 'devices' is not a list");
  for (const auto& d : rj["devices"]) {
    ojson one{{"devices", d}};
    out.push_back(integer_or(one, "devices", 0, origin));
  }
  return out;
}

ProbeResult result_from(const ojson& rj, int version, const std::string& origin) {
  ProbeResult pr;
  pr.probe = rj.at("probe").get<std::string>();
  if (rj.contains("device") && !rj["device"].is_null())
    pr.device = integer_or(rj, "device", 0, origin);
  pr.devices = spanned_devices(rj, origin);
  pr.subject = rj.value("subject", "");
  pr.status = status_from(rj.value("status", "ok"), origin);
  if (rj.contains("reason") && rj["reason"].is_string())
    pr.reason = rj["reason"].get<std::string>();
  pr.method = rj.value("method", "");
  if (rj.contains("params")) pr.params = params_from(rj["params"], origin);
  if (rj.contains("conditions")) pr.conditions = quantities_from(rj["conditions"]);
  for (const auto& row_j : rj.value("rows", ojson::array()))
    pr.rows.push_back(row_from(row_j, origin));
  for (const auto& sj : rj.value("summary", ojson::array())) {
    pr.summary.push_back({params_from(sj.value("params", ojson::object()), origin),
                          quantities_from(sj.value("values", ojson::object()))});
  }
  apply_param_units(rj, pr, origin);
  if (version == 1) {
    // Schema 1 had prose only: each line becomes a finding whose text is the line.
    for (const auto& line : rj.value("verdict", std::vector<std::string>{}))
      pr.findings.push_back({"schema1_verdict", FindingKind::kVerdict, {}, {}, line, {}});
    for (const auto& line : rj.value("notes", std::vector<std::string>{}))
      pr.findings.push_back({"schema1_note", FindingKind::kNote, {}, {}, line, {}});
  } else {
    for (const auto& fj : rj.value("findings", ojson::array())) {
      Finding f;
      f.id = fj.at("id").get<std::string>();
      const auto kind = finding_kind_from_name(fj.value("kind", "note"));
      if (!kind) malformed(origin, fmt::format("finding '{}' has an unknown kind", f.id));
      f.kind = *kind;
      f.params = params_from(fj.value("params", ojson::object()), origin);
      f.values = quantities_from(fj.value("values", ojson::object()));
      f.outcome = params_from(fj.value("outcome", ojson::object()), origin);
      f.text = fj.value("text", "");
      pr.findings.push_back(std::move(f));
    }
  }
  if (rj.contains("counters") && rj["counters"].is_object()) {
    const auto& cj = rj["counters"];
    CounterStatus c;
    const auto state = counter_state_from_name(cj.value("state", ""));
    if (!state) malformed(origin, fmt::format("{}: unknown counters state", pr.probe));
    c.state = *state;
    const auto text = [&cj](const char* key) {
      return cj.contains(key) && cj[key].is_string() ? cj[key].get<std::string>() : std::string();
    };
    c.chip = text("chip");
    c.metrics = cj.value("metrics", std::vector<std::string>{});
    c.passes = integer_or(cj, "passes", std::size_t{0}, origin);
    c.reason = text("reason");
    c.hint = text("hint");
    pr.counter_status = std::move(c);
  }
  return pr;
}

}  // namespace

RunReport report_from_json(const ojson& j, const std::string& origin) {
  try {
    if (!j.is_object()) malformed(origin, "the top level is not an object");
    if (!j.contains("schema_version")) malformed(origin, "no schema_version");
    const int version = integer_or(j, "schema_version", 0, origin);
    if (version < kOldestReadableSchema || version > kSchemaVersion) {
      throw UsageError(
          fmt::format("{}: schema_version {} is not supported (this gpuprobe reads {} to {})",
                      origin, version, kOldestReadableSchema, kSchemaVersion));
    }
    RunReport r;
    r.schema_version = version;
    if (j.contains("tool")) r.tool = tool_from(j.at("tool"));
    r.command = j.value("command", std::vector<std::string>{});
    r.started_at = j.value("started_at", "");
    if (j.contains("host")) r.host = host_from(j.at("host"), origin);
    r.devices = devices_from(j.value("devices", ojson::array()), origin);
    for (const auto& sj : j.value("sides", ojson::array())) {
      ComparedSide side;
      side.label = sj.value("side", "");
      side.files = sj.value("files", std::vector<std::string>{});
      if (sj.contains("tool")) side.tool = tool_from(sj.at("tool"));
      if (sj.contains("host")) side.host = host_from(sj.at("host"), origin);
      side.started_at = sj.value("started_at", "");
      side.devices = devices_from(sj.value("devices", ojson::array()), origin);
      r.sides.push_back(std::move(side));
    }
    if (!j.contains("results") || !j.at("results").is_array())
      malformed(origin, "no results array");
    for (const auto& rj : j.at("results")) {
      try {
        r.results.push_back(result_from(rj, version, origin));
      } catch (const nlohmann::json::exception& e) {
        const std::string probe = rj.is_object() && rj.contains("probe") && rj["probe"].is_string()
                                      ? fmt::format(" ({})", rj["probe"].get<std::string>())
                                      : std::string();
        malformed(origin,
                  fmt::format("result {}{}: {}", r.results.size() + 1, probe, shape_problem(e)));
      }
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    malformed(origin, shape_problem(e));
  }
}

ojson read_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path, kMaxResultFileBytes, "a result file"), path);
}

RunReport read_report_file(const std::string& path) {
  return report_from_json(read_json_file(path), path);
}

}  // namespace gpuprobe

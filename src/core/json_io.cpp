// JSON serialisation of the result model (schema_version 2; reads 1 and 2) and atomic output files.
#include "gpuprobe/core/json_io.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

using ojson = nlohmann::ordered_json;

ojson scalar_json(const Scalar& value) {
  struct Visitor {
    ojson operator()(std::monostate) const { return nullptr; }
    ojson operator()(bool b) const { return b; }
    ojson operator()(std::int64_t i) const { return i; }
    ojson operator()(double d) const { return d; }
    ojson operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

ojson params_json(const std::vector<Param>& params) {
  ojson out = ojson::object();
  for (const auto& p : params)
    out[p.key] = scalar_json(p.value);
  return out;
}

ojson optional_number(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson quantities_json(const std::vector<Quantity>& values) {
  ojson out = ojson::object();
  for (const auto& q : values)
    out[q.name] = {{"unit", q.unit}, {"value", optional_number(q.value)}};
  return out;
}

ojson metric_json(const Metric& m) {
  const Statistics& s = m.stats;
  return {{"unit", m.unit},
          {"median", s.median},
          {"min", s.min},
          {"max", s.max},
          {"mean", s.mean},
          {"stdev", s.stdev},
          {"rel_noise", s.rel_noise},
          {"n", s.n}};
}

ojson row_json(const Row& row) {
  ojson metrics = ojson::object();
  for (const auto& m : row.metrics)
    metrics[m.name] = metric_json(m);
  ojson out = {{"params", params_json(row.params)}, {"metrics", metrics}};
  out["derived"] = quantities_json(row.derived);
  out["model"] = quantities_json(row.model);
  out["counters"] = row.counters ? quantities_json(*row.counters) : ojson(nullptr);
  out["flags"] = row.flags;
  return out;
}

ojson result_json(const ProbeResult& r) {
  ojson out;
  out["probe"] = r.probe;
  out["device"] = r.device ? ojson(*r.device) : ojson(nullptr);
  if (!r.subject.empty()) out["subject"] = r.subject;
  out["status"] = status_name(r.status);
  out["reason"] = r.reason.empty() ? ojson(nullptr) : ojson(r.reason);
  out["method"] = r.method;
  out["params"] = params_json(r.params);
  out["conditions"] = quantities_json(r.conditions);
  ojson rows = ojson::array();
  for (const auto& row : r.rows)
    rows.push_back(row_json(row));
  out["rows"] = rows;
  ojson summary = ojson::array();
  for (const auto& s : r.summary) {
    summary.push_back({{"params", params_json(s.params)}, {"values", quantities_json(s.values)}});
  }
  out["summary"] = summary;
  ojson findings = ojson::array();
  for (const auto& f : r.findings) {
    findings.push_back({{"id", f.id},
                        {"kind", finding_kind_name(f.kind)},
                        {"params", params_json(f.params)},
                        {"values", quantities_json(f.values)},
                        {"text", f.text}});
  }
  out["findings"] = findings;
  return out;
}

ojson optional_int(const std::optional<int>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson device_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"uuid", d.uuid},
          {"pci_bus_id", d.pci_bus_id},
          {"compute_capability", d.compute_capability},
          {"sm_count", d.sm_count},
          {"sm_clock_khz", d.sm_clock_khz},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"total_memory_bytes", d.total_memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"persisting_l2_max_bytes", d.persisting_l2_max_bytes},
          {"access_policy_max_window_bytes", d.access_policy_max_window_bytes},
          {"shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes},
          {"shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes},
          {"async_engine_count", d.async_engine_count},
          {"can_map_host_memory", d.can_map_host_memory},
          {"integrated", d.integrated},
          {"ecc_enabled", d.ecc_enabled},
          {"pcie_link_gts", d.pcie_link_gts},
          {"pcie_link_width", d.pcie_link_width},
          {"peak_dram_estimate_gbps", d.peak_dram_estimate_gbps}};
}

// ---- reading back ------------------------------------------------------------------------

[[noreturn]] void malformed(const std::string& origin, const std::string& what) {
  throw UsageError(fmt::format("{}: not a gpuprobe result file: {}", origin, what));
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

Scalar scalar_from(const ojson& j, const std::string& key, const std::string& origin) {
  if (j.is_null()) return std::monostate{};
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_unsigned() && !std::in_range<std::int64_t>(j.get<std::uint64_t>()))
    malformed(origin, fmt::format("parameter '{}' = {} is out of range", key, j.dump()));
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  malformed(origin, fmt::format("parameter '{}' is not a string, number, boolean or null", key));
}

std::vector<Param> params_from(const ojson& j, const std::string& origin) {
  std::vector<Param> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out.push_back({it.key(), scalar_from(*it, it.key(), origin), ""});
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

Status status_from(const std::string& s, const std::string& origin) {
  for (Status st : {Status::kOk, Status::kFailed, Status::kSkipped, Status::kPlanned}) {
    if (s == status_name(st)) return st;
  }
  malformed(origin, fmt::format("unknown status '{}'", s));
}

}  // namespace

ojson to_json(const RunReport& report) {
  ojson out;
  out["schema_version"] = kSchemaVersion;  // what this build writes, whatever it read
  out["tool"] = {
      {"name", report.tool.name}, {"version", report.tool.version}, {"git", report.tool.git}};
  out["command"] = report.command;
  out["started_at"] = report.started_at;
  out["host"] = {{"hostname", report.host.hostname},
                 {"cpu", report.host.cpu},
                 {"driver_version", optional_int(report.host.driver_version)},
                 {"runtime_version", optional_int(report.host.runtime_version)}};
  ojson devices = ojson::array();
  for (const auto& d : report.devices)
    devices.push_back(device_json(d));
  out["devices"] = devices;
  ojson results = ojson::array();
  for (const auto& r : report.results)
    results.push_back(result_json(r));
  out["results"] = results;
  return out;
}

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
    if (j.contains("tool")) {
      const auto& t = j.at("tool");
      r.tool = {t.value("name", "gpuprobe"), t.value("version", ""), t.value("git", "")};
    }
    r.command = j.value("command", std::vector<std::string>{});
    r.started_at = j.value("started_at", "");
    if (j.contains("host")) {
      const auto& h = j.at("host");
      r.host.hostname = h.value("hostname", "");
      r.host.cpu = h.value("cpu", "");
      if (h.contains("driver_version") && !h["driver_version"].is_null())
        r.host.driver_version = integer_or(h, "driver_version", 0, origin);
      if (h.contains("runtime_version") && !h["runtime_version"].is_null())
        r.host.runtime_version = integer_or(h, "runtime_version", 0, origin);
    }
    for (const auto& d : j.value("devices", ojson::array())) {
      DeviceInfo info;
      info.index = integer_or(d, "index", 0, origin);
      info.name = d.value("name", "");
      info.uuid = d.value("uuid", "");
      info.pci_bus_id = d.value("pci_bus_id", "");
      info.compute_capability = d.value("compute_capability", "");
      info.sm_count = integer_or(d, "sm_count", 0, origin);
      info.sm_clock_khz = integer_or(d, "sm_clock_khz", std::int64_t{0}, origin);
      info.memory_clock_khz = integer_or(d, "memory_clock_khz", std::int64_t{0}, origin);
      info.memory_bus_width_bits = integer_or(d, "memory_bus_width_bits", 0, origin);
      info.total_memory_bytes = integer_or(d, "total_memory_bytes", std::uint64_t{0}, origin);
      info.l2_bytes = integer_or(d, "l2_bytes", std::uint64_t{0}, origin);
      info.persisting_l2_max_bytes =
          integer_or(d, "persisting_l2_max_bytes", std::uint64_t{0}, origin);
      info.access_policy_max_window_bytes =
          integer_or(d, "access_policy_max_window_bytes", std::uint64_t{0}, origin);
      info.shared_memory_per_sm_bytes =
          integer_or(d, "shared_memory_per_sm_bytes", std::uint64_t{0}, origin);
      info.shared_memory_per_block_optin_bytes =
          integer_or(d, "shared_memory_per_block_optin_bytes", std::uint64_t{0}, origin);
      info.async_engine_count = integer_or(d, "async_engine_count", 0, origin);
      info.can_map_host_memory = d.value("can_map_host_memory", false);
      info.integrated = d.value("integrated", false);
      info.ecc_enabled = d.value("ecc_enabled", false);
      info.pcie_link_gts = d.value("pcie_link_gts", 0.0);
      info.pcie_link_width = integer_or(d, "pcie_link_width", 0, origin);
      info.peak_dram_estimate_gbps = d.value("peak_dram_estimate_gbps", 0.0);
      r.devices.push_back(std::move(info));
    }
    if (!j.contains("results") || !j.at("results").is_array())
      malformed(origin, "no results array");
    for (const auto& rj : j.at("results")) {
      ProbeResult pr;
      pr.probe = rj.at("probe").get<std::string>();
      if (rj.contains("device") && !rj["device"].is_null())
        pr.device = integer_or(rj, "device", 0, origin);
      pr.subject = rj.value("subject", "");
      pr.status = status_from(rj.value("status", "ok"), origin);
      if (rj.contains("reason") && rj["reason"].is_string())
        pr.reason = rj["reason"].get<std::string>();
      pr.method = rj.value("method", "");
      if (rj.contains("params")) pr.params = params_from(rj["params"], origin);
      if (rj.contains("conditions")) pr.conditions = quantities_from(rj["conditions"]);
      for (const auto& row_j : rj.value("rows", ojson::array())) {
        Row row;
        row.params = params_from(row_j.at("params"), origin);
        const auto& metrics = row_j.value("metrics", ojson::object());
        for (auto it = metrics.begin(); it != metrics.end(); ++it) {
          Metric m{it.key(), it->value("unit", ""), {}};
          m.stats.median = it->at("median").get<double>();
          m.stats.min = it->value("min", m.stats.median);
          m.stats.max = it->value("max", m.stats.median);
          m.stats.mean = it->value("mean", m.stats.median);
          m.stats.stdev = it->value("stdev", 0.0);
          m.stats.rel_noise = it->value("rel_noise", 0.0);
          m.stats.n = integer_or(*it, "n", std::size_t{0}, origin);
          row.metrics.push_back(std::move(m));
        }
        if (row_j.contains("derived")) row.derived = quantities_from(row_j["derived"]);
        if (row_j.contains("model")) row.model = quantities_from(row_j["model"]);
        if (row_j.contains("counters") && row_j["counters"].is_object())
          row.counters = quantities_from(row_j["counters"]);
        row.flags = row_j.value("flags", std::vector<std::string>{});
        pr.rows.push_back(std::move(row));
      }
      for (const auto& sj : rj.value("summary", ojson::array())) {
        pr.summary.push_back({params_from(sj.value("params", ojson::object()), origin),
                              quantities_from(sj.value("values", ojson::object()))});
      }
      if (version == 1) {
        // Schema 1 had prose only: each line becomes a finding whose text is the line.
        for (const auto& line : rj.value("verdict", std::vector<std::string>{}))
          pr.findings.push_back({"schema1_verdict", FindingKind::kVerdict, {}, {}, line});
        for (const auto& line : rj.value("notes", std::vector<std::string>{}))
          pr.findings.push_back({"schema1_note", FindingKind::kNote, {}, {}, line});
      } else {
        for (const auto& fj : rj.value("findings", ojson::array())) {
          Finding f;
          f.id = fj.at("id").get<std::string>();
          const auto kind = finding_kind_from_name(fj.value("kind", "note"));
          if (!kind) malformed(origin, fmt::format("finding '{}' has an unknown kind", f.id));
          f.kind = *kind;
          f.params = params_from(fj.value("params", ojson::object()), origin);
          f.values = quantities_from(fj.value("values", ojson::object()));
          f.text = fj.value("text", "");
          pr.findings.push_back(std::move(f));
        }
      }
      r.results.push_back(std::move(pr));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    malformed(origin, e.what());
  }
}

ojson read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(fmt::format("cannot read '{}': it is a folder, not a file", path));
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot read '{}': no such file or not readable", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return ojson::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("'{}' is not valid JSON: {}", path, e.what()));
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // follows links (/dev/stdout)
  if (std::filesystem::is_directory(status))
    throw Error(ExitCode::kRunFailure,
                fmt::format("cannot write '{}': it is a folder, not a file", path));
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // A device or pipe (/dev/stdout, a FIFO): write into it; renaming a file over it would
    // replace the device node itself.
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw Error(ExitCode::kRunFailure, fmt::format("writing '{}' failed", path));
    return;
  }
  const std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error(
          ExitCode::kRunFailure,
          fmt::format("cannot write '{}': the folder does not exist or is not writable", path));
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw Error(ExitCode::kRunFailure, fmt::format("writing '{}' failed (disk full?)", path));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error(ExitCode::kRunFailure, fmt::format("cannot replace '{}'", path));
  }
}

}  // namespace gpuprobe

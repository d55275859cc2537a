// Writes the result model as JSON (schema_version 3) and writes output files atomically.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include <fmt/format.h>

#include "device_fields.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/samples.hpp"

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
    ojson operator()(const IntList& l) const { return l; }
    ojson operator()(const TextList& l) const { return l; }
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
  ojson out = {{"unit", m.unit},
               {"median", s.median},
               {"min", s.min},
               {"max", s.max},
               {"mean", s.mean},
               {"stdev", s.stdev},
               {"rel_noise", s.rel_noise},
               {"n", s.n}};
  // Measured metrics carry their samples; those read from schema 1 and 2 files have none.
  if (!m.samples.empty()) {
    out["round_spread"] = optional_number(round_spread(m));
    out["samples"] = m.samples;
  }
  return out;
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

// The units of the params of a result's rows, then of its summary rows ({"bytes": "B"}): params
// with a unit only, the first unit seen for a name. Readers give them back to the params (tables
// print sizes as KiB/MiB).
ojson param_units_json(const ProbeResult& r) {
  ojson out = ojson::object();
  auto add = [&out](const std::vector<Param>& params) {
    for (const auto& p : params) {
      if (!p.unit.empty() && !out.contains(p.key)) out[p.key] = p.unit;
    }
  };
  for (const auto& row : r.rows)
    add(row.params);
  for (const auto& s : r.summary)
    add(s.params);
  return out;
}

ojson result_json(const ProbeResult& r) {
  ojson out;
  out["probe"] = r.probe;
  out["device"] = r.device ? ojson(*r.device) : ojson(nullptr);
  if (!r.devices.empty()) out["devices"] = r.devices;  // a host-scoped probe's GPUs
  if (!r.subject.empty()) out["subject"] = r.subject;
  out["status"] = status_name(r.status);
  out["reason"] = r.reason.empty() ? ojson(nullptr) : ojson(r.reason);
  out["method"] = r.method;
  out["params"] = params_json(r.params);
  out["conditions"] = quantities_json(r.conditions);
  out["param_units"] = param_units_json(r);
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
                        {"outcome", params_json(f.outcome)},
                        {"text", f.text}});
  }
  out["findings"] = findings;
  if (r.counter_status) {
    const CounterStatus& c = *r.counter_status;
    out["counters"] = {{"state", counter_state_name(c.state)},
                       {"chip", c.chip.empty() ? ojson(nullptr) : ojson(c.chip)},
                       {"metrics", c.metrics},
                       {"passes", c.passes},
                       {"reason", c.reason.empty() ? ojson(nullptr) : ojson(c.reason)},
                       {"hint", c.hint.empty() ? ojson(nullptr) : ojson(c.hint)}};
  } else {
    out["counters"] = nullptr;
  }
  return out;
}

ojson optional_int(const std::optional<int>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

// One field as JSON: an unknown optional is null.
struct FieldWriter {
  ojson& out;
  template <typename T>
  void operator()(const char* key, const T& value) const {
    out[key] = value;
  }
  template <typename T>
  void operator()(const char* key, const std::optional<T>& value) const {
    out[key] = value ? ojson(*value) : ojson(nullptr);
  }
};

ojson device_json(const DeviceInfo& d) {
  ojson out = ojson::object();
  for_each_device_field(d, FieldWriter{out});
  ojson links = ojson::array();
  for (const auto& link : d.peer_links) {
    ojson l = ojson::object();
    for_each_peer_link_field(link, FieldWriter{l});
    links.push_back(std::move(l));
  }
  out["peer_links"] = std::move(links);
  return out;
}

ojson tool_json(const ToolInfo& tool) {
  return {{"name", tool.name}, {"version", tool.version}, {"git", tool.git}};
}

ojson host_json(const HostInfo& host) {
  return {{"hostname", host.hostname},
          {"cpu", host.cpu},
          {"driver_version", optional_int(host.driver_version)},
          {"runtime_version", optional_int(host.runtime_version)}};
}

ojson devices_json(const std::vector<DeviceInfo>& devices) {
  ojson out = ojson::array();
  for (const auto& d : devices)
    out.push_back(device_json(d));
  return out;
}

// compare's sides: {side, files, tool, host, started_at, devices} each.
ojson sides_json(const std::vector<ComparedSide>& sides) {
  ojson out = ojson::array();
  for (const auto& s : sides) {
    out.push_back({{"side", s.label},
                   {"files", s.files},
                   {"tool", tool_json(s.tool)},
                   {"host", host_json(s.host)},
                   {"started_at", s.started_at},
                   {"devices", devices_json(s.devices)}});
  }
  return out;
}

// --expect's outcomes: {expression, origin, relation, state, reason, checks[]} each.
ojson expectations_json(const std::vector<ExpectationResult>& results) {
  ojson out = ojson::array();
  for (const auto& e : results) {
    ojson checks = ojson::array();
    for (const auto& c : e.bound_tests) {
      checks.push_back({{"probe", c.probe},
                        {"device", c.device ? ojson(*c.device) : ojson(nullptr)},
                        {"params", params_json(c.params)},
                        {"name", c.name},
                        {"unit", c.unit},
                        {"measured", c.measured},
                        {"low", optional_number(c.low)},
                        {"high", optional_number(c.high)},
                        {"bound", c.bound},
                        {"state", expect_state_name(c.state)}});
    }
    out.push_back({{"expression", e.expression},
                   {"origin", e.origin},
                   {"relation", relation_text(e.relation)},
                   {"state", expect_state_name(e.state)},
                   {"reason", e.reason},
                   {"checks", checks}});
  }
  return out;
}

}  // namespace

ojson to_json(const RunReport& report) {
  ojson out;
  out["schema_version"] = kSchemaVersion;  // what this build writes, whatever it read
  out["tool"] = tool_json(report.tool);
  out["command"] = report.command;
  out["started_at"] = report.started_at;
  out["host"] = host_json(report.host);
  out["devices"] = devices_json(report.devices);
  if (!report.sides.empty()) out["sides"] = sides_json(report.sides);
  ojson results = ojson::array();
  for (const auto& r : report.results)
    results.push_back(result_json(r));
  out["results"] = results;
  if (!report.expectations.empty()) out["expectations"] = expectations_json(report.expectations);
  return out;
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
  if (interrupt_signal() != 0) {  // stopped while writing: no file rather than a partial one
    std::remove(temp.c_str());
    throw_if_interrupted();
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error(ExitCode::kRunFailure, fmt::format("cannot replace '{}'", path));
  }
}

}  // namespace gpuprobe

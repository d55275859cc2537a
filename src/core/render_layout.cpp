// Column layout shared by the table and Markdown renderers.
#include "render_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpuprobe/core/units.hpp"

namespace gpuprobe::render_detail {
namespace {

bool unit_in_cells(const std::string& unit) {
  return unit == "B" || unit == "s";
}

std::string optional_text(const std::optional<double>& v, const std::string& unit) {
  return v ? format_value(*v, unit) : "-";
}

// A column key identifies a column across rows: kind + name.
struct ColumnKey {
  char kind;  // p = param, m = metric, d = derived, o = model, c = counter, n = noise, f = flags
  std::string name;
  bool operator==(const ColumnKey&) const = default;
};

std::vector<ColumnKey> row_signature(const Row& row) {
  std::vector<ColumnKey> keys;
  for (const auto& p : row.params)
    keys.push_back({'p', p.key});
  for (const auto& m : row.metrics)
    keys.push_back({'m', m.name});
  if (!row.metrics.empty()) keys.push_back({'n', "noise"});
  for (const auto& q : row.derived)
    keys.push_back({'d', q.name});
  for (const auto& q : row.model)
    keys.push_back({'o', q.name});
  if (row.counters) {
    for (const auto& q : *row.counters)
      keys.push_back({'c', q.name});
  }
  return keys;
}

std::string noise_text(const Row& row) {
  double worst = 0;
  for (const auto& m : row.metrics)
    worst = std::max(worst, m.stats.rel_noise);
  return fmt::format("{:.1f}%", worst * 100.0);
}

Section build_section(const std::vector<const Row*>& rows) {
  const auto keys = row_signature(*rows.front());
  const bool any_flags =
      std::any_of(rows.begin(), rows.end(), [](const Row* r) { return !r->flags.empty(); });
  Section section;
  const Row& first = *rows.front();
  for (const auto& key : keys) {
    Column col;
    switch (key.kind) {
      case 'p': {
        col.header = key.name;
        const Param* p = find_param(first.params, key.name);
        col.numeric = p && !std::holds_alternative<std::string>(p->value);
        for (const Row* r : rows)
          col.cells.push_back(param_text(*find_param(r->params, key.name)));
        break;
      }
      case 'm': {
        const Metric* m = find_metric(first, key.name);
        col.header = quantity_header("", key.name, m->unit);
        for (const Row* r : rows) {
          const Metric* rm = find_metric(*r, key.name);
          col.cells.push_back(format_value(rm->stats.median, rm->unit));
        }
        break;
      }
      case 'n':
        col.header = "noise";
        for (const Row* r : rows)
          col.cells.push_back(noise_text(*r));
        break;
      case 'd':
      case 'o':
      case 'c': {
        auto pick = [&](const Row& r) -> const std::vector<Quantity>& {
          return key.kind == 'd' ? r.derived : key.kind == 'o' ? r.model : *r.counters;
        };
        const Quantity* q = find_quantity(pick(first), key.name);
        const char* prefix = key.kind == 'o' ? "model " : key.kind == 'c' ? "counter " : "";
        col.header = quantity_header(prefix, key.name, q->unit);
        for (const Row* r : rows) {
          const Quantity* rq = find_quantity(pick(*r), key.name);
          col.cells.push_back(optional_text(rq->value, rq->unit));
        }
        break;
      }
      default:
        break;
    }
    section.columns.push_back(std::move(col));
  }
  if (any_flags) {
    Column col{"flags", false, {}};
    for (const Row* r : rows)
      col.cells.push_back(fmt::format("{}", fmt::join(r->flags, ",")));
    section.columns.push_back(std::move(col));
  }
  return section;
}

}  // namespace

std::string format_value(double value, const std::string& unit) {
  if (unit == "B") return format_bytes(value);
  if (unit == "s") return format_seconds(value);
  return format_number(value);
}

std::string quantity_text(const Quantity& q) {
  if (!q.value) return "-";
  const std::string value = format_value(*q.value, q.unit);
  return q.unit.empty() || unit_in_cells(q.unit) ? value : fmt::format("{} {}", value, q.unit);
}

std::string quantity_header(const std::string& prefix, const std::string& name,
                            const std::string& unit) {
  if (unit.empty() || unit_in_cells(unit)) return prefix + name;
  return fmt::format("{}{} [{}]", prefix, name, unit);
}

std::string param_text(const Param& param) {
  if (param.unit == "B") {
    if (const auto* i = std::get_if<std::int64_t>(&param.value))
      return format_bytes(static_cast<double>(*i));
  }
  return scalar_text(param.value);
}

std::vector<Section> layout_rows(const std::vector<Row>& rows) {
  std::vector<Section> sections;
  std::vector<const Row*> group;
  for (const auto& row : rows) {
    if (!group.empty() && row_signature(row) != row_signature(*group.front())) {
      sections.push_back(build_section(group));
      group.clear();
    }
    group.push_back(&row);
  }
  if (!group.empty()) sections.push_back(build_section(group));
  return sections;
}

Section layout_summary(const std::vector<SummaryRow>& rows) {
  Section section;
  if (rows.empty()) return section;
  // Union of keys in order of first appearance, blanks where a row lacks one.
  std::vector<std::string> param_keys;
  std::vector<std::pair<std::string, std::string>> value_keys;  // name, unit
  for (const auto& r : rows) {
    for (const auto& p : r.params) {
      if (std::find(param_keys.begin(), param_keys.end(), p.key) == param_keys.end())
        param_keys.push_back(p.key);
    }
    for (const auto& q : r.values) {
      auto same = [&](const auto& k) { return k.first == q.name; };
      if (std::none_of(value_keys.begin(), value_keys.end(), same))
        value_keys.push_back({q.name, q.unit});
    }
  }
  for (const auto& key : param_keys) {
    Column col{key, false, {}};
    for (const auto& r : rows) {
      const Param* p = find_param(r.params, key);
      col.cells.push_back(p ? param_text(*p) : "");
    }
    section.columns.push_back(std::move(col));
  }
  for (const auto& [name, unit] : value_keys) {
    Column col{quantity_header("", name, unit), true, {}};
    for (const auto& r : rows) {
      const Quantity* q = find_quantity(r.values, name);
      col.cells.push_back(q ? optional_text(q->value, q->unit) : "");
    }
    section.columns.push_back(std::move(col));
  }
  return section;
}

std::string device_label(const RunReport& report, const ProbeResult& result) {
  if (!result.subject.empty()) return result.subject;
  if (!result.device) return "plan (no GPU used)";
  for (const auto& d : report.devices) {
    if (d.index == *result.device) return fmt::format("GPU {}: {}", d.index, d.name);
  }
  return fmt::format("GPU {}", *result.device);
}

std::string device_facts(const DeviceInfo& d) {
  return fmt::format(
      "cc {} · {} SMs @ {} MHz max · {} memory, {}-bit bus, est. peak {} GB/s · L2 {} "
      "(persisting max {}) · {} copy engine(s) · PCI {}",
      d.compute_capability, d.sm_count, d.sm_clock_khz / 1000,
      format_bytes(static_cast<double>(d.total_memory_bytes)), d.memory_bus_width_bits,
      format_number(d.peak_dram_estimate_gbps), format_bytes(static_cast<double>(d.l2_bytes)),
      format_bytes(static_cast<double>(d.persisting_l2_max_bytes)), d.async_engine_count,
      d.pci_bus_id);
}

std::string host_line(const RunReport& report) {
  // A plan queries no host: leave out what is unknown rather than print empty fields.
  std::vector<std::string> parts{
      fmt::format("{} {} ({})", report.tool.name, report.tool.version, report.tool.git)};
  for (const std::string* text : {&report.host.hostname, &report.host.cpu}) {
    if (!text->empty()) parts.push_back(*text);
  }
  if (report.host.driver_version || report.host.runtime_version) {
    parts.push_back("driver " + format_cuda_version(report.host.driver_version));
    parts.push_back("runtime " + format_cuda_version(report.host.runtime_version));
  }
  if (!report.started_at.empty()) parts.push_back(report.started_at);
  return fmt::format("{}", fmt::join(parts, " · "));
}

}  // namespace gpuprobe::render_detail

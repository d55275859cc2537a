// The CSV renderer: one line per row of every result, the union of all columns as header.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "gpuprobe/core/render.hpp"

namespace gpuprobe {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  return fmt::format("{}", v);
}

// Ordered set of header names; cells are looked up by name per line.
struct Columns {
  std::vector<std::string> names;
  void add(const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
};

std::string unit_suffix(const std::string& unit) {
  return unit.empty() ? "" : "[" + unit + "]";
}

void add_quantities(std::map<std::string, std::string>& cells, Columns& cols, const char* prefix,
                    const std::vector<Quantity>& values) {
  for (const auto& q : values) {
    const std::string name = fmt::format("{}.{}{}", prefix, q.name, unit_suffix(q.unit));
    cols.add(name);
    cells[name] = q.value ? number(*q.value) : "";
  }
}

// A param's text for CSV: numbers as numbers, the rest as written.
void add_params(std::map<std::string, std::string>& cells, Columns& cols,
                const std::vector<Param>& params) {
  for (const auto& p : params) {
    cols.add(p.key);
    cells[p.key] = scalar_text(p.value);
    if (const auto* d = std::get_if<double>(&p.value)) cells[p.key] = number(*d);
  }
}

// A metric's statistics under "<name>.<stat>[unit]" and its count under "<name>.n".
void add_metric(std::map<std::string, std::string>& cells, Columns& cols, const Metric& m) {
  const std::string u = unit_suffix(m.unit);
  const std::pair<const char*, double> stats[] = {
      {"median", m.stats.median}, {"min", m.stats.min},     {"max", m.stats.max},
      {"mean", m.stats.mean},     {"stdev", m.stats.stdev}, {"rel_noise", m.stats.rel_noise}};
  for (const auto& [stat, value] : stats) {
    const std::string name =
        fmt::format("{}.{}{}", m.name, stat, stat == std::string("rel_noise") ? "" : u);
    cols.add(name);
    cells[name] = number(value);
  }
  const std::string n_name = m.name + ".n";
  cols.add(n_name);
  cells[n_name] = fmt::format("{}", m.stats.n);
}

// The cells every line of a result starts with: device, probe, status (and reason).
std::map<std::string, std::string> result_cells(const ProbeResult& result, Columns& cols) {
  std::map<std::string, std::string> cells;
  cells["device"] = result.device ? fmt::format("{}", *result.device) : "";
  cells["probe"] = result.probe;
  cells["status"] = status_name(result.status);
  if (!result.reason.empty()) {
    cols.add("reason");
    cells["reason"] = result.reason;
  }
  return cells;
}

std::map<std::string, std::string> row_cells(const ProbeResult& result, const Row& row,
                                             Columns& cols) {
  std::map<std::string, std::string> cells = result_cells(result, cols);
  add_params(cells, cols, row.params);
  for (const auto& m : row.metrics)
    add_metric(cells, cols, m);
  add_quantities(cells, cols, "derived", row.derived);
  add_quantities(cells, cols, "model", row.model);
  if (row.counters) add_quantities(cells, cols, "counter", *row.counters);
  if (!row.flags.empty()) {
    cols.add("flags");
    cells["flags"] = fmt::format("{}", fmt::join(row.flags, ";"));
  }
  return cells;
}

// A finding's line: its params in the params' columns, its values under
// "finding.<name>[unit]" (the sentence is added last, under "finding_text").
std::map<std::string, std::string> finding_cells(const ProbeResult& result, const Finding& f,
                                                 Columns& cols) {
  std::map<std::string, std::string> cells = result_cells(result, cols);
  for (const char* fixed : {"finding", "finding_kind"})
    cols.add(fixed);
  cells["finding"] = f.id;
  cells["finding_kind"] = finding_kind_name(f.kind);
  add_params(cells, cols, f.params);
  add_quantities(cells, cols, "finding", f.values);
  return cells;
}

std::string csv_text(const Columns& cols,
                     const std::vector<std::map<std::string, std::string>>& lines) {
  std::vector<std::string> header;
  for (const auto& n : cols.names)
    header.push_back(csv_field(n));
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& cells : lines) {
    std::vector<std::string> fields;
    for (const auto& n : cols.names) {
      auto it = cells.find(n);
      fields.push_back(it == cells.end() ? "" : csv_field(it->second));
    }
    out += fmt::format("{}\n", fmt::join(fields, ","));
  }
  return out;
}

}  // namespace

std::string render_csv(const RunReport& report) {
  Columns cols;
  for (const char* fixed : {"device", "probe", "status"})
    cols.add(fixed);
  std::vector<std::map<std::string, std::string>> lines, finding_lines;
  std::vector<std::string> finding_texts;
  for (const auto& result : report.results) {
    // A failed or skipped result has no rows: one line still says so, with its reason.
    if (result.rows.empty()) lines.push_back(result_cells(result, cols));
    for (const auto& row : result.rows)
      lines.push_back(row_cells(result, row, cols));
    // Findings follow the rows, one line each.
    for (const auto& f : result.findings) {
      finding_lines.push_back(finding_cells(result, f, cols));
      finding_texts.push_back(f.text);
    }
  }
  // The sentence last, so the numeric columns of the rows stay first.
  if (!finding_lines.empty()) cols.add("finding_text");
  for (std::size_t i = 0; i < finding_lines.size(); ++i) {
    finding_lines[i]["finding_text"] = finding_texts[i];
    lines.push_back(std::move(finding_lines[i]));
  }
  return csv_text(cols, lines);
}

}  // namespace gpuprobe

// Column layout shared by the table and Markdown renderers: headers, short labels, wrapping.
#include "render_layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
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
  ColumnKind kind;
  std::string name;
  bool operator==(const ColumnKey&) const = default;
};

// Raw counters are many long CUPTI names: only wide tables show them (JSON and CSV always carry
// them); compact tables show what the probe's analysis derived from them.
std::vector<ColumnKey> row_signature(const Row& row, bool with_counters) {
  std::vector<ColumnKey> keys;
  for (const auto& p : row.params)
    keys.push_back({ColumnKind::kParam, p.key});
  for (const auto& m : row.metrics)
    keys.push_back({ColumnKind::kMetric, m.name});
  if (!row.metrics.empty()) keys.push_back({ColumnKind::kNoise, "noise"});
  for (const auto& q : row.derived)
    keys.push_back({ColumnKind::kDerived, q.name});
  for (const auto& q : row.model)
    keys.push_back({ColumnKind::kModel, q.name});
  if (row.counters && with_counters) {
    for (const auto& q : *row.counters)
      keys.push_back({ColumnKind::kCounter, q.name});
  }
  return keys;
}

std::string noise_text(const Row& row) {
  double worst = 0;
  for (const auto& m : row.metrics)
    worst = std::max(worst, m.stats.rel_noise);
  return fmt::format("{:.1f}%", worst * 100.0);
}

Column make_column(const Naming& naming, ColumnKind kind, const std::string& name,
                   const std::string& unit, bool numeric) {
  Header h = column_header(naming, kind, name, unit);
  Column col;
  col.header = std::move(h.text);
  col.legend = std::move(h.legend);
  col.numeric = numeric;
  col.key = kind == ColumnKind::kParam;
  return col;
}

// The stem of a derived pair "<stem>_low", "<stem>_high" (an interval) at keys[k], keys[k + 1],
// with one unit in the first row; "" when there is none.
std::string interval_stem(const std::vector<ColumnKey>& keys, std::size_t k, const Row& first) {
  constexpr std::string_view kLow = "_low";
  if (k + 1 >= keys.size() || keys[k].kind != ColumnKind::kDerived ||
      keys[k + 1].kind != ColumnKind::kDerived || !keys[k].name.ends_with(kLow))
    return "";
  const std::string stem = keys[k].name.substr(0, keys[k].name.size() - kLow.size());
  if (keys[k + 1].name != stem + "_high") return "";
  const Quantity* lo = find_quantity(first.derived, keys[k].name);
  const Quantity* hi = find_quantity(first.derived, keys[k + 1].name);
  return lo->unit == hi->unit ? stem : "";
}

// One column for an interval: "0.8812–0.9213", "-" where either end is missing.
Column interval_column(const std::vector<const Row*>& rows, const Naming& naming,
                       const std::string& stem) {
  const std::string unit = find_quantity(rows.front()->derived, stem + "_low")->unit;
  Column col = make_column(naming, ColumnKind::kDerived, stem, unit, true);
  for (const Row* r : rows) {
    const Quantity* lo = find_quantity(r->derived, stem + "_low");
    const Quantity* hi = find_quantity(r->derived, stem + "_high");
    col.cells.push_back(
        lo->value && hi->value
            ? fmt::format("{}–{}", format_value(*lo->value, unit), format_value(*hi->value, unit))
            : "-");
  }
  return col;
}

Section build_section(const std::vector<const Row*>& rows, const Naming& naming) {
  const auto keys = row_signature(*rows.front(), naming.wide);
  const bool any_flags =
      std::any_of(rows.begin(), rows.end(), [](const Row* r) { return !r->flags.empty(); });
  Section section;
  const Row& first = *rows.front();
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const ColumnKey& key = keys[k];
    // Compact tables show an interval's two ends in one column.
    if (const std::string stem = naming.wide ? "" : interval_stem(keys, k, first); !stem.empty()) {
      section.columns.push_back(interval_column(rows, naming, stem));
      ++k;
      continue;
    }
    Column col;
    switch (key.kind) {
      case ColumnKind::kParam: {
        const Param* p = find_param(first.params, key.name);
        const bool text = std::holds_alternative<std::string>(p->value) ||
                          std::holds_alternative<IntList>(p->value) ||
                          std::holds_alternative<TextList>(p->value);
        col = make_column(naming, key.kind, key.name, p->unit, !text);
        for (const Row* r : rows)
          col.cells.push_back(param_text(*find_param(r->params, key.name)));
        break;
      }
      case ColumnKind::kMetric: {
        const Metric* m = find_metric(first, key.name);
        col = make_column(naming, key.kind, key.name, m->unit, true);
        for (const Row* r : rows) {
          const Metric* rm = find_metric(*r, key.name);
          col.cells.push_back(format_value(rm->stats.median, rm->unit));
        }
        break;
      }
      case ColumnKind::kNoise:
        col = make_column(naming, key.kind, key.name, "", true);
        for (const Row* r : rows)
          col.cells.push_back(noise_text(*r));
        break;
      case ColumnKind::kDerived:
      case ColumnKind::kModel:
      case ColumnKind::kCounter: {
        auto pick = [&](const Row& r) -> const std::vector<Quantity>& {
          return key.kind == ColumnKind::kDerived ? r.derived
                 : key.kind == ColumnKind::kModel ? r.model
                                                  : *r.counters;
        };
        const Quantity* q = find_quantity(pick(first), key.name);
        col = make_column(naming, key.kind, key.name, q->unit, true);
        for (const Row* r : rows) {
          const Quantity* rq = find_quantity(pick(*r), key.name);
          col.cells.push_back(optional_text(rq->value, rq->unit));
        }
        break;
      }
      case ColumnKind::kFlags:
      case ColumnKind::kSummary:
        break;
    }
    section.columns.push_back(std::move(col));
  }
  if (any_flags) {
    Column col = make_column(naming, ColumnKind::kFlags, "flags", "", false);
    for (const Row* r : rows)
      col.cells.push_back(fmt::format("{}", fmt::join(r->flags, ",")));
    section.columns.push_back(std::move(col));
  }
  return section;
}

// Words the generic abbreviation shortens; "per" and "over" become "/".
constexpr std::array<std::pair<std::string_view, std::string_view>, 44> kShortWords{{
    {"aligned", "align"},    {"asymptotic", "asym"},
    {"average", "avg"},      {"bandwidth", "bw"},
    {"baseline", "base"},    {"blocks", "blk"},
    {"bytes", "B"},          {"conflict", "confl"},
    {"conflicts", "confl"},  {"counter", "c"},
    {"cycles", "cyc"},       {"difference", "diff"},
    {"direction", "dir"},    {"efficiency", "eff"},
    {"element", "elem"},     {"elements", "elem"},
    {"error", "err"},        {"expected", "exp"},
    {"implied", "impl"},     {"instructions", "instr"},
    {"latency", "lat"},      {"lines", "ln"},
    {"maximum", "max"},      {"measured", "meas"},
    {"median", "med"},       {"memory", "mem"},
    {"minimum", "min"},      {"misaligned", "misal"},
    {"model", "m"},          {"number", "n"},
    {"occupancy", "occ"},    {"percent", "pct"},
    {"predicted", "pred"},   {"relative", "rel"},
    {"request", "req"},      {"requests", "req"},
    {"sector", "sect"},      {"sectors", "sect"},
    {"threads", "thr"},      {"throughput", "thru"},
    {"transfer", "xfer"},    {"utilization", "util"},
    {"wavefronts", "wavef"}, {"working", "work"},
}};

// Names up to this long are short enough as they are; so are words in longer names.
constexpr std::size_t kShortName = 10;

std::string short_word(const std::string& word) {
  for (const auto& [from, to] : kShortWords) {
    if (word == from) return std::string(to);
  }
  if (word.size() > kShortName) return word.substr(0, 5);
  return word;
}

// True when `unit` is one of the blank-separated words of `label` ("fit GB/s" shows GB/s), or
// one after "m." or "c." ("m.GB/s").
bool label_shows_unit(const std::string& label, const std::string& unit) {
  std::stringstream in(label);
  for (std::string word; in >> word;) {
    if (word == unit || word == "m." + unit || word == "c." + unit) return true;
  }
  return false;
}

std::string legend_line(const std::string& label, const std::string& meaning,
                        const std::string& unit) {
  const bool say_unit = !unit.empty() && !unit_in_cells(unit) && !label_shows_unit(label, unit) &&
                        meaning.find("[" + unit + "]") == std::string::npos;
  return say_unit ? fmt::format("{} = {} [{}]", label, meaning, unit)
                  : fmt::format("{} = {}", label, meaning);
}

// Appends the first `columns` code points of `text` to `out`; returns the rest.
std::string_view take_columns(std::string_view text, std::size_t columns, std::string& out) {
  std::size_t i = 0;
  std::size_t taken = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (taken == columns) break;
      ++taken;
    }
    out += text[i];
    ++i;
  }
  return text.substr(i);
}

std::string rtrimmed(std::string text) {
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

}  // namespace

Header column_header(const Naming& naming, ColumnKind kind, const std::string& name,
                     const std::string& unit) {
  const char* qualifier = "";
  const char* label_prefix = "";
  const char* meaning_prefix = "";
  std::string full;
  switch (kind) {
    case ColumnKind::kParam:
    case ColumnKind::kNoise:
    case ColumnKind::kFlags:
      full = name;
      break;
    case ColumnKind::kMetric:
      full = quantity_header("", name, unit);
      break;
    case ColumnKind::kDerived:
      qualifier = "derived.";
      full = quantity_header("", name, unit);
      break;
    case ColumnKind::kSummary:
      qualifier = "summary.";
      full = quantity_header("", name, unit);
      break;
    case ColumnKind::kModel:
      qualifier = "model.";
      label_prefix = "m.";
      meaning_prefix = "model";
      full = quantity_header("model ", name, unit);
      break;
    case ColumnKind::kCounter:
      qualifier = "counter.";
      label_prefix = "c.";
      meaning_prefix = "counter";
      full = quantity_header("counter ", name, unit);
      break;
  }
  if (naming.wide) return {full, ""};
  const Term* term = nullptr;
  if (naming.glossary) {
    if (*qualifier) term = naming.glossary->term(naming.probe, qualifier + name);
    if (!term) term = naming.glossary->term(naming.probe, name);
  }
  std::string label;
  std::string meaning;
  if (term) {
    label = label_prefix + term->label;
    meaning = term->meaning;
    // A model column says so in its legend even when it borrows a measured quantity's term.
    if (*meaning_prefix && meaning.rfind(meaning_prefix, 0) != 0)
      meaning = fmt::format("{}: {}", meaning_prefix, meaning);
  } else {
    label = label_prefix + abbreviate(name);
    meaning = *meaning_prefix ? fmt::format("{} {}", meaning_prefix, name) : name;
    if (label == name) return {full, ""};  // nothing shorter to say
  }
  if (label == full) return {full, ""};
  return {label, legend_line(label, meaning, unit)};
}

std::string abbreviate(const std::string& name) {
  if (name.size() <= kShortName) return name;
  std::vector<std::string> words;
  std::string word;
  for (char c : name + "_") {
    if (c == '_') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  std::string out;
  bool joined = true;  // no '_' at the start or after a '/' or "m."
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (i == 0 && w == "model" && words.size() > 1) {
      out = "m.";  // as model columns are labelled
      continue;
    }
    if ((w == "per" || w == "over") && !out.empty() && i + 1 < words.size()) {
      out += '/';
      joined = true;
      continue;
    }
    if (!joined) out += '_';
    out += short_word(w);
    joined = false;
  }
  return out.size() < name.size() ? out : name;
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::size_t fit_width(std::string_view text) {
  return text.size();
}

std::vector<std::string> wrap_text(const std::string& prefix, const std::string& text,
                                   std::size_t width, std::size_t indent) {
  std::vector<std::string> lines;
  std::string line = prefix;
  std::size_t used = fit_width(prefix);
  bool has_word = false;
  auto new_line = [&] {
    lines.push_back(rtrimmed(line));
    line = std::string(indent, ' ');
    used = indent;
    has_word = false;
  };
  std::stringstream in(text);
  for (std::string word; in >> word;) {
    std::size_t w = fit_width(word);
    if (has_word && used + 1 + w > width) new_line();
    if (has_word) {
      line += ' ';
      ++used;
    }
    // A word wider than what is left of an empty line is cut.
    std::string_view rest = word;
    while (used + w > width && used < width) {
      std::string piece;
      rest = take_columns(rest, width - used, piece);
      line += piece;
      new_line();
      w = fit_width(rest);
    }
    line += rest;
    used += w;
    has_word = true;
  }
  lines.push_back(rtrimmed(line));
  return lines;
}

std::vector<std::string> wrap_items(const std::string& prefix,
                                    const std::vector<std::string>& items,
                                    const std::string& separator, std::size_t width,
                                    std::size_t indent) {
  std::vector<std::string> lines;
  std::string line = prefix;
  bool has_item = false;
  for (const auto& item : items) {
    const std::string piece = has_item ? separator + item : item;
    if (fit_width(line) + fit_width(piece) <= width) {
      line += piece;
      has_item = true;
      continue;
    }
    if (has_item) {
      lines.push_back(rtrimmed(line));
      line = std::string(indent, ' ');
    }
    // The item starts the line; wrap it inside when it alone is too wide.
    auto parts = wrap_text(line, item, width, indent);
    line = parts.back();
    parts.pop_back();
    lines.insert(lines.end(), parts.begin(), parts.end());
    has_item = true;
  }
  lines.push_back(rtrimmed(line));
  return lines;
}

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

std::string counters_text(const CounterStatus& c) {
  return fmt::format(
      "{} metrics{}, {} replay pass{} per point, after timing; --wide or --json shows each "
      "counter",
      c.metrics.size(), c.chip.empty() ? "" : " on " + c.chip, c.passes, c.passes == 1 ? "" : "es");
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

std::vector<Section> layout_rows(const std::vector<Row>& rows, const Naming& naming) {
  std::vector<Section> sections;
  std::vector<const Row*> group;
  for (const auto& row : rows) {
    if (!group.empty() &&
        row_signature(row, naming.wide) != row_signature(*group.front(), naming.wide)) {
      sections.push_back(build_section(group, naming));
      group.clear();
    }
    group.push_back(&row);
  }
  if (!group.empty()) sections.push_back(build_section(group, naming));
  return sections;
}

Section layout_summary(const std::vector<SummaryRow>& rows, const Naming& naming) {
  Section section;
  if (rows.empty()) return section;
  // Union of keys in order of first appearance, blanks where a row lacks one.
  std::vector<std::pair<std::string, std::string>> param_keys;  // key, unit
  std::vector<std::pair<std::string, std::string>> value_keys;  // name, unit
  auto add = [](auto& keys, const std::string& name, const std::string& unit) {
    auto same = [&](const auto& k) { return k.first == name; };
    if (std::none_of(keys.begin(), keys.end(), same)) keys.push_back({name, unit});
  };
  for (const auto& r : rows) {
    for (const auto& p : r.params)
      add(param_keys, p.key, p.unit);
    for (const auto& q : r.values)
      add(value_keys, q.name, q.unit);
  }
  for (const auto& [key, unit] : param_keys) {
    Column col = make_column(naming, ColumnKind::kParam, key, unit, false);
    for (const auto& r : rows) {
      const Param* p = find_param(r.params, key);
      col.cells.push_back(p ? param_text(*p) : "");
    }
    section.columns.push_back(std::move(col));
  }
  for (const auto& [name, unit] : value_keys) {
    Column col = make_column(naming, ColumnKind::kSummary, name, unit, true);
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
  const bool plan = result.status == Status::kPlanned || !result.device;
  if (result.devices.size() > 1) {  // a host-scoped probe: the GPUs it spanned
    const std::string gpus = fmt::format("GPUs {}", fmt::join(result.devices, ", "));
    return plan ? fmt::format("plan across {} (no GPU used)", gpus) : gpus;
  }
  if (!result.device) return "plan (no GPU used)";
  if (plan) return fmt::format("plan for GPU {} (no GPU used)", *result.device);
  for (const auto& d : report.devices) {
    if (d.index == *result.device) return fmt::format("GPU {}: {}", d.index, d.name);
  }
  return fmt::format("GPU {}", *result.device);
}

std::vector<std::string> device_fact_parts(const DeviceInfo& d) {
  std::vector<std::string> parts{
      fmt::format("cc {}", d.compute_capability),
      fmt::format("{} SMs @ {} MHz max", d.sm_count, d.sm_clock_khz / 1000),
      fmt::format("{} memory, {}-bit bus, est. peak {} GB/s",
                  format_bytes(static_cast<double>(d.total_memory_bytes)), d.memory_bus_width_bits,
                  format_number(d.peak_dram_estimate_gbps)),
      fmt::format("L2 {} (persisting max {})", format_bytes(static_cast<double>(d.l2_bytes)),
                  format_bytes(static_cast<double>(d.persisting_l2_max_bytes))),
      fmt::format("{} copy engine(s)", d.async_engine_count),
      fmt::format("PCI {}", d.pci_bus_id)};
  for (auto& part : link_fact_parts(d))
    parts.push_back(std::move(part));
  return parts;
}

std::string device_facts(const DeviceInfo& d) {
  return fmt::format("{}", fmt::join(device_fact_parts(d), " · "));
}

std::vector<std::string> host_parts(const RunReport& report) {
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
  return parts;
}

std::string host_line(const RunReport& report) {
  return fmt::format("{}", fmt::join(host_parts(report), " · "));
}

std::vector<std::string> compare_tool_parts(const RunReport& report) {
  std::vector<std::string> parts{
      fmt::format("{} {} ({}) compare", report.tool.name, report.tool.version, report.tool.git)};
  if (!report.started_at.empty()) parts.push_back(report.started_at);
  return parts;
}

std::string side_prefix(const ComparedSide& side) {
  const std::string files = fmt::format("{}", fmt::join(side.files, ", "));
  return side.files.size() > 1
             ? fmt::format("{} ({} runs) = {}: ", side.label, side.files.size(), files)
             : fmt::format("{} = {}: ", side.label, files);
}

std::vector<std::string> side_parts(const ComparedSide& side) {
  std::vector<std::string> parts;
  for (const std::string* text : {&side.host.hostname, &side.host.cpu}) {
    if (!text->empty()) parts.push_back(*text);
  }
  if (side.host.driver_version || side.host.runtime_version) {
    parts.push_back("driver " + format_cuda_version(side.host.driver_version));
    parts.push_back("runtime " + format_cuda_version(side.host.runtime_version));
  }
  parts.push_back(fmt::format("{} {} ({})", side.tool.name, side.tool.version,
                              side.tool.git.empty() ? "?" : side.tool.git));
  if (!side.started_at.empty()) parts.push_back(side.started_at);
  return parts;
}

}  // namespace gpuprobe::render_detail

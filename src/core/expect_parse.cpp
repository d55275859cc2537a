// Parses expectations ("transfer[memory=pinned].bandwidth >= 50GB/s") and expectation files.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/units.hpp"
#include "units_tokens.hpp"

namespace gpuprobe {
namespace {

using units_detail::trim;

// The parse of one expression: the text, where it came from, and errors naming a token.
struct Parser {
  std::string_view text;
  const std::string& origin;

  [[noreturn]] void fail(std::string_view token, const std::string& what) const {
    throw UsageError(fmt::format("{}: bad expectation '{}': {} at '{}'", origin, printable(text),
                                 what, token.empty() ? std::string("end") : printable(token)));
  }
};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// A leading run of name characters (a probe, key, finding id or value name), taken off `s`.
std::string take_name(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_name_char(s[n]))
    ++n;
  std::string name(s.substr(0, n));
  s.remove_prefix(n);
  return name;
}

// The relation at the start of `s` (longest first), taken off it; nullopt when none.
std::optional<Relation> take_relation(std::string_view& s) {
  static constexpr std::pair<std::string_view, Relation> kRelations[] = {
      {"!=", Relation::kNotEqual}, {">=", Relation::kGreaterEqual}, {"<=", Relation::kLessEqual},
      {"==", Relation::kEqual},    {"=", Relation::kEqual},         {">", Relation::kGreater},
      {"<", Relation::kLess}};
  for (const auto& [token, relation] : kRelations) {
    if (s.starts_with(token)) {
      s.remove_prefix(token.size());
      return relation;
    }
  }
  return std::nullopt;
}

// A plain number ("1.5", "1e9", "-2"): the whole token, or nullopt.
std::optional<double> plain_number(std::string_view token) {
  const std::string t(trim(token));
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A selector's value as a number: plain, or a size with a unit ("64MiB").
std::optional<double> selector_number(std::string_view token) {
  if (auto v = plain_number(token)) return v;
  units_detail::Problem problem;
  if (token.empty() || !units_detail::is_digit(token.front())) return std::nullopt;
  const auto bytes = units_detail::try_parse_size(token, problem);
  if (!bytes) return std::nullopt;
  return static_cast<double>(*bytes);
}

// "[key=value, key>=value]": taken off `s` when it starts with '['.
std::vector<Selector> take_selectors(std::string_view& s, const Parser& p) {
  std::vector<Selector> out;
  if (!s.starts_with('[')) return out;
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos) p.fail(s, "no closing ']'");
  std::string_view inner = s.substr(1, close - 1);
  s.remove_prefix(close + 1);
  while (true) {
    const std::size_t comma = inner.find(',');
    std::string_view item = trim(inner.substr(0, comma));
    const std::string_view whole = item;
    Selector sel;
    sel.key = take_name(item);
    if (sel.key.empty()) p.fail(whole, "a selector starts with a param name");
    item = trim(item);
    const auto relation = take_relation(item);
    if (!relation) p.fail(whole, "a selector needs =, !=, <, <=, > or >=");
    sel.relation = *relation;
    sel.text = std::string(trim(item));
    if (sel.text.empty()) p.fail(whole, "a selector needs a value");
    sel.number = selector_number(sel.text);
    out.push_back(std::move(sel));
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  return out;
}

// A value name: the rest of the path (counter names hold dots: "pcie__read_bytes.sum").
std::string take_value_name(std::string_view s, const Parser& p) {
  s = trim(s);
  if (s.empty()) p.fail(s, "a value name is missing");
  for (char c : s) {
    if (!is_name_char(c) && c != '.') p.fail(s, "a value name holds letters, digits, _ - and .");
  }
  return std::string(s);
}

// "device.NAME", "PROBE[...].NAME", "PROBE.summary[...].NAME", "PROBE.findings.ID[...].NAME",
// "PROBE.conditions.NAME".
Reference parse_path(std::string_view s, const Parser& p) {
  Reference r;
  s = trim(s);
  const std::string_view start = s;
  const std::string head = take_name(s);
  if (head.empty()) p.fail(start, "expected a probe name or 'device'");
  if (head == "device") {
    if (!s.starts_with('.')) p.fail(s, "expected '.' after 'device'");
    r.source = Source::kDevice;
    r.name = take_value_name(s.substr(1), p);
    return r;
  }
  r.probe = head;
  r.source = Source::kRows;
  r.selectors = take_selectors(s, p);
  if (!s.starts_with('.')) p.fail(s, "expected '.' and a value name");
  s.remove_prefix(1);
  std::string_view rest = s;
  const std::string part = take_name(rest);
  if (r.selectors.empty() && part == "summary" &&
      (rest.starts_with('[') || rest.starts_with('.'))) {
    r.source = Source::kSummary;
    r.selectors = take_selectors(rest, p);
    if (!rest.starts_with('.')) p.fail(rest, "expected '.' and a summary value name");
    r.name = take_value_name(rest.substr(1), p);
  } else if (r.selectors.empty() && part == "findings" && rest.starts_with('.')) {
    rest.remove_prefix(1);
    r.source = Source::kFinding;
    r.finding_id = take_name(rest);
    if (r.finding_id.empty()) p.fail(rest, "expected a finding id after 'findings.'");
    r.selectors = take_selectors(rest, p);
    if (!rest.starts_with('.')) p.fail(rest, "expected '.' and a finding value name");
    r.name = take_value_name(rest.substr(1), p);
  } else if (r.selectors.empty() && part == "conditions" && rest.starts_with('.')) {
    r.source = Source::kConditions;
    r.name = take_value_name(rest.substr(1), p);
  } else {
    r.name = take_value_name(s, p);
  }
  return r;
}

// "50GB/s", "10 us", "64MiB", "80%", "1.5": a number and its unit (sizes become bytes, "B").
// nullopt when the text does not start like a number; fails on a unit that is not known.
std::optional<Reference> parse_constant(std::string_view s, const Parser& p) {
  const std::string t(trim(s));
  if (t.empty() || !(units_detail::is_digit(t.front()) || t.front() == '.' || t.front() == '-'))
    return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v)) return std::nullopt;
  Reference r;
  r.source = Source::kConstant;
  r.unit = std::string(trim(std::string_view(end)));
  r.constant = v;
  if (known_constant_unit(r.unit)) {
    // Compared in the family's base unit (GB/s, s): a bound that overflows there is refused.
    for (const char* base : {"GB/s", "s"}) {
      const auto in_base = convert_unit(v, r.unit, base);
      if (in_base && !std::isfinite(*in_base))
        p.fail(s, fmt::format("the bound overflows when converted to {}", base));
    }
    return r;
  }
  units_detail::Problem problem;
  const auto bytes = units_detail::try_parse_size(t, problem);
  if (!bytes)
    p.fail(r.unit, "unknown unit (GB/s MB/s TB/s, s ms us ns, B KiB MiB GiB KB MB GB, %, x)");
  r.constant = static_cast<double>(*bytes);
  r.unit = "B";
  return r;
}

// The right side: a constant, a reference, or "FACTOR * reference".
void parse_bound(std::string_view s, const Parser& p, Expectation& e) {
  s = trim(s);
  if (s.empty()) p.fail(s, "a bound is missing after the comparison");
  const std::size_t star = s.find('*');
  if (star != std::string_view::npos) {
    const auto factor = plain_number(s.substr(0, star));
    if (!factor) p.fail(s.substr(0, star), "a factor before '*' is a plain number");
    e.factor = *factor;
    s = trim(s.substr(star + 1));
  }
  if (auto c = parse_constant(s, p)) {
    e.reference = *c;
    return;
  }
  e.reference = parse_path(s, p);
}

}  // namespace

const char* relation_text(Relation relation) noexcept {
  switch (relation) {
    case Relation::kLess:
      return "<";
    case Relation::kLessEqual:
      return "<=";
    case Relation::kGreater:
      return ">";
    case Relation::kGreaterEqual:
      return ">=";
    case Relation::kEqual:
      return "=";
    case Relation::kNotEqual:
      return "!=";
  }
  return "?";
}

Expectation parse_expectation(std::string_view text, const std::string& origin) {
  const Parser p{text, origin};
  // The bound's comparison: the first <, >, <= or >= outside the selectors' brackets.
  std::size_t depth = 0, at = std::string_view::npos;
  for (std::size_t i = 0; i < text.size() && at == std::string_view::npos; ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && depth > 0) --depth;
    if (depth == 0 && (text[i] == '<' || text[i] == '>')) at = i;
  }
  if (at == std::string_view::npos && depth > 0) p.fail(text, "no closing ']'");
  if (at == std::string_view::npos) p.fail(text, "expected a comparison: <, <=, > or >=");
  Expectation e;
  e.text = std::string(trim(text));
  e.origin = origin;
  std::string_view right = text.substr(at);
  e.bound = *take_relation(right);
  e.subject = parse_path(text.substr(0, at), p);
  if (e.subject.source == Source::kDevice)
    p.fail(text.substr(0, at), "the checked value is a probe's, not the device's");
  parse_bound(right, p, e);
  return e;
}

std::vector<Expectation> read_expectation_file(const std::string& path) {
  std::istringstream in(
      read_input_file(path, kMaxExpectationFileBytes, "an expectation file", "--expect-file"));
  std::vector<Expectation> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view body = trim(std::string_view(line).substr(0, line.find('#')));
    if (body.empty()) continue;
    out.push_back(parse_expectation(body, fmt::format("{}:{}", printable(path), number)));
  }
  return out;
}

std::string expectation_file_name(const std::string& device_name) {
  std::string out;
  for (char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out + ".txt";
}

std::vector<Expectation> reference_expectations(const DeviceInfo& device, const std::string& dir,
                                                std::string& file) {
  file = dir + "/" + expectation_file_name(device.name);
  if (!std::ifstream(file)) file = dir + "/generic.txt";
  if (!std::ifstream(file))
    throw UsageError(
        fmt::format("--expect-file auto: no reference expectations in '{}' (neither "
                    "{} nor generic.txt)",
                    dir, expectation_file_name(device.name)));
  auto out = read_expectation_file(file);
  for (auto& e : out)
    e.device = device.index;
  return out;
}

}  // namespace gpuprobe

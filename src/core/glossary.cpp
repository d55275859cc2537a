// The glossary: finding phrasings and column terms, with the builders phrasings use.
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/fleet.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/runner_findings.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

Finding make(FindingKind kind, std::string id, std::vector<Param> params,
             std::vector<Quantity> values, std::vector<Param> outcome) {
  Finding f;
  f.id = std::move(id);
  f.kind = kind;
  f.params = std::move(params);
  f.values = std::move(values);
  f.outcome = std::move(outcome);
  return f;
}

// For ids this build has no phrasing for: every param and value, in order.
std::string generic_text(const Finding& f) {
  std::vector<std::string> parts;
  std::vector<Param> shown = f.params;
  shown.insert(shown.end(), f.outcome.begin(), f.outcome.end());
  for (const auto& p : shown)
    parts.push_back(fmt::format("{} {}", p.key, param_words(p)));
  for (const auto& q : f.values)
    parts.push_back(fmt::format("{} {}", q.name, quantity_words(q)));
  if (parts.empty()) return f.id;
  return fmt::format("{}: {}", f.id, fmt::join(parts, ", "));
}

}  // namespace

void Glossary::add_phrasing(const std::string& id, Phrasing phrasing) {
  if (!phrasings_.emplace(id, std::move(phrasing)).second)
    throw std::logic_error(fmt::format("finding id '{}' has two phrasings", id));
}

void Glossary::add_findings(const FindingList& findings) {
  for (const FindingSpec& spec : findings.specs()) {
    add_phrasing(spec.id, spec.phrase);
    definitions_.push_back(spec);
  }
}

void Glossary::add_term(const std::string& probe, const std::string& name, Term term) {
  terms_[{probe, name}] = std::move(term);
}

void Glossary::add_terms(const std::string& probe, std::span<const TermEntry> entries) {
  for (const TermEntry& e : entries)
    add_term(probe, e.name, {e.label, e.meaning});
}

void Glossary::merge(const Glossary& other) {
  for (const auto& [id, phrasing] : other.phrasings_)
    add_phrasing(id, phrasing);
  definitions_.insert(definitions_.end(), other.definitions_.begin(), other.definitions_.end());
  for (const auto& [key, term] : other.terms_)
    terms_[key] = term;
}

bool Glossary::has_phrasing(const std::string& id) const {
  return phrasings_.count(id) != 0;
}

std::vector<std::string> Glossary::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, phrasing] : phrasings_)
    out.push_back(id);
  return out;
}

std::string Glossary::text(const Finding& finding) const {
  if (!finding.text.empty()) return finding.text;
  const auto it = phrasings_.find(finding.id);
  if (it == phrasings_.end()) return generic_text(finding);
  return it->second(finding);
}

const Term* Glossary::term(const std::string& probe, const std::string& name) const {
  // "compare transfer" results show transfer's columns.
  const std::string own = probe.rfind("compare ", 0) == 0 ? probe.substr(8) : probe;
  for (const std::string* p : {&own, &probe}) {
    const auto it = terms_.find({*p, name});
    if (it != terms_.end()) return &it->second;
  }
  const auto it = terms_.find({"", name});
  return it == terms_.end() ? nullptr : &it->second;
}

void phrase_findings(ProbeResult& result, const Glossary& glossary) {
  for (auto& f : result.findings) {
    if (f.text.empty()) f.text = glossary.text(f);
  }
}

Finding verdict(std::string id, std::vector<Param> params, std::vector<Quantity> values,
                std::vector<Param> outcome) {
  return make(FindingKind::kVerdict, std::move(id), std::move(params), std::move(values),
              std::move(outcome));
}

Finding note(std::string id, std::vector<Param> params, std::vector<Quantity> values,
             std::vector<Param> outcome) {
  return make(FindingKind::kNote, std::move(id), std::move(params), std::move(values),
              std::move(outcome));
}

Finding warning(std::string id, std::vector<Param> params, std::vector<Quantity> values,
                std::vector<Param> outcome) {
  return make(FindingKind::kWarning, std::move(id), std::move(params), std::move(values),
              std::move(outcome));
}

std::optional<double> optional_value_of(const Finding& finding, const std::string& name) {
  const Quantity* q = find_quantity(finding.values, name);
  if (!q) throw std::out_of_range(fmt::format("finding '{}' has no value '{}'", finding.id, name));
  return q->value;
}

double value_of(const Finding& finding, const std::string& name) {
  const auto v = optional_value_of(finding, name);
  if (!v)
    throw std::out_of_range(fmt::format("finding '{}': value '{}' is null", finding.id, name));
  return *v;
}

std::string param_text_of(const Finding& finding, const std::string& key) {
  return param_words(finding_field::param_in(finding, key));
}

std::string value_text(const Finding& finding, const std::string& name) {
  const Quantity* q = find_quantity(finding.values, name);
  if (!q) throw std::out_of_range(fmt::format("finding '{}' has no value '{}'", finding.id, name));
  return quantity_words(*q);
}

Glossary core_glossary() {
  Glossary g;
  g.add_findings(runner_findings::kFindings);
  // Columns most probes have. Labels equal to the name get no legend line.
  g.add_term("", "bandwidth", {"GB/s", "bandwidth, median of the samples; GB/s = 1e9 B/s"});
  g.add_term("", "model.bandwidth", {"GB/s", "model: bandwidth predicted for this point"});
  g.add_term("", "time", {"time", "time per repetition, median"});
  g.add_term("", "noise", {"noise", "stdev / mean of the samples (the worst metric of the row)"});
  g.add_term("", "flags", {"flags", "noisy: the time cap was hit above the noise bound"});
  g.add_term("", "bytes", {"bytes", "bytes moved per operation"});
  g.add_term("", "element_bytes", {"elem", "bytes per element"});
  g.merge(compare_glossary());
  g.merge(fleet_glossary());
  return g;
}

}  // namespace gpuprobe

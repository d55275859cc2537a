// Words for data: the sentence of each finding id and the short header of each column name.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Turns one finding into its sentence, from its params and values only.
using Phrasing = std::function<std::string(const Finding&)>;

// How a column is shown in a compact table: a short header, and the legend line under the
// table that says what the header means.
struct Term {
  std::string label;    // "sec/req"
  std::string meaning;  // "model: distinct 32-B sectors one warp load touches"
};

// One column's short header and legend line, as a probe lists its columns in a constant table.
struct TermEntry {
  const char* name;     // "sectors_per_request_counter", "model.fit_bandwidth"
  const char* label;    // "sec ctr"
  const char* meaning;  // "counters: global-load sectors / load requests (l1tex), one launch"
};

// The one place where each finding id gets its sentence and each column its short header.
// Each component hands it the findings it declared (finding_def.hpp: a probe in its add_words,
// core its own: the runner's, compare's, fleet's); renderers and the runner look them up.
class Glossary {
 public:
  // Registers the sentence of a finding id. Throws std::logic_error when the id is taken: ids
  // are unique across the tool, so one id always means one thing.
  void add_phrasing(const std::string& id, Phrasing phrasing);
  // Registers every finding a component defines (finding_def.hpp), with its sentence; throws as
  // add_phrasing does on an id taken.
  void add_findings(const FindingList& findings);
  // Registers the short header of a column: `probe` "" for every probe, else only for that
  // probe's results ("compare <probe>" results use the probe's terms too).
  void add_term(const std::string& probe, const std::string& name, Term term);
  // add_term for every entry of a probe's table of columns.
  void add_terms(const std::string& probe, std::span<const TermEntry> entries);
  // Adds every phrasing and term of another glossary (throws on a duplicate finding id).
  void merge(const Glossary& other);

  bool has_phrasing(const std::string& id) const;
  // Every finding registered through its definition, in the order registered.
  const std::vector<FindingSpec>& definitions() const { return definitions_; }
  // Every finding id with a sentence, defined or registered by add_phrasing alone.
  std::vector<std::string> ids() const;
  // The sentence of a finding: its text when set, else its phrasing, else a generic one
  // ("id: name value unit, ...") for ids this build does not know (files from other versions).
  std::string text(const Finding& finding) const;
  // The short header of a column of a probe's result; nullptr when none is registered.
  const Term* term(const std::string& probe, const std::string& name) const;

 private:
  std::map<std::string, Phrasing> phrasings_;
  std::vector<FindingSpec> definitions_;
  std::map<std::pair<std::string, std::string>, Term> terms_;
};

// Sets the text of every finding of the result that has none, from the glossary.
void phrase_findings(ProbeResult& result, const Glossary& glossary);

// A finding of any shape, the kind in the name, for tests and hand-made data: the tool's own
// findings are built only through their definitions (finding_def.hpp). `outcome` holds what the
// measurement decided (Finding says why it is kept apart from the params).
Finding verdict(std::string id, std::vector<Param> params, std::vector<Quantity> values,
                std::vector<Param> outcome = {});
Finding note(std::string id, std::vector<Param> params, std::vector<Quantity> values,
             std::vector<Param> outcome = {});
Finding warning(std::string id, std::vector<Param> params, std::vector<Quantity> values,
                std::vector<Param> outcome = {});

// Reading a finding of any shape by key (tests, sentences registered by add_phrasing); a
// definition's sentence reads its typed view instead. value_of throws std::out_of_range naming the
// id when the value is absent or null; param_text_of returns the param (or, failing that, the
// outcome entry) as people read it ("pinned", "64 MiB").
double value_of(const Finding& finding, const std::string& name);
std::optional<double> optional_value_of(const Finding& finding, const std::string& name);
std::string param_text_of(const Finding& finding, const std::string& key);
// A value with its unit for running text: "54.1 GB/s", "64 MiB", "2.65 us", "7.31x", "12%".
std::string value_text(const Finding& finding, const std::string& name);

// What core itself finds: the runner's clock warning and the compare findings.
Glossary core_glossary();

}  // namespace gpuprobe

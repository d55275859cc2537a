// Writing a RunReport to the requested destinations: table on stdout, JSON/CSV/Markdown files.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "options.hpp"

namespace gpuprobe::cli {

// Checks, before anything runs, that each requested output can be written, that at most one
// goes to stdout, that no two name one file, and that none is one of `inputs` (the files the
// command reads: writing it would destroy what is being read). Throws UsageError naming the flag.
void validate_outputs(const GlobalOptions& options, const std::vector<std::string>& inputs = {});

// The same checks for one output file that is not a global option's (report's -o).
void validate_output_file(const char* flag, const std::string& path,
                       const std::vector<std::string>& inputs);

// Renders and writes every requested output; the table goes to stdout unless --quiet or
// another format was sent to stdout ("-"). The glossary gives tables and Markdown their short
// column labels (pass core's merged with every probe's terms); the overload without one uses
// core_glossary() only, so probe columns get generic abbreviations.
// `lead`: text printed on stdout before the table (compare's first screen), only with the table.
void write_outputs(const GlobalOptions& options, const RunReport& report, const Glossary& glossary,
                   const std::string& lead = {});

// UTC time now, ISO 8601 ("2026-11-22T12:00:00Z").
std::string utc_timestamp();

}  // namespace gpuprobe::cli

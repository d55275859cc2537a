// The JSON form of a RunReport (schema_version 3; 1 and 2 are read too), both ways, and atomic file
// output: written by json_write.cpp, read by json_read.cpp.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Written by this build. Schema 2 replaced schema 1's prose `verdict`/`notes` by `findings`;
// schema 3 added each metric's raw samples, grouped by round, and its round spread.
inline constexpr int kSchemaVersion = 3;
// The oldest schema still read (its verdict and notes lines become findings with text only).
inline constexpr int kOldestReadableSchema = 1;

nlohmann::ordered_json to_json(const RunReport& report);

// Reads a report written by to_json. Throws UsageError naming `origin` on malformed input
// or an unsupported schema_version.
RunReport report_from_json(const nlohmann::ordered_json& json, const std::string& origin);

// The most nesting and values a file read as JSON may hold (a full `all` run: 6 levels, some
// 60 000 values); beyond them it is refused, so that no input exhausts the stack or the memory.
inline constexpr std::size_t kMaxJsonDepth = 64;
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 22;

// The bounds parse_json_text holds a document to: kMaxJsonDepth and kMaxJsonValues for every
// file gpuprobe reads; the unit tests count against smaller ones (the real ones are met by the
// CLI's bad-file tests).
struct JsonLimits {
  std::size_t depth = kMaxJsonDepth;
  std::size_t values = kMaxJsonValues;
};

// Parses JSON text keeping key order, within `limits`; the control characters in its strings
// and keys are escaped (printable()). Throws UsageError naming `origin`, the line and column and
// what was wrong.
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& origin,
                                       JsonLimits limits = {});

// Reads (read_input_file, at most kMaxResultFileBytes) and parses (parse_json_text) a JSON
// file. Throws UsageError if it cannot be read or parsed.
nlohmann::ordered_json read_json_file(const std::string& path);

// Reads a gpuprobe JSON result file (read_json_file + report_from_json); throws UsageError when
// it is unreadable or malformed.
RunReport read_report_file(const std::string& path);

// The files a command is given, as read_json_file and read_report_file would read them one by
// one, but each distinct file (by device and inode: a link or a named pipe given twice is one
// file) read once, on up to 8 threads; the first error in the paths' order is the one thrown,
// and SIGINT/SIGTERM stop the reading (InterruptedError).
std::vector<nlohmann::ordered_json> read_json_files(const std::vector<std::string>& paths);
std::vector<RunReport> read_report_files(const std::vector<std::string>& paths);

// Writes text to `path` atomically (temporary file in the same folder, then rename), or to
// stdout when path is "-". Throws Error(kRunFailure) naming the path on I/O failure.
void write_output(const std::string& path, const std::string& text);

}  // namespace gpuprobe

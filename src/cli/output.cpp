// Output destinations and formats for the CLI.
#include "output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/gzip.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::cli {
namespace {

void validate_path(const char* flag, const std::string& path) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  const auto status = fs::status(p, ec);
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status))
    return;  // a device or pipe (/dev/stdout, a FIFO): written into, no folder needed
  if (!fs::is_directory(dir, ec)) {
    throw UsageError(fmt::format("{} {}: folder '{}' does not exist", flag, path, dir.string()));
  }
  if (fs::is_directory(p, ec))
    throw UsageError(fmt::format("{} {}: is a folder, give a file name", flag, path));
  // Create (then remove) a file beside it, as the atomic write will: this finds out now, not
  // after the run, whether the folder takes files (/proc, /sys, read-only mounts and folders).
  const fs::path trial =
      dir / fmt::format(".{}.gpuprobe-check.{}", p.filename().string(), ::getpid());
  const int fd = ::open(trial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    // ENOENT for a folder that exists: it takes no new files (/proc and the like).
    throw UsageError(fmt::format(
        "{} {}: cannot create a file in folder '{}': {}", flag, printable(path),
        printable(dir.string()),
        err == ENOENT ? "it takes no new files (a virtual file system?)" : std::strerror(err)));
  }
  ::close(fd);
  ::unlink(trial.c_str());
}

// Whether two paths name one file: the same file where one exists (links and ./ spellings
// included), else the same normalised absolute path.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return a == b;  // no normal form to compare: the spellings decide
  const fs::path cb = fs::weakly_canonical(b, ec);
  return ec ? a == b : ca == cb;
}

bool to_stdout(const GlobalOptions& o) {
  return o.json_path == "-" || o.csv_path == "-" || o.md_path == "-";
}

}  // namespace

void validate_outputs(const GlobalOptions& o, const std::vector<std::string>& inputs) {
  int dashes = (o.json_path == "-") + (o.csv_path == "-") + (o.md_path == "-");
  if (dashes > 1) throw UsageError("only one of --json, --csv, --md can write to stdout ('-')");
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--json", &o.json_path}, {"--csv", &o.csv_path}, {"--md", &o.md_path}};
  for (std::size_t i = 0; i < std::size(outputs); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path->empty() || *path == "-") continue;
    for (std::size_t j = i + 1; j < std::size(outputs); ++j)
      if (same_file(*path, *outputs[j].second))
        throw UsageError(fmt::format("{} and {} both name '{}': give each its own file", flag,
                                     outputs[j].first, printable(*path)));
    for (const auto& input : inputs)
      if (same_file(*path, input))
        throw UsageError(fmt::format(
            "{} {}: that is also an input file, which writing would destroy: give another name",
            flag, printable(*path)));
    validate_path(flag, *path);
  }
}

void validate_output_file(const char* flag, const std::string& path,
                       const std::vector<std::string>& inputs) {
  for (const auto& input : inputs)
    if (same_file(path, input))
      throw UsageError(fmt::format(
          "{} {}: that is also an input file, which writing would destroy: give another name", flag,
          printable(path)));
  validate_path(flag, path);
}

void write_outputs(const GlobalOptions& o, const RunReport& report, const Glossary& glossary,
                   const std::string& lead) {
  throw_if_interrupted();  // a run stopped by SIGINT/SIGTERM writes nothing
  if (!o.quiet && !to_stdout(o)) {
    TableStyle style;
    style.color = !o.no_color && std::getenv("NO_COLOR") == nullptr && ::isatty(STDOUT_FILENO);
    style.wide = o.wide;
    if (!lead.empty()) std::cout << lead << "\n";
    std::cout << render_table(report, style, glossary) << std::flush;
  }
  if (!o.json_path.empty()) {
    const std::string json = render_json(report);
    write_output(o.json_path, has_gzip_suffix(o.json_path) ? gzip_text(json) : json);
  }
  if (!o.csv_path.empty()) write_output(o.csv_path, render_csv(report));
  if (!o.md_path.empty()) {
    MarkdownStyle style;
    style.wide = o.wide;
    write_output(o.md_path, render_markdown(report, glossary, style));
  }
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

StoppingRule stopping_rule(const GlobalOptions& o, bool quick) {
  StoppingRule rule;
  if (quick) {
    rule.min_samples = 5;
    rule.min_time = 0.005;
    rule.max_noise = 0.015;
    rule.max_time = 0.1;
  }
  if (o.samples) rule.fixed_samples = *o.samples;
  if (o.min_time) rule.min_time = *o.min_time;
  if (o.max_time) rule.max_time = *o.max_time;
  if (o.max_noise) {
    const auto share = parse_share(*o.max_noise);
    if (!share || !(share->value > 0)) {
      throw UsageError(fmt::format("--max-noise '{}': give a fraction (0.02) or a percentage (2%)",
                                   *o.max_noise));
    }
    rule.max_noise = share->percent ? share->value / 100.0 : share->value;
    if (rule.max_noise >= 1)
      throw UsageError(fmt::format("--max-noise '{}' must be below 100%", *o.max_noise));
  }
  return rule;
}

}  // namespace gpuprobe::cli

// Analysis and phrasing errors kept on the result with its rows
// (include/gpuprobe/core/analysis_guard.hpp).
#include "gpuprobe/core/analysis_guard.hpp"

#include <fmt/format.h>

#include <exception>

#include "gpuprobe/core/interrupt.hpp"

namespace gpuprobe {
namespace {

void mark_failed(ProbeResult& result, const char* step, const std::exception& e) {
  result.status = Status::kFailed;
  const std::string why = fmt::format("{} failed: {}", step, e.what());
  result.reason = result.reason.empty() ? why : result.reason + "; " + why;
}

}  // namespace

void analyse_keeping_rows(ProbeResult& result, const std::function<void()>& analyse) {
  try {
    analyse();
  } catch (const InterruptedError&) {
    throw;
  } catch (const std::exception& e) {
    mark_failed(result, "analysis", e);
  }
}

void phrase_keeping_rows(ProbeResult& result, const Glossary& glossary) {
  try {
    phrase_findings(result, glossary);
  } catch (const InterruptedError&) {
    throw;
  } catch (const std::exception& e) {
    mark_failed(result, "phrasing", e);
  }
}

}  // namespace gpuprobe

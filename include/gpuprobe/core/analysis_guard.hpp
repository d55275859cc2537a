// A probe's analysis and phrasing that cannot throw its measured rows away: an error in either (a
// finding asking for a value or param its rows did not give it, a sentence asking for a key its
// finding lacks) marks the result failed, names the cause, and keeps the rows and every finding
// made before it.
#pragma once

#include <functional>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Runs `analyse` (which adds findings to `result` from its rows). On an error the result becomes
// failed with the reason "analysis failed: <what>", rows kept. A stop by SIGINT/SIGTERM
// (InterruptedError) still propagates.
void analyse_keeping_rows(ProbeResult& result, const std::function<void()>& analyse);

// phrase_findings, but an error marks the result failed ("phrasing failed: <what>", the
// finding's id in <what>), rows kept; findings phrased before it keep their sentences.
void phrase_keeping_rows(ProbeResult& result, const Glossary& glossary);

}  // namespace gpuprobe

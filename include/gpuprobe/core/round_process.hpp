// One round of a batch measured by a child process (`gpuprobe __round`): spawn, wait, answer.
#pragma once

#include <string>

#include "gpuprobe/core/round_request.hpp"

namespace gpuprobe {

// Runs `executable __round REQUEST ANSWER` with the request and answer in a private temporary
// folder (removed afterwards) and the child's stderr kept for its error line; waits for it,
// passing SIGINT/SIGTERM on (the child is stopped, then InterruptedError is thrown). Returns the
// child's answer (its wrong_result set when it found wrong data); throws RunError naming the round
// and the child's own error line when it failed otherwise.
RoundAnswer run_round_process(const std::string& executable, const RoundRequest& request);

}  // namespace gpuprobe

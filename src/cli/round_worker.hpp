// `gpuprobe __round REQUEST ANSWER`: the child process that measures one round of a batch for
// its parent run (docs/method.md, "Rounds in processes"); not a user command.
#pragma once

#include <string>

namespace gpuprobe::cli {

// The hidden subcommand's name: argv[1] of a round process.
inline constexpr const char* kRoundWorkerCommand = "__round";

// Reads the RoundRequest at `request_path`, measures its round of its points with the named
// probe on its device and writes the RoundAnswer to `answer_path` (also when a point's data was
// wrong: the answer says so, exit 1). Dies with its parent (PR_SET_PDEATHSIG). Errors throw
// like any command's (one line on stderr, the documented exit code).
int run_round_worker(const std::string& request_path, const std::string& answer_path);

// The path of this gpuprobe binary (/proc/self/exe), for round processes; empty when unknown.
std::string own_executable();

}  // namespace gpuprobe::cli

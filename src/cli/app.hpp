// The gpuprobe command line: builds the CLI11 app, runs the chosen command, returns the exit code.
#pragma once

namespace gpuprobe::cli {

// Parses argv and runs the command. Returns the process exit code; throws gpuprobe::Error
// for failures that end the run (main turns them into one line on stderr).
int run(int argc, char** argv);

}  // namespace gpuprobe::cli

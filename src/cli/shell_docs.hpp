// The man page gpuprobe(1) and the bash and zsh completions, generated from the CLI11 app that
// parses the command line, so that they never drift from `--help`: `gpuprobe __man` and
// `gpuprobe __completions bash|zsh` print them (the build runs both; the package installs them).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gpuprobe::cli {

inline constexpr const char* kManCommand = "__man";
inline constexpr const char* kCompletionsCommand = "__completions";

// roff source of gpuprobe(1): name, synopsis, the global options, every command with its
// description and options, the exit status (the app's footer), files.
std::string man_page(const CLI::App& app, const std::string& version);

// A bash completion script (`shell` "bash") or a zsh one ("zsh", through bashcompinit): the
// commands, then per command its options and the global ones, then file names.
// Throws UsageError for any other shell.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace gpuprobe::cli

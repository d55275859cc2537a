// Finding and running the report's drawing script: interpreter, script folder, subprocess.
#include "report_python.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "install_paths.hpp"

extern char** environ;

namespace gpuprobe::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInstallHint =
    "install matplotlib for Python 3: `apt-get install python3-matplotlib` (Debian, Ubuntu), "
    "`dnf install python3-matplotlib` (Fedora, RHEL) or `python3 -m pip install matplotlib`; "
    "or point GPUPROBE_PYTHON at an interpreter that has it";

}  // namespace

std::string report_script_dir() {
  if (const char* env = std::getenv("GPUPROBE_REPORT_DIR"); env && *env) return env;
  if (const auto installed = installed_data("python/gpuprobe_report/__main__.py"))
    return fs::path(*installed).parent_path().string();
  return GPUPROBE_REPORT_SOURCE_DIR;
}

int run_program(const std::string& program, const std::vector<std::string>& args, bool silent) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (silent) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
    if (interrupt_signal() == 0) continue;
    // SIGINT/SIGTERM (at gpuprobe alone, or at the terminal's whole group): the child is ended
    // too, waited for, and the run stops as any other (130 or 143, nothing written).
    ::kill(pid, SIGTERM);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw_if_interrupted();
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string find_report_python() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("GPUPROBE_PYTHON"); env && *env)
    candidates.push_back(env);
  else
    candidates = {"python3", "/usr/bin/python3"};
  std::vector<std::string> tried;
  for (const auto& python : candidates) {
    const int rc = run_program(python, {"-c", "import matplotlib"}, true);
    if (rc == 0) return python;
    tried.push_back(fmt::format("{} ({})", python, rc == 127 ? "not found" : "no matplotlib"));
  }
  throw Error(ExitCode::kNoDevice,
              fmt::format("report: needs Python 3 with matplotlib, and none was found (tried {}): "
                          "{}",
                          fmt::join(tried, ", "), kInstallHint));
}

}  // namespace gpuprobe::cli

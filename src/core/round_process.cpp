// Spawns the round process, waits for it (passing interrupts on) and reads its answer back.
#include "gpuprobe/core/round_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/json_io.hpp"

extern char** environ;

namespace gpuprobe {
namespace {

// A private folder under $TMPDIR (or /tmp), removed with what it holds when the scope ends.
class TempFolder {
 public:
  TempFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/gpuprobe-round-XXXXXX", base && *base ? base : "/tmp");
    if (::mkdtemp(pattern.data()) == nullptr)
      throw RunError(fmt::format("cannot make a temporary folder for a round process: {}",
                                 std::strerror(errno)));
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

pid_t spawn(const std::string& executable, const std::vector<std::string>& args,
            const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw RunError(
        fmt::format("cannot start a round process ({}): {}", executable, std::strerror(rc)));
  return pid;
}

// Waits for the child; on SIGINT/SIGTERM stops it first, then throws InterruptedError.
int wait_for(pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR)
      throw RunError(fmt::format("waiting for a round process: {}", std::strerror(errno)));
    if (interrupt_signal() != 0) {
      ::kill(pid, SIGTERM);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw_if_interrupted();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// The child's own error line ("gpuprobe: error: " dropped), or how it ended.
std::string child_failure(int status, const std::string& stderr_path) {
  std::ifstream in(stderr_path);
  std::string line;
  std::string last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  for (const char* prefix : {"gpuprobe: error: ", "gpuprobe: "})
    if (last.rfind(prefix, 0) == 0) last = last.substr(std::strlen(prefix));
  const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                              : fmt::format("exit {}", WEXITSTATUS(status));
  return last.empty() ? how : fmt::format("{} ({})", printable(last), how);
}

}  // namespace

RoundAnswer run_round_process(const std::string& executable, const RoundRequest& request) {
  const TempFolder folder;
  const std::string request_path = folder.file("request.json");
  const std::string answer_path = folder.file("answer.json");
  const std::string stderr_path = folder.file("stderr.txt");
  write_output(request_path, to_json(request).dump());
  const pid_t pid =
      spawn(executable, {executable, "__round", request_path, answer_path}, stderr_path);
  const int status = wait_for(pid);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::error_code looked;  // a path that cannot be examined counts as no answer, never a throw
  if (ok || std::filesystem::exists(answer_path, looked)) {
    RoundAnswer answer;
    try {
      answer = round_answer_from_json(read_json_file(answer_path), answer_path, request.round);
    } catch (const UsageError& e) {
      throw RunError(fmt::format("the process measuring round {} of {} answered badly: {}",
                                 request.round + 1, request.rounds, e.what()));
    }
    if (ok || !answer.wrong_result.empty()) return answer;
  }
  throw RunError(fmt::format("the process measuring round {} of {} failed: {}", request.round + 1,
                             request.rounds, child_failure(status, stderr_path)));
}

}  // namespace gpuprobe

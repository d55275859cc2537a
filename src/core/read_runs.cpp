// Reading the result files a command is given: each distinct file once, on several threads.
#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

// The file behind a path (device and inode), so that two names of one file (a link, ./a.json
// and a.json, one named pipe given twice) are one input; a path that cannot be looked up is its
// own (reading it says why).
using Identity = std::pair<dev_t, ino_t>;

std::vector<std::size_t> first_of_each(const std::vector<std::string>& paths) {
  std::vector<std::size_t> first(paths.size());
  std::map<Identity, std::size_t> seen;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    struct stat st {};
    first[i] = i;
    if (::stat(paths[i].c_str(), &st) != 0) continue;
    first[i] = seen.emplace(Identity{st.st_dev, st.st_ino}, i).first->second;
  }
  return first;
}

// Calls read(i) for the first path of each distinct file, on up to 8 threads, then copy(i, j)
// for each later path i of the file first named at j; rethrows the first error in path order.
void read_each(const std::vector<std::string>& paths, const std::function<void(std::size_t)>& read,
               const std::function<void(std::size_t, std::size_t)>& copy) {
  const std::vector<std::size_t> first = first_of_each(paths);
  std::vector<std::exception_ptr> errors(paths.size());
  // Threads only where there are files enough to share: a pair is read faster without them.
  constexpr std::size_t kFilesPerThread = 4;
  const std::size_t threads = std::clamp<std::size_t>(
      std::min<std::size_t>(std::thread::hardware_concurrency(), paths.size() / kFilesPerThread), 1,
      8);
  auto work = [&](std::size_t from) {
    bool stop = false;  // read in order by one thread: nothing after the first error
    for (std::size_t i = from; i < paths.size() && !stop; i += threads) {
      if (first[i] != i) continue;
      try {
        throw_if_interrupted();
        read(i);
      } catch (...) {
        errors[i] = std::current_exception();
        stop = threads == 1;
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back(work, t);
  } catch (...) {
    // No more threads: this one reads what the others would have (below).
  }
  work(0);
  for (auto& t : pool)
    t.join();
  for (std::size_t t = pool.size() + 1; t < threads; ++t)
    work(t);
  throw_if_interrupted();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (errors[first[i]]) std::rethrow_exception(errors[first[i]]);
    if (first[i] != i) copy(i, first[i]);
  }
}

}  // namespace

std::vector<nlohmann::ordered_json> read_json_files(const std::vector<std::string>& paths) {
  std::vector<nlohmann::ordered_json> out(paths.size());
  read_each(
      paths, [&](std::size_t i) { out[i] = read_json_file(paths[i]); },
      [&](std::size_t i, std::size_t j) { out[i] = out[j]; });
  return out;
}

std::vector<RunReport> read_report_files(const std::vector<std::string>& paths) {
  std::vector<RunReport> out(paths.size());
  read_each(
      paths, [&](std::size_t i) { out[i] = read_report_file(paths[i]); },
      [&](std::size_t i, std::size_t j) { out[i] = out[j]; });
  return out;
}

}  // namespace gpuprobe

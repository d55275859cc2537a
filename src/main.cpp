// gpuprobe's entry point: runs the CLI and turns any error into one line and an exit code (its
// control characters escaped: a message may quote a file's text).
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/app.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/trace.hpp"

int main(int argc, char** argv) {
  gpuprobe::install_interrupt_handlers();
  gpuprobe::trace("start");
  try {
    const int code = gpuprobe::cli::run(argc, argv);
    // A write to stdout that failed (a full disk, /dev/full) must not end in exit 0 with the
    // data lost.
    std::cout.flush();
    if (!std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << "gpuprobe: error: could not write to standard output (a full disk?): the "
                   "output is incomplete\n";
      return static_cast<int>(gpuprobe::ExitCode::kUsage);
    }
    return code;
  } catch (const gpuprobe::InterruptedError& e) {
    std::cerr << fmt::format("\ngpuprobe: {}\n", e.what());
    return static_cast<int>(e.code());
  } catch (const gpuprobe::Error& e) {
    std::cerr << fmt::format("gpuprobe: error: {}\n",
                             gpuprobe::bounded_message(gpuprobe::printable(e.what())));
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "gpuprobe: error: out of host memory; make the sweep smaller\n";
    return static_cast<int>(gpuprobe::ExitCode::kRunFailure);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("gpuprobe: error: {}\n",
                             gpuprobe::bounded_message(gpuprobe::printable(e.what())));
    return static_cast<int>(gpuprobe::ExitCode::kRunFailure);
  }
}

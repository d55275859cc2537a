// A developer's timeline of where a run spends its wall time: with GPUPROBE_TRACE=1 in the
// environment, each call prints one line to stderr (GPUPROBE_TRACE=/path: appended to that file),
// stamped with the seconds since the process started.
#pragma once

#include <string_view>

namespace gpuprobe {

// True when GPUPROBE_TRACE is set (read once).
bool trace_on();
// "gpuprobe-trace <pid> <seconds>: <what>" on stderr when tracing; nothing otherwise. Never
// throws: a trace line that cannot be written (stderr closed or full) is dropped.
void trace(std::string_view what) noexcept;

}  // namespace gpuprobe

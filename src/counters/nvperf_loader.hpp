// Loads libnvperf_host.so on first use, so that programs linking CUPTI start fast.
#pragma once

namespace gpuprobe::counters::detail {

// libcupti dlopens libnvperf_host.so by its bare name, and a RUNPATH does not cover that; linking
// it instead costs every start of gpuprobe ~50 ms of its static initialisers (even --help). So it
// is loaded here, by full path when needed, before the first profiler call: CUPTI's own dlopen
// then finds it already loaded (same soname). Throws CountersUnavailable when it is nowhere.
void load_nvperf_host();

}  // namespace gpuprobe::counters::detail

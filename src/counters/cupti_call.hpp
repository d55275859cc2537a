// Internal: CUPTI includes and the check that turns a failed CUPTI call into CountersUnavailable.
#pragma once

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

namespace gpuprobe::counters::detail {

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" (or "CUPTI error 35" when CUPTI has no name for it).
std::string result_name(CUptiResult result);

// Reason and hint for a failed call, with the call named: "cuptiRangeProfilerEnable failed:
// ...". Known codes get a specific reason and a hint how to enable counters.
[[noreturn]] void throw_cupti(CUptiResult result, const char* call);

// A zero-initialised CUPTI parameter struct with structSize set from its _STRUCT_SIZE macro.
template <typename Params>
Params params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  p.pPriv = nullptr;
  return p;
}

}  // namespace gpuprobe::counters::detail

#define GP_CUPTI_PARAMS(type) ::gpuprobe::counters::detail::params<type>(type##_STRUCT_SIZE)

#define GP_CUPTI(call, params_ref)                                        \
  do {                                                                    \
    const CUptiResult gp_cupti_status_ = call(&(params_ref));             \
    if (gp_cupti_status_ != CUPTI_SUCCESS)                                \
      ::gpuprobe::counters::detail::throw_cupti(gp_cupti_status_, #call); \
  } while (0)

// Internal: one CUPTI Profiler Host object (RAII), the unit behind catalogue, plans and evaluation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cupti_call.hpp"

namespace gpuprobe::counters::detail {

class HostObject {
 public:
  // Throws CountersUnavailable when CUPTI refuses (unknown chip, nvperf missing).
  HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  CUpti_Profiler_Host_Object* get() const { return object_; }

  // cuptiProfilerHostConfigAddMetrics; returns the CUPTI result (does not throw).
  CUptiResult try_add(const std::vector<std::string>& metrics);
  // As try_add, throwing CountersUnavailable on failure.
  void add(const std::vector<std::string>& metrics);
  // The config image of the metrics added so far.
  std::vector<std::uint8_t> config_image() const;

 private:
  std::string chip_;  // CUPTI keeps the pointer
  std::vector<std::uint8_t> availability_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Passes a config image needs.
std::size_t passes_of(const std::vector<std::uint8_t>& config_image);

// C-string pointers of `names` (valid while `names` lives).
std::vector<const char*> c_names(const std::vector<std::string>& names);

}  // namespace gpuprobe::counters::detail

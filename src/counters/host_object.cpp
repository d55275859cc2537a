// The CUPTI Profiler Host object wrapper: create, add metrics, config image, pass count.
#include "host_object.hpp"

#include "nvperf_loader.hpp"

namespace gpuprobe::counters::detail {

HostObject::HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability)
    : chip_(chip), availability_(availability) {
  load_nvperf_host();
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip_.c_str();
  p.pCounterAvailabilityImage = availability_.empty() ? nullptr : availability_.data();
  GP_CUPTI(cuptiProfilerHostInitialize, p);
  object_ = p.pHostObject;
}

HostObject::~HostObject() {
  if (object_ == nullptr) return;
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  p.pHostObject = object_;
  cuptiProfilerHostDeinitialize(&p);  // nothing useful to do with a failure here
}

CUptiResult HostObject::try_add(const std::vector<std::string>& metrics) {
  std::vector<const char*> names = c_names(metrics);
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  p.pHostObject = object_;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

void HostObject::add(const std::vector<std::string>& metrics) {
  const CUptiResult status = try_add(metrics);
  if (status != CUPTI_SUCCESS) throw_cupti(status, "cuptiProfilerHostConfigAddMetrics");
}

std::vector<std::uint8_t> HostObject::config_image() const {
  auto size = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = object_;
  GP_CUPTI(cuptiProfilerHostGetConfigImageSize, size);
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  get.pHostObject = object_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  GP_CUPTI(cuptiProfilerHostGetConfigImage, get);
  return image;
}

std::size_t passes_of(const std::vector<std::uint8_t>& config_image) {
  std::vector<std::uint8_t> copy = config_image;  // CUPTI takes a non-const pointer
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = copy.size();
  p.pConfigImage = copy.data();
  GP_CUPTI(cuptiProfilerHostGetNumOfPasses, p);
  return p.numOfPasses;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& name : names)
    out.push_back(name.c_str());
  return out;
}

}  // namespace gpuprobe::counters::detail

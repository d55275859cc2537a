// The JSON renderer: the report's JSON form (json_write.cpp), pretty-printed.
#include <string>

#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"

namespace gpuprobe {

std::string render_json(const RunReport& report) {
  return to_json(report).dump(2) + "\n";
}

}  // namespace gpuprobe

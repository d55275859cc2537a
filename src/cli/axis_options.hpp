// A probe's axes as CLI11 flags: one option per axis (plus a switch per choice where asked),
// read back after parsing as the text the user gave.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "gpuprobe/core/axes.hpp"

namespace gpuprobe::cli {

class AxisOptions {
 public:
  // Adds the flags of `axes` to `command`.
  AxisOptions(CLI::App& command, std::vector<Axis> axes);
  AxisOptions(const AxisOptions&) = delete;
  AxisOptions& operator=(const AxisOptions&) = delete;

  const std::vector<Axis>& axes() const { return axes_; }
  // What was given on the command line (call after parsing).
  AxisInput input() const;

 private:
  std::vector<Axis> axes_;
  std::map<std::string, std::string> text_;  // node-based: addresses stay valid for CLI11
  std::map<std::string, CLI::Option*> options_;
  std::map<std::string, std::map<std::string, CLI::Option*>> choice_switches_;
};

}  // namespace gpuprobe::cli

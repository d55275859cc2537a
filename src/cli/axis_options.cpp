// Binds a probe's axes to CLI11 options and reads back what was given.
#include "axis_options.hpp"

#include <fmt/format.h>

namespace gpuprobe::cli {
namespace {

const char* type_name(const Axis& axis) {
  switch (axis.kind) {
    case AxisKind::kList:
      return axis.number == NumberKind::kSize ? "SIZES" : "LIST";
    case AxisKind::kNumber:
      return axis.number == NumberKind::kSize ? "SIZE" : "N";
    case AxisKind::kChoice:
      return "CHOICES";
    case AxisKind::kSwitch:
      return "";
  }
  return "";
}

}  // namespace

AxisOptions::AxisOptions(CLI::App& command, std::vector<Axis> axes) : axes_(std::move(axes)) {
  for (const Axis& axis : axes_) {
    const std::string flag = "--" + axis.name;
    if (axis.kind == AxisKind::kSwitch) {
      options_[axis.name] = command.add_flag(flag)->description(axis_help(axis));
      continue;
    }
    options_[axis.name] = command.add_option(flag, text_[axis.name], axis_help(axis))
                              ->type_name(type_name(axis))
                              ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    if (axis.kind == AxisKind::kChoice && axis.switch_per_choice) {
      for (const auto& token : axis.choices) {
        choice_switches_[axis.name][token] =
            command.add_flag("--" + token)
                ->description(fmt::format("same as --{} {} (combine freely)", axis.name, token));
      }
    }
  }
}

AxisInput AxisOptions::input() const {
  AxisInput in;
  for (const Axis& axis : axes_) {
    const CLI::Option* option = options_.at(axis.name);
    if (option->count() == 0) {
      // not given
    } else if (axis.kind == AxisKind::kSwitch) {
      in.switches.insert(axis.name);
    } else {
      in.text[axis.name] = text_.at(axis.name);
    }
    const auto switches = choice_switches_.find(axis.name);
    if (switches == choice_switches_.end()) continue;
    for (const auto& [token, flag] : switches->second) {
      if (flag->count() > 0) in.choice_switches[axis.name].insert(token);
    }
  }
  return in;
}

}  // namespace gpuprobe::cli

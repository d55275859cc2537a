// Sweep axes: what a probe varies, declared as data. The CLI flags, --plan, the params echo and
// the validation of every value come from the axes; no probe parses its own flags.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

enum class AxisKind {
  kList,    // numbers, each a value or a range: "1,2,4", "0:32", "0:32:4", "4KiB:256MiB:x4"
  kNumber,  // one number: "8192"
  kChoice,  // tokens of a fixed set, comma-separated; "all" selects every token
  kSwitch,  // on or off: a flag without a value
};

// What the numbers of a list or number axis are, so parsing and messages use the right words.
enum class NumberKind {
  kCount,  // plain non-negative integers ("32"); no units
  kSize,   // byte sizes ("64MiB", "4KiB", "1GB")
};

// One axis. `name` is the flag (`--name`) and the key in the params echo. Bounds apply to every
// number of a list or number axis; `validate` adds what bounds cannot say (returns "" when the
// value is fine, else what is wrong: "is not a multiple of 4 bytes").
struct Axis {
  std::string name;
  AxisKind kind = AxisKind::kList;
  std::string help;
  std::string default_text;               // as typed on the command line ("4KiB:256MiB:x4")
  std::optional<std::string> quick_text;  // the default of `gpuprobe all`; nullopt: default_text
  std::string unit;                       // of the numbers: "B", "elements" (shown in help)
  NumberKind number = NumberKind::kCount;
  std::uint64_t min = 0;
  std::uint64_t max = UINT64_MAX;
  std::size_t max_items = 4096;
  std::function<std::string(std::uint64_t)> validate;
  std::vector<std::string> choices;  // kChoice: the tokens, in their canonical order
  // kChoice: each token is also a switch (`--pinned` for memory's "pinned"). When the axis or any
  // of its switches is given, the selection is the union of what was given; else the default.
  bool switch_per_choice = false;
};

// Builders for the common shapes (fields can be adjusted afterwards).
Axis list_axis(std::string name, std::string help, std::string default_text,
               std::optional<std::string> quick_text = std::nullopt);
Axis size_list_axis(std::string name, std::string help, std::string default_text,
                    std::optional<std::string> quick_text = std::nullopt);
Axis number_axis(std::string name, std::string help, std::string default_text,
                 std::optional<std::string> quick_text = std::nullopt);
// One byte size ("64MiB"), as size_list_axis is a list of them.
Axis size_axis(std::string name, std::string help, std::string default_text,
               std::optional<std::string> quick_text = std::nullopt);
Axis choice_axis(std::string name, std::string help, std::vector<std::string> choices,
                 std::string default_text, std::optional<std::string> quick_text = std::nullopt);
Axis switch_axis(std::string name, std::string help);

// A `validate` that accepts the multiples of `unit` and names it as `what` otherwise:
// multiple_of(4, "4 bytes")(6) is "6 is not a multiple of 4 bytes".
std::function<std::string(std::uint64_t)> multiple_of(std::uint64_t unit, std::string what);

// What the command line said about the axes, before parsing: the text given per axis, and the
// switches given (axis switches by axis name, per-choice switches by their token).
struct AxisInput {
  std::map<std::string, std::string> text;  // axis name -> text given (absent: not given)
  std::set<std::string> switches;           // axis names of kSwitch axes given
  std::map<std::string, std::set<std::string>> choice_switches;  // axis -> tokens switched on
};

// The parsed values of a probe's axes.
class AxisValues {
 public:
  const std::vector<std::uint64_t>& list(const std::string& name) const;
  std::uint64_t number(const std::string& name) const;
  const std::vector<std::string>& choices(const std::string& name) const;
  bool has_choice(const std::string& name, const std::string& token) const;
  bool on(const std::string& name) const;
  // The text in force (given, else the default in force), e.g. for the params echo.
  const std::string& text(const std::string& name) const;
  // Whether the user gave the axis (its flag, or one of its per-choice switches).
  bool given(const std::string& name) const;

  // Set by resolve_axes.
  struct Value {
    AxisKind kind = AxisKind::kList;
    std::string text;
    bool given = false;
    std::vector<std::uint64_t> numbers;
    std::vector<std::string> tokens;
    bool on = false;
  };
  std::map<std::string, Value> values;

 private:
  const Value& at(const std::string& name, AxisKind kind) const;
};

// Parses and checks every axis: given text, else the quick default (quick = `gpuprobe all`),
// else the default. Throws UsageError naming the flag ("--sizes: ...") on a bad value.
AxisValues resolve_axes(const std::vector<Axis>& axes, const AxisInput& input, bool quick);

// The run parameters echoed into a result: one param per axis, its text in force.
std::vector<Param> axis_params(const std::vector<Axis>& axes, const AxisValues& values);

// The help line of an axis as `--help` shows it: help, the accepted tokens or form, the default
// and the quick default when it differs.
std::string axis_help(const Axis& axis);

}  // namespace gpuprobe

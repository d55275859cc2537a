// The help text's option column as a person writes it: `--samples N`, `--json FILE`,
// `--counters,--no-counters`, without CLI11's type noise (UINT:UINT in [...], FLOAT:FINITE:...,
// {false}, "=default", " ..."); an option's default goes into its description as [default: X].
// Every line fits 120 columns: option lines continue under their description (help_wrap.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "help_wrap.hpp"

namespace gpuprobe::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return wrap_help(CLI::Formatter::make_help(app, std::move(name), mode), kHelpWidth,
                     get_column_width());
  }

  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    // A negatable flag lists its forms with their values: "--counters,--no-counters{false}".
    for (auto open = name.find('{'); open != std::string::npos; open = name.find('{')) {
      const auto close = name.find('}', open);
      if (close == std::string::npos) break;
      name.erase(open, close - open + 1);
    }
    return name;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0 || opt->get_type_name().empty()) return {};
    return " " + opt->get_type_name();  // validators have no description: the name given only
  }

  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    const std::string value = opt->get_default_str();
    if (opt->get_type_size() != 0 && !value.empty() && desc.find("[default") == std::string::npos)
      desc += " [default: " + value + "]";
    return desc;
  }
};

}  // namespace gpuprobe::cli

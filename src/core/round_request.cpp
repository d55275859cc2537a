// The JSON form of a round process's request and answer, and merging its round into a sample set.
#include "gpuprobe/core/round_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe {
namespace {

nlohmann::json rule_to_json(const StoppingRule& r) {
  nlohmann::json j = {{"min_samples", r.min_samples},
                      {"min_time", r.min_time},
                      {"max_noise", r.max_noise},
                      {"max_time", r.max_time},
                      {"max_samples", r.max_samples}};
  if (r.fixed_samples) j["fixed_samples"] = *r.fixed_samples;
  return j;
}

StoppingRule rule_from_json(const nlohmann::ordered_json& j) {
  StoppingRule r;
  r.min_samples = j.at("min_samples").get<std::size_t>();
  r.min_time = j.at("min_time").get<double>();
  r.max_noise = j.at("max_noise").get<double>();
  r.max_time = j.at("max_time").get<double>();
  r.max_samples = j.at("max_samples").get<std::size_t>();
  if (j.contains("fixed_samples")) r.fixed_samples = j.at("fixed_samples").get<std::size_t>();
  return r;
}

nlohmann::json set_to_json(const SampleSet& s) {
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& lane : s.lanes)
    lanes.push_back({{"name", lane.name}, {"bytes", lane.bytes}, {"seconds", lane.seconds}});
  return {{"seconds", s.seconds}, {"rounds", s.rounds}, {"lanes", lanes}, {"flags", s.flags}};
}

// A set read back, each lane with one time per sample; every sample's round must pass `fits`.
template <typename Fits>
SampleSet set_from_json(const nlohmann::ordered_json& j, Fits fits) {
  SampleSet s;
  s.seconds = j.at("seconds").get<std::vector<double>>();
  s.rounds = j.at("rounds").get<std::vector<std::uint32_t>>();
  s.flags = j.at("flags").get<std::vector<std::string>>();
  for (const auto& lane : j.at("lanes")) {
    s.lanes.push_back({lane.at("name").get<std::string>(), lane.at("bytes").get<double>(),
                       lane.at("seconds").get<std::vector<double>>()});
    if (s.lanes.back().seconds.size() != s.seconds.size())
      throw std::invalid_argument("a lane's samples do not match the set's");
  }
  if (s.rounds.size() != s.seconds.size())
    throw std::invalid_argument("the rounds do not match the samples");
  if (!std::all_of(s.rounds.begin(), s.rounds.end(), fits))
    throw std::invalid_argument("a sample of another round");
  return s;
}

nlohmann::json values_to_json(const AxisValues& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, v] : values.values)
    out[name] = {{"kind", static_cast<int>(v.kind)},
                 {"text", v.text},
                 {"given", v.given},
                 {"numbers", v.numbers},
                 {"tokens", v.tokens},
                 {"on", v.on}};
  return out;
}

AxisValues values_from_json(const nlohmann::ordered_json& j) {
  AxisValues out;
  for (const auto& [name, v] : j.items()) {
    const int kind = v.at("kind").get<int>();
    if (kind < static_cast<int>(AxisKind::kList) || kind > static_cast<int>(AxisKind::kSwitch))
      throw std::invalid_argument(fmt::format("axis '{}' of unknown kind {}", name, kind));
    out.values[name] = {static_cast<AxisKind>(kind),
                        v.at("text").get<std::string>(),
                        v.at("given").get<bool>(),
                        v.at("numbers").get<std::vector<std::uint64_t>>(),
                        v.at("tokens").get<std::vector<std::string>>(),
                        v.at("on").get<bool>()};
  }
  return out;
}

nlohmann::json sets_to_json(const std::vector<SampleSet>& sets) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : sets)
    out.push_back(set_to_json(s));
  return out;
}

// Runs `read`, turning what nlohmann or a check throws into one UsageError naming `origin`.
template <typename F>
auto read_or_usage_error(const std::string& origin, F read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  }
}

}  // namespace

nlohmann::json to_json(const RoundRequest& q) {
  nlohmann::json j{{"probe", q.probe},
                   {"device", q.device},
                   {"keys", q.keys},
                   {"round", q.round},
                   {"rounds", q.rounds},
                   {"seed", q.seed},
                   {"batch", q.batch},
                   {"rule", rule_to_json(q.rule)},
                   {"warmup_batches", q.warmup_batches},
                   {"target_batch_seconds", q.target_batch_seconds},
                   {"max_batch", q.max_batch},
                   {"earlier", sets_to_json(q.earlier)},
                   {"values", values_to_json(q.values)}};
  if (!q.devices.empty()) j["devices"] = q.devices;
  return j;
}

RoundRequest round_request_from_json(const nlohmann::ordered_json& j, const std::string& origin) {
  return read_or_usage_error(origin, [&] {
    RoundRequest q;
    q.probe = j.at("probe").get<std::string>();
    q.device = j.at("device").get<int>();
    if (j.contains("devices")) q.devices = j.at("devices").get<std::vector<int>>();
    q.keys = j.at("keys").get<std::vector<std::string>>();
    q.round = j.at("round").get<std::uint32_t>();
    q.rounds = j.at("rounds").get<std::size_t>();
    q.seed = j.at("seed").get<std::uint64_t>();
    q.batch = j.at("batch").get<std::uint64_t>();
    q.rule = rule_from_json(j.at("rule"));
    q.warmup_batches = j.at("warmup_batches").get<std::size_t>();
    q.target_batch_seconds = j.at("target_batch_seconds").get<double>();
    q.max_batch = j.at("max_batch").get<std::size_t>();
    q.values = values_from_json(j.at("values"));
    if (q.rounds == 0 || q.round >= q.rounds)
      throw std::invalid_argument(fmt::format("round {} of {}", q.round, q.rounds));
    for (const auto& s : j.at("earlier"))
      q.earlier.push_back(set_from_json(s, [&](std::uint32_t r) { return r < q.round; }));
    if (!q.earlier.empty() && q.earlier.size() != q.keys.size())
      throw std::invalid_argument("earlier samples for some points only");
    return q;
  });
}

nlohmann::json to_json(const RoundAnswer& a) {
  nlohmann::json j = {{"sets", sets_to_json(a.sets)}};
  if (!a.wrong_result.empty()) j["wrong_result"] = a.wrong_result;
  return j;
}

RoundAnswer round_answer_from_json(const nlohmann::ordered_json& j, const std::string& origin,
                                   std::uint32_t round) {
  return read_or_usage_error(origin, [&] {
    RoundAnswer a;
    if (j.contains("wrong_result")) a.wrong_result = j.at("wrong_result").get<std::string>();
    for (const auto& s : j.at("sets")) {
      a.sets.push_back(set_from_json(s, [&](std::uint32_t r) { return r == round; }));
      if (a.sets.back().seconds.empty()) throw std::invalid_argument("a set without samples");
    }
    return a;
  });
}

SampleSet samples_of_round(const SampleSet& set, std::uint32_t round) {
  SampleSet out;
  out.flags = set.flags;
  for (const auto& lane : set.lanes) {
    if (lane.seconds.size() != set.seconds.size())
      throw std::invalid_argument("a lane's samples do not match the set's");
    out.lanes.push_back({lane.name, lane.bytes, {}});
  }
  std::vector<double> lanes(set.lanes.size());
  for (std::size_t i = 0; i < set.seconds.size(); ++i) {
    if ((i < set.rounds.size() ? set.rounds[i] : 0) != round) continue;
    for (std::size_t l = 0; l < set.lanes.size(); ++l)
      lanes[l] = set.lanes[l].seconds[i];
    out.add(round, set.seconds[i], lanes);
  }
  return out;
}

void append_round(SampleSet& into, const SampleSet& part) {
  if (into.seconds.empty() && into.lanes.empty()) {
    for (const auto& lane : part.lanes)
      into.lanes.push_back({lane.name, lane.bytes, {}});
  }
  if (into.lanes.size() != part.lanes.size())
    throw std::invalid_argument("a round's lanes differ from the earlier rounds'");
  for (std::size_t l = 0; l < part.lanes.size(); ++l) {
    if (into.lanes[l].name != part.lanes[l].name)
      throw std::invalid_argument("a round's lanes differ from the earlier rounds'");
    auto& dst = into.lanes[l].seconds;
    dst.insert(dst.end(), part.lanes[l].seconds.begin(), part.lanes[l].seconds.end());
  }
  into.rounds.resize(into.seconds.size(), 0);  // empty rounds: every sample so far in round 0
  into.seconds.insert(into.seconds.end(), part.seconds.begin(), part.seconds.end());
  if (part.rounds.empty())
    into.rounds.resize(into.seconds.size(), 0);
  else
    into.rounds.insert(into.rounds.end(), part.rounds.begin(), part.rounds.end());
  for (const auto& flag : part.flags) {
    if (flag == "noisy") continue;
    if (std::find(into.flags.begin(), into.flags.end(), flag) == into.flags.end())
      into.flags.push_back(flag);
  }
}

}  // namespace gpuprobe

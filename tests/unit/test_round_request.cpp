// Round processes' wire format: request and answer JSON both ways, refusals, merging a round.
#include <gtest/gtest.h>

#include <stdexcept>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/round_request.hpp"

namespace gpuprobe {
namespace {

nlohmann::ordered_json reparsed(const nlohmann::json& j) {
  return parse_json_text(j.dump(), "test");
}

SampleSet one_round(std::uint32_t round, std::vector<double> seconds, bool with_lane = true) {
  SampleSet s;
  for (double x : seconds) {
    const std::vector<double> lanes =
        with_lane ? std::vector<double>{x / 2} : std::vector<double>{};
    if (s.lanes.empty() && with_lane) s.lanes.push_back({"h2d", 4096, {}});
    s.add(round, x, lanes);
  }
  return s;
}

RoundRequest request(std::string probe, std::vector<std::string> keys, std::uint32_t round,
                     std::size_t rounds) {
  RoundRequest q;
  q.probe = std::move(probe);
  q.keys = std::move(keys);
  q.round = round;
  q.rounds = rounds;
  return q;
}

TEST(RoundRequest, RoundTripsEveryField) {
  RoundRequest q = request("transfer", {"pinned d2h 4096", "wc h2d 65536"}, 3, 5);
  q.device = 2;
  q.seed = 123456789;
  q.batch = 7;
  q.rule.fixed_samples = 11;
  q.rule.max_time = 0.25;
  q.warmup_batches = 2;
  q.target_batch_seconds = 2e-3;
  q.max_batch = 64;
  const RoundRequest back = round_request_from_json(reparsed(to_json(q)), "test");
  EXPECT_EQ(back.probe, "transfer");
  EXPECT_EQ(back.device, 2);
  EXPECT_EQ(back.keys, q.keys);
  EXPECT_EQ(back.round, 3u);
  EXPECT_EQ(back.rounds, 5u);
  EXPECT_EQ(back.seed, 123456789u);
  EXPECT_EQ(back.batch, 7u);
  EXPECT_EQ(back.rule.fixed_samples, std::optional<std::size_t>(11));
  EXPECT_DOUBLE_EQ(back.rule.max_time, 0.25);
  EXPECT_EQ(back.warmup_batches, 2u);
  EXPECT_DOUBLE_EQ(back.target_batch_seconds, 2e-3);
  EXPECT_EQ(back.max_batch, 64u);
  EXPECT_TRUE(back.devices.empty());
}

// The run's axis values travel as resolved, so the round process makes the same sweep.
TEST(RoundRequest, CarriesTheAxisValuesAsResolved) {
  const std::vector<Axis> axes = {
      choice_axis("memory", "kinds", {"pageable", "pinned", "wc"}, "all"),
      size_list_axis("sizes", "sizes", "4KiB:64KiB:x4"), switch_axis("timeline", "a switch")};
  AxisInput input;
  input.text["memory"] = "wc,pinned";
  input.switches.insert("timeline");
  RoundRequest q = request("transfer", {"memory=pinned bytes=4096"}, 0, 2);
  q.values = resolve_axes(axes, input, /*quick=*/false);
  const RoundRequest back = round_request_from_json(reparsed(to_json(q)), "test");
  EXPECT_EQ(back.values.choices("memory"), q.values.choices("memory"));
  EXPECT_TRUE(back.values.given("memory"));
  EXPECT_EQ(back.values.list("sizes"), (std::vector<std::uint64_t>{4096, 16384, 65536}));
  EXPECT_EQ(back.values.text("sizes"), "4KiB:64KiB:x4");
  EXPECT_TRUE(back.values.on("timeline"));
  auto j = to_json(q);
  j["values"]["sizes"]["kind"] = 9;
  EXPECT_THROW(round_request_from_json(reparsed(j), "req"), UsageError);
}

// A host-scoped probe's round carries the GPUs it spans; a device-scoped one's has no "devices".
TEST(RoundRequest, CarriesAHostScopedProbesDevices) {
  RoundRequest q = request("peer", {"0 1 ce uni 4096"}, 0, 2);
  EXPECT_FALSE(to_json(q).contains("devices"));
  q.devices = {0, 1};
  const RoundRequest back = round_request_from_json(reparsed(to_json(q)), "test");
  EXPECT_EQ(back.devices, (std::vector<int>{0, 1}));
}

TEST(RoundRequest, RefusesAMissingFieldOrARoundBeyondTheRounds) {
  RoundRequest q = request("transfer", {"pinned d2h 4096"}, 4, 5);
  auto j = to_json(q);
  j.erase("seed");
  EXPECT_THROW(round_request_from_json(reparsed(j), "req"), UsageError);
  q.round = 5;
  EXPECT_THROW(round_request_from_json(reparsed(to_json(q)), "req"), UsageError);
}

TEST(RoundRequest, CarriesTheEarlierRoundsSamplesButNoneOfItsOwnRound) {
  RoundRequest q = request("transfer", {"pinned d2h 4096", "wc h2d 65536"}, 2, 5);
  SampleSet two_rounds = one_round(0, {1e-6, 2e-6});
  append_round(two_rounds, one_round(1, {3e-6}));
  q.earlier = {two_rounds, one_round(1, {4e-6})};
  const RoundRequest back = round_request_from_json(reparsed(to_json(q)), "test");
  ASSERT_EQ(back.earlier.size(), 2u);
  EXPECT_EQ(back.earlier[0].seconds, (std::vector<double>{1e-6, 2e-6, 3e-6}));
  EXPECT_EQ(back.earlier[0].rounds, (std::vector<std::uint32_t>{0, 0, 1}));
  EXPECT_EQ(back.earlier[1].lanes[0].seconds, (std::vector<double>{2e-6}));
  q.earlier[1] = one_round(2, {4e-6});  // the request's own round: not earlier
  EXPECT_THROW(round_request_from_json(reparsed(to_json(q)), "test"), UsageError);
  q.earlier.pop_back();  // earlier samples for one point of two
  EXPECT_THROW(round_request_from_json(reparsed(to_json(q)), "test"), UsageError);
}

TEST(SamplesOfRound, KeepsOneRoundsSamplesWithTheirLanes) {
  SampleSet all = one_round(0, {1e-6, 2e-6});
  append_round(all, one_round(3, {3e-6, 4e-6}));
  all.flags = {"gate-timeout"};
  const SampleSet third = samples_of_round(all, 3);
  EXPECT_EQ(third.seconds, (std::vector<double>{3e-6, 4e-6}));
  EXPECT_EQ(third.rounds, (std::vector<std::uint32_t>{3, 3}));
  ASSERT_EQ(third.lanes.size(), 1u);
  EXPECT_EQ(third.lanes[0].seconds, (std::vector<double>{1.5e-6, 2e-6}));
  EXPECT_EQ(third.flags, all.flags);
  EXPECT_TRUE(samples_of_round(all, 1).seconds.empty());
  all.lanes.push_back({"again", 4096, {1e-6}});  // a lane with fewer samples than the set
  EXPECT_THROW(samples_of_round(all, 3), std::invalid_argument);
}

TEST(RoundAnswer, RoundTripsSetsAndAWrongResult) {
  RoundAnswer a;
  a.sets = {one_round(2, {1e-6, 2e-6, 3e-6})};
  a.sets[0].flags = {"gate-timeout"};
  a.wrong_result = "pinned d2h 4 KiB: 1 of 1024 words wrong";
  const RoundAnswer back = round_answer_from_json(reparsed(to_json(a)), "ans", 2);
  ASSERT_EQ(back.sets.size(), 1u);
  EXPECT_EQ(back.sets[0].seconds, a.sets[0].seconds);
  EXPECT_EQ(back.sets[0].rounds, (std::vector<std::uint32_t>{2, 2, 2}));
  ASSERT_EQ(back.sets[0].lanes.size(), 1u);
  EXPECT_EQ(back.sets[0].lanes[0].name, "h2d");
  EXPECT_EQ(back.sets[0].lanes[0].seconds, a.sets[0].lanes[0].seconds);
  EXPECT_EQ(back.sets[0].flags, (std::vector<std::string>{"gate-timeout"}));
  EXPECT_EQ(back.wrong_result, a.wrong_result);
}

TEST(RoundAnswer, RefusesSamplesOfAnotherRoundOrLanesOfAnotherLength) {
  RoundAnswer a;
  a.sets = {one_round(1, {1e-6, 2e-6})};
  EXPECT_NO_THROW(round_answer_from_json(reparsed(to_json(a)), "ans", 1));
  EXPECT_THROW(round_answer_from_json(reparsed(to_json(a)), "ans", 0), UsageError);
  a.sets[0].lanes[0].seconds.pop_back();
  EXPECT_THROW(round_answer_from_json(reparsed(to_json(a)), "ans", 1), UsageError);
  a.sets = {SampleSet{}};
  EXPECT_THROW(round_answer_from_json(reparsed(to_json(a)), "ans", 0), UsageError);
}

TEST(AppendRound, KeepsEachSamplesRoundAndLaneAndJudgesNoiseAgain) {
  SampleSet merged;
  SampleSet r0 = one_round(0, {1e-6, 2e-6});
  r0.rounds.clear();  // a set whose samples are all in round 0 may leave rounds empty
  r0.flags = {"noisy"};
  SampleSet r1 = one_round(1, {3e-6});
  r1.flags = {"gate-timeout"};
  SampleSet r2 = one_round(2, {4e-6, 5e-6});
  r2.flags = {"gate-timeout", "noisy"};
  for (const SampleSet* s : {&r0, &r1, &r2})
    append_round(merged, *s);
  EXPECT_EQ(merged.seconds, (std::vector<double>{1e-6, 2e-6, 3e-6, 4e-6, 5e-6}));
  EXPECT_EQ(merged.rounds, (std::vector<std::uint32_t>{0, 0, 1, 2, 2}));
  ASSERT_EQ(merged.lanes.size(), 1u);
  EXPECT_EQ(merged.lanes[0].seconds, (std::vector<double>{0.5e-6, 1e-6, 1.5e-6, 2e-6, 2.5e-6}));
  EXPECT_DOUBLE_EQ(merged.lanes[0].bytes, 4096);
  EXPECT_EQ(merged.flags, (std::vector<std::string>{"gate-timeout"}));
}

TEST(AppendRound, RefusesARoundWhoseLanesDiffer) {
  SampleSet merged;
  append_round(merged, one_round(0, {1e-6}));
  EXPECT_THROW(append_round(merged, one_round(1, {1e-6}, false)), std::invalid_argument);
  SampleSet renamed = one_round(1, {1e-6});
  renamed.lanes[0].name = "d2h";
  EXPECT_THROW(append_round(merged, renamed), std::invalid_argument);
}

}  // namespace
}  // namespace gpuprobe

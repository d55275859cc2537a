// The round process: one round of a parent run's batch, measured and written back.
#include "round_worker.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/round_request.hpp"
#include "gpuprobe/core/trace.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::cli {
namespace {

runtime::MeasureOptions options_of(const RoundRequest& q) {
  runtime::MeasureOptions o;
  o.rule = q.rule;
  o.rounds = q.rounds;
  o.seed = q.seed;
  o.only_round = q.round;
  o.first_batch = q.batch;
  o.warmup_batches = q.warmup_batches;
  o.target_batch_seconds = q.target_batch_seconds;
  o.max_batch = q.max_batch;
  return o;
}

}  // namespace

int run_round_worker(const std::string& request_path, const std::string& answer_path) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the parent gone (even killed): stop too
  const RoundRequest q = round_request_from_json(read_json_file(request_path), request_path);
  const auto probes = make_probes();
  Probe* probe = nullptr;
  for (const auto& p : probes)
    if (p->name() == q.probe) probe = p.get();
  if (probe == nullptr) throw UsageError(fmt::format("{}: no probe '{}'", request_path, q.probe));
  trace(fmt::format("round process: round {} of {} points", q.round, q.keys.size()));
  runtime::initialize();
  const DeviceInfo device = runtime::query_device(q.device);
  runtime::use_device(q.device);
  runtime::ProbeContext context(device, options_of(q), {}, q.probe, q.keys.size());
  trace("round process: context ready");
  if (!q.devices.empty()) context.set_devices(q.devices);
  RoundAnswer answer;
  int code = 0;
  context.carry_on_from(q.earlier);
  try {
    for (const SampleSet& set : probe->measure_keys(context, q.values, q.keys))
      answer.sets.push_back(samples_of_round(set, q.round));
  } catch (const runtime::VerificationError& e) {
    answer.wrong_result = e.what();
    code = static_cast<int>(ExitCode::kRunFailure);
  }
  write_output(answer_path, to_json(answer).dump());
  trace("round process: answered");
  return code;
}

std::string own_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : path.string();
}

}  // namespace gpuprobe::cli

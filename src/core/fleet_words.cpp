// The fleet glossary: its findings (fleet_findings.hpp) and the fleet table's short column headers.
#include "fleet_findings.hpp"
#include "gpuprobe/core/fleet.hpp"

namespace gpuprobe {
Glossary fleet_glossary() {
  Glossary g;
  g.add_findings(fleet_findings::kFindings);
  g.add_term("", "fleet_median", {"median", "the fleet's median of the members' medians"});
  g.add_term("", "spread", {"spread", "1.4826 x median absolute deviation / median [%]"});
  g.add_term("", "fleet_min", {"min", "the lowest member"});
  g.add_term("", "fleet_max", {"max", "the highest member"});
  g.add_term("", "members", {"n", "runs (GPU runs) with this row"});
  g.add_term("", "gpus", {"gpus", "distinct GPUs (by UUID) with this row"});
  g.add_term("", "beyond", {"beyond", "members whose value lies beyond the fleet (fleet_beyond)"});
  return g;
}

}  // namespace gpuprobe

// rankmeter/ranking.hpp — the fused accuracy pass (docs/architecture.md, "The fused pass").
//
// One read of the data computes every requested accuracy column (the "accuracy" rows of the
// metric registry, metrics.def) at every requested cutoff. The pass is split by stage:
//   ranking/columns.hpp  Kind (from the registry), Column, option enums, one formula per metric
//   ranking/plan.hpp     the inputs and the plan decided once per call
//   ranking/scan.hpp     the truth lookups and the list scan that records the finds
//   ranking/walk.hpp     snapshots at each cutoff, walk columns, the ideal DCG
//   ranking/pass.hpp     the parallel driver: 64-user blocks, phase 1 and 2, exact merge
//   ranking/ties.hpp     AP with tie groups at their last rank (ties="last"), after the pass
#pragma once
#include "ranking/columns.hpp"
#include "ranking/pass.hpp"
#include "ranking/plan.hpp"
#include "ranking/scan.hpp"
#include "ranking/ties.hpp"
#include "ranking/walk.hpp"

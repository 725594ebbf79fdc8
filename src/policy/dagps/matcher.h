// File: policy/dagps/matcher.h
//
// The scoring and fairness pieces of DAGPS's online matcher
// (001_a7e14c78d79bdb00.txt, section 5, Fig. 8 FindAppropriateTasksForMachine),
// as plain functions and one small class, so that tests can check them alone.
//   - perfScore_t = priScore_t x {pScore_t, oScore_t} - eta x srpt_j, where
//     pScore_t = alignment of the task's demand with the machine's free
//     resources (policy/common/packing.h) x rPenalty_t, rPenalty_t = rp when
//     the task would run off its preferred machines (1 otherwise, and for tasks
//     without preferences); oScore_t (overbooking) is used only when no task
//     fits: tasks that fit beat every overbooked one (lexicographic, §5).
//   - eta = m x (mean of priScore x pScore) / (mean srpt) over the candidates
//     (§8.5: "eta is m times the average over the two expressions it
//     combines"; m = 0.2 recommended).
//   - DeficitCounters (deficit round robin, [64]): after each allocation of
//     amount a = f(demand) to group g, every active group g' gains
//     fairShare_g' x a and g loses a; fairShare is the group's weight over the
//     active groups' total. When the largest deficit reaches kappa (x C: here
//     f is a fraction of the cluster's capacity, so C = 1), only that group's
//     tasks may be picked. f = the dominant share of the demand (DRF-like).
// Deliberate choices: groups are users (weft's queues); a group is active
// while it has ready tasks, and an inactive group's deficit is reset to 0 (as
// DRR does for empty queues) so it cannot bank credit while idle; when the
// neediest group has nothing that can use the machine, the best task overall
// is taken (work conservation).
// oScore: priScore / (1 + the largest relative overload the launch would
// cause on cpu, disk or net); memory is never overbooked.
// Not thread-safe; plain data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>

namespace weft::policy::dagps {

struct MatchCandidate {
  double pri_score = 0;  // from the job's plan, in (0, 1]
  double alignment = 0;  // pScore before the remote penalty; used when `fits`
  bool fits = false;
  double overbook = 0;   // oScore when it does not fit but may be overbooked; 0 = not allowed
  bool remote = false;   // off its preferred machines
  double srpt = 0;       // its job's remaining work
  uint32_t group = 0;    // its user
};

// Eta: m x mean(priScore x pScore) / mean(srpt) over the candidates of the
// best class (those that fit, else those that may be overbooked); 0 when
// there is no remaining work.
double Eta(std::span<const MatchCandidate> candidates, double m, double remote_penalty);

// PerfScore: priScore x (pScore or oScore) x rPenalty - eta x srpt.
double PerfScore(const MatchCandidate& c, double eta, double remote_penalty);

// PickBest: the index of the candidate with the highest PerfScore among
// those that fit (else among those that may be overbooked), only in `group`
// when given; ties to the lowest index; nullopt when none qualifies.
std::optional<size_t> PickBest(std::span<const MatchCandidate> candidates, double eta, double remote_penalty,
                               std::optional<uint32_t> group = std::nullopt);

class DeficitCounters {
 public:
  // SetActive marks a group active with `weight` (> 0), or inactive (its
  // deficit is reset to 0).
  void SetActive(uint32_t group, bool active, double weight = 1.0);
  // Charge records an allocation of `amount` to `group` (which should be
  // active).
  void Charge(uint32_t group, double amount);
  // Neediest: the active group with the largest deficit when that deficit
  // is >= threshold (ties to the lowest id); nullopt otherwise.
  std::optional<uint32_t> Neediest(double threshold) const;
  double deficit(uint32_t group) const;
  bool active(uint32_t group) const { return groups_.count(group) > 0; }

 private:
  struct Entry {
    double weight = 1;
    double deficit = 0;
  };
  std::map<uint32_t, Entry> groups_;  // active groups only
  double total_weight_ = 0;
};

}  // namespace weft::policy::dagps

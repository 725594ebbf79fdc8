#include "policy/ursa/admission.h"

#include <algorithm>

namespace weft::policy::ursa {

double TaskMemoryGb(double input_mb, double ready_input_mb, std::optional<double> job_memory_gb, double m2i,
                    double demand_gb) {
  if (input_mb <= 0) return demand_gb;
  const double by_input = m2i * input_mb / 1024.0;
  if (!job_memory_gb || ready_input_mb <= 0) return by_input;
  return std::min(input_mb / ready_input_mb * *job_memory_gb, by_input);
}

bool Admits(double job_gb, double reserved_gb, double cluster_gb, size_t admitted) {
  return admitted == 0 || reserved_gb + job_gb <= cluster_gb;
}

}  // namespace weft::policy::ursa

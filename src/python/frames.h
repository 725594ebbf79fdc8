// File: python/frames.h
//
// A run's records as the columns of a DataFrame: a dict of numpy arrays (one
// per column of tasks.csv, jobs.csv, phases.csv, timeline.csv), each text
// column as (codes, names), which python/weft/_frames.py makes a column of
// str; and a job-order observation. Called with the GIL held.
#pragma once

#include <vector>

#include "metrics/timeline_writer.h"
#include "pybind11/numpy.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/job_order_policy.h"
#include "python/run_records.h"

namespace weft::python {

template <typename T>
pybind11::array_t<T> Array(const std::vector<T>& values) {
  return pybind11::array_t<T>(static_cast<pybind11::ssize_t>(values.size()), values.data());
}

// Text: a text column as (codes, names); Python takes names[codes].
inline pybind11::tuple Text(const TextColumn& column) {
  return pybind11::make_tuple(Array(column.codes), pybind11::cast(column.names));
}

pybind11::dict TaskFrame(const TaskColumns& t);
pybind11::dict JobFrame(const JobColumns& j);
pybind11::dict PhaseFrame(const PhaseColumns& p);
pybind11::dict TimelineFrame(const std::vector<Timeline::Bin>& bins);

// ObservationToPython: a job-order decision's observation as the environment
// gives it ({"jobs", "mask", "cluster"}, and "users" with
// Offers::kPerMachine), copied: the engine rewrites it.
pybind11::dict ObservationToPython(const JobOrderObservation& o);

}  // namespace weft::python

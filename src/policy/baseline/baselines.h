// File: policy/baseline/baselines.h
//
// The baseline policies' registry entries (one header per policy; this one
// gathers them for policy/registry.cc).
#pragma once

#include "policy/baseline/delay.h"
#include "policy/baseline/drf.h"
#include "policy/baseline/executor.h"
#include "policy/baseline/fair.h"
#include "policy/baseline/fair_slots.h"
#include "policy/baseline/fifo.h"
#include "policy/baseline/bfs.h"
#include "policy/baseline/coffman_graham.h"
#include "policy/baseline/cp.h"
#include "policy/baseline/random.h"
#include "policy/baseline/stripart.h"
#include "policy/baseline/tetris.h"

// The formal flow of the NPU backend: every module of a design that carries properties (under
// `ifdef FORMAL`) is read by Yosys, written as an SMT-LIB2 transition system, and proved by
// k-induction with Z3 (hdl-gen/formal/induction.h) — unbounded proofs, not bounded checks.
#pragma once

#include <string>
#include <vector>

#include "hdlgen/generate.h"
#include "formal/induction.h"

namespace dg::hdlgen {

struct ModuleProof {
  std::string module;
  std::string params;  // the parameters it was proved with, "BeatBytes=4, ..." (library modules)
  formal::InductionResult result;
  std::vector<std::string> statements;  // per property: its assert statement, from the design's files
  std::string note;                     // what the proof leaves out at these parameters (Design::formal_notes)
  double ms = 0;                        // Yosys and Z3 together
  std::string log;                      // Yosys's output when it failed
};

struct FormalReport {
  std::vector<ModuleProof> modules;
  std::string error;  // the flow could not run (no yosys, ...)
  bool all_proved() const;
};

/// Prove every formal top of `d` (`max_k`: deepest induction tried). `budget_work` bounds each
/// module's solver work (each check half of it): see formal::prove_by_induction.
FormalReport prove(const Design& d, int max_k = 2, std::uint64_t budget_work = formal::kWorkPerModule);

/// Text report: one line per property (result, time, file and line, the assert statement,
/// and why when it is not proved), under one line per module.
std::string report_text(const FormalReport& r);

}  // namespace dg::hdlgen

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
  bool reused = false;                  // the result came from the proof cache (prove's cache_dir)
};

struct FormalReport {
  std::vector<ModuleProof> modules;
  std::string error;  // the flow could not run (no yosys, ...)
  bool all_proved() const;
};

/// Prove every formal top of `d` (`max_k`: deepest induction tried). `budget_work` bounds each
/// module's solver work (each check half of it): see formal::prove_by_induction.
///
/// `cache_dir` (none when empty): the proof cache. A module's proof is a function of its input
/// alone — Yosys's script (the top, its parameters) and the text of every file it reads, from
/// which Yosys writes the SMT-LIB2 transition system, then max_k and the work bounds (work, not
/// time), with the versions of Yosys and Z3 — so a module whose proof was found once is not
/// prepared and proved again: its result is stored under a BLAKE2b-256 hash of exactly those
/// inputs (`<hash>.json`), and a later proof of the same input takes it (ModuleProof::reused).
/// Only complete proofs are stored; an entry that cannot be read, is over 4 MiB, names another
/// key or holds an unproved property is ignored and the module proved afresh.
FormalReport prove(const Design& d, int max_k = 2, std::uint64_t budget_work = formal::kWorkPerModule,
                   const std::string& cache_dir = "");

/// Text report: one line per property (result, time, file and line, the assert statement,
/// and why when it is not proved), under one line per module.
std::string report_text(const FormalReport& r);

}  // namespace dg::hdlgen

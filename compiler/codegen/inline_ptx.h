// Inline PTX, built and checked in one place (for instructions LLVM has no intrinsic for, such as
// wgmma). Operands are numbered as PTX text sees them: outputs first ($0, $1, … in the order
// declared, read-write ones included), then inputs. Each operand has a constraint letter that must
// match its LLVM type — h: i16, r: i32, l: i64, f: f32, d: f64 — and every $N in the text must
// name an operand; a mismatch is an internal error, not bad PTX.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

namespace dg::codegen {

class InlinePtx {
 public:
  /// A write-only output; returns its operand number.
  int out(char constraint);
  /// An output that is also read (tied to an input holding `v`); returns its operand number.
  int inout(llvm::Value* v, char constraint);
  /// An input; declare every output first. Returns its operand number.
  int in(llvm::Value* v, char constraint);
  /// Emit `text` with these operands (side effects unless `side_effects` is false — a pure
  /// computation of its outputs from its inputs, which LLVM may move or merge — and a memory
  /// clobber when `memory`). Returns the call: void, the single output, or a struct of the outputs
  /// in order.
  llvm::Value* emit(llvm::IRBuilder<>& b, const std::string& text, bool memory = true, bool side_effects = true);

 private:
  struct Operand {
    char c;
    llvm::Value* v;  // null for pure outputs
  };
  std::vector<Operand> outs_, ins_;
};

/// Emit a statement without operands (fences, commits, waits).
void emit_ptx_statement(llvm::IRBuilder<>& b, const std::string& text);

}  // namespace dg::codegen

#include "codegen/inline_ptx.h"

#include <fmt/format.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/Error.h>

#include <cctype>

#include "support/error.h"

namespace dg::codegen {

namespace {

llvm::Type* type_of(llvm::LLVMContext& ctx, char c) {
  switch (c) {
    case 'h': return llvm::Type::getInt16Ty(ctx);
    case 'r': return llvm::Type::getInt32Ty(ctx);
    case 'l': return llvm::Type::getInt64Ty(ctx);
    case 'f': return llvm::Type::getFloatTy(ctx);
    case 'd': return llvm::Type::getDoubleTy(ctx);
    default: break;
  }
  throw InternalError(fmt::format("inline PTX: unknown constraint '{}'", c));
}

void check_value(llvm::Value* v, char c) {
  DG_INTERNAL_ASSERT(v != nullptr, "inline PTX: null operand");
  DG_INTERNAL_ASSERT(v->getType() == type_of(v->getContext(), c),
                     fmt::format("inline PTX: operand of constraint '{}' has the wrong LLVM type", c));
}

}  // namespace

int InlinePtx::out(char constraint) {
  DG_INTERNAL_ASSERT(ins_.empty(), "inline PTX: outputs are declared before inputs");
  outs_.push_back({constraint, nullptr});
  return static_cast<int>(outs_.size()) - 1;
}

int InlinePtx::inout(llvm::Value* v, char constraint) {
  check_value(v, constraint);
  DG_INTERNAL_ASSERT(ins_.empty(), "inline PTX: outputs are declared before inputs");
  outs_.push_back({constraint, v});
  return static_cast<int>(outs_.size()) - 1;
}

int InlinePtx::in(llvm::Value* v, char constraint) {
  check_value(v, constraint);
  ins_.push_back({constraint, v});
  return static_cast<int>(outs_.size() + ins_.size()) - 1;
}

llvm::Value* InlinePtx::emit(llvm::IRBuilder<>& b, const std::string& text, bool memory, bool side_effects) {
  auto& ctx = b.getContext();
  const std::size_t named = outs_.size() + ins_.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') continue;
    DG_INTERNAL_ASSERT(i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])),
                       "inline PTX: '$' not followed by an operand number in: " + text);
    std::size_t n = 0, j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) n = n * 10 + (text[j++] - '0');
    DG_INTERNAL_ASSERT(n < named, fmt::format("inline PTX: ${} names no operand ({} declared) in: {}", n, named, text));
  }
  std::string cons;
  std::vector<llvm::Type*> out_types, in_types;
  std::vector<llvm::Value*> args;
  auto sep = [&] {
    if (!cons.empty()) cons += ",";
  };
  for (const auto& o : outs_) {
    sep();
    cons += std::string("=") + o.c;
    out_types.push_back(type_of(ctx, o.c));
  }
  for (const auto& i : ins_) {
    sep();
    cons += i.c;
    in_types.push_back(i.v->getType());
    args.push_back(i.v);
  }
  for (std::size_t k = 0; k < outs_.size(); ++k)
    if (outs_[k].v) {
      sep();
      cons += std::to_string(k);
      in_types.push_back(outs_[k].v->getType());
      args.push_back(outs_[k].v);
    }
  if (memory) {
    sep();
    cons += "~{memory}";
  }
  llvm::Type* ret = out_types.empty()       ? b.getVoidTy()
                    : out_types.size() == 1 ? out_types[0]
                                            : static_cast<llvm::Type*>(llvm::StructType::get(ctx, out_types));
  auto* fty = llvm::FunctionType::get(ret, in_types, false);
  if (llvm::Error e = llvm::InlineAsm::verify(fty, cons))
    throw InternalError(fmt::format("inline PTX: constraints '{}' rejected: {}", cons, llvm::toString(std::move(e))));
  auto* asm_ = llvm::InlineAsm::get(fty, text, cons, side_effects);
  return b.CreateCall(fty, asm_, args);
}

void emit_ptx_statement(llvm::IRBuilder<>& b, const std::string& text) { InlinePtx().emit(b, text, true); }

}  // namespace dg::codegen

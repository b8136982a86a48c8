// A Yosys transition system (`write_smt2`) unrolled into steps. Yosys writes every input,
// register, cell and wire as a function of an uninterpreted state (`(|M#7| state)`), and the
// checks ask about states s0, s1, ... Given to Z3 4.8 as they are, those functions are macros
// that its parser expands into a tree per use, which on a design of a few hundred cells takes
// minutes and gigabytes; as recursive functions they are unfolded on demand, which takes seconds
// per query. Here each function is instead instantiated once per step as a constant
// (`|M#7@s0|`, `|M_t@s0@s1|`), defined from the same step's constants: the terms are shared, the
// query is plain bit-vector logic, and a check takes milliseconds.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dg::formal {

class UnrolledSystem {
 public:
  /// The system of module `top` in `smt2`; nullopt, and the reason in `why`, when the text uses a
  /// form this does not handle (a hierarchy of modules: a state of another module's sort, a
  /// function of three states, a command other than declarations and definitions).
  static std::optional<UnrolledSystem> parse(const std::string& smt2, const std::string& top, std::string* why);

  /// SMT-LIB text declaring and defining every function's instances at steps 0 .. last: the
  /// functions of one state at each step, those of two (the transition relation) at each pair
  /// of consecutive steps.
  std::string steps(int last) const;

  /// The name of function `name` (written without its bars, e.g. "M_a 3") instantiated at the
  /// given steps: "|M_a 3@s2|", "|M_t@s0@s1|".
  static std::string at(const std::string& name, const std::vector<int>& steps);

 private:
  /// One command with its holes: text pieces, and after piece i (for i < holes.size()) the step
  /// of parameter holes[i] is written as "@s<step>". A name's closing bar follows its holes.
  struct Item {
    int arity = 0;  // states it is a function of: 0, 1 or 2
    std::vector<std::string> pieces;
    std::vector<int> holes;
  };
  void emit(const Item& item, const std::vector<int>& steps, std::string& out) const;

  std::vector<Item> items_;
};

}  // namespace dg::formal

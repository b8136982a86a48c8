// k-induction over Yosys-form transition systems (hdl-gen/formal/): the unrolling into steps, and
// the proofs it gives — one that needs k = 2, a counterexample a few steps after reset — with
// the same answers where the unrolling does not apply and recursive definitions are used.
#include <doctest/doctest.h>

#include "formal/induction.h"
#include "formal/unroll.h"

namespace {

using namespace dg::formal;

// A two-stage shift register fed with 0: q == 0 holds, but only 2-inductively (q at the next
// step is p now, which a single step of history does not constrain).
const char* kShift = R"(; yosys-smt2-module sh
(declare-sort |sh_s| 0)
(declare-fun |sh_is| (|sh_s|) Bool)
(declare-fun |sh#0| (|sh_s|) (_ BitVec 1)) ; \p
(declare-fun |sh#1| (|sh_s|) (_ BitVec 1)) ; \q
(define-fun |sh#2| ((state |sh_s|)) Bool (= (|sh#1| state) #b0))
; yosys-smt2-assert 0 $assert$q sh.v:9.5-9.20
(define-fun |sh_a 0| ((state |sh_s|)) Bool (|sh#2| state))
(define-fun |sh_u| ((state |sh_s|)) Bool true)
(define-fun |sh_h| ((state |sh_s|)) Bool true)
(define-fun |sh_i| ((state |sh_s|)) Bool (and (= (|sh#0| state) #b0) (= (|sh#1| state) #b0)))
(define-fun |sh_t| ((state |sh_s|) (next_state |sh_s|)) Bool (and
  (= #b0 (|sh#0| next_state))
  (= (|sh#0| state) (|sh#1| next_state))
))
)";

// A 2-bit counter from 0: "never 2" fails two steps after reset.
const char* kCounter = R"(; yosys-smt2-module ct
(declare-sort |ct_s| 0)
(declare-fun |ct_is| (|ct_s|) Bool)
(declare-fun |ct#0| (|ct_s|) (_ BitVec 2)) ; \r
(define-fun |ct#1| ((state |ct_s|)) (_ BitVec 2) (bvadd (|ct#0| state) #b01))
; yosys-smt2-assert 0 $assert$two ct.v:4.5-4.25
(define-fun |ct_a 0| ((state |ct_s|)) Bool (not (= (|ct#0| state) #b10)))
(define-fun |ct_u| ((state |ct_s|)) Bool true)
(define-fun |ct_h| ((state |ct_s|)) Bool true)
(define-fun |ct_i| ((state |ct_s|)) Bool (= (|ct#0| state) #b00))
(define-fun |ct_t| ((state |ct_s|) (next_state |ct_s|)) Bool (= (|ct#1| state) (|ct#0| next_state)))
)";

}  // namespace

TEST_CASE("unroll: each function of a state becomes one constant per step, defined from that step's") {
  std::string why;
  auto sys = UnrolledSystem::parse(kShift, "sh", &why);
  REQUIRE_MESSAGE(sys, why);
  const std::string t = sys->steps(1);
  CHECK(t.find("(declare-fun |sh#0@s0| () (_ BitVec 1))\n") != std::string::npos);
  CHECK(t.find("(declare-fun |sh#1@s1| () (_ BitVec 1))\n") != std::string::npos);
  CHECK(t.find("(define-fun |sh#2@s1| () Bool (= |sh#1@s1| #b0))\n") != std::string::npos);
  CHECK(t.find("(define-fun |sh_t@s0@s1| () Bool (and (= #b0 |sh#0@s1|) (= |sh#0@s0| |sh#1@s1|)))\n") !=
        std::string::npos);
  CHECK(t.find("@s2") == std::string::npos);
  CHECK(t.find("sh_t@s") == t.rfind("sh_t@s"));  // one pair of steps, one transition
  CHECK(UnrolledSystem::at("sh_a 0", {3}) == "|sh_a 0@s3|");
  CHECK(sys->steps(1) == t);  // deterministic
}

TEST_CASE("unroll: forms it does not handle are refused with the reason") {
  std::string why;
  CHECK_FALSE(UnrolledSystem::parse(std::string(kShift) + "(declare-sort |sub_s| 0)\n", "sh", &why));
  CHECK(why.find("hierarchy") != std::string::npos);
  CHECK_FALSE(UnrolledSystem::parse("(declare-sort |m_s| 0)\n(define-fun |m_x| ((state |m_s|)) Bool (= state state))\n",
                                    "m", &why));
  CHECK(why.find("a state used as a value") != std::string::npos);
  CHECK_FALSE(UnrolledSystem::parse("(set-option :produce-models true)\n", "m", &why));
  CHECK(why.find("set-option") != std::string::npos);
  CHECK_FALSE(
      UnrolledSystem::parse("(declare-sort |m_s| 0)\n(define-fun |m_x| ((state |m_s|)) Bool (and true\n", "m", &why));
  CHECK(why.find("unbalanced") != std::string::npos);
}

TEST_CASE("induction: a property that is 2-inductive only is proved at k = 2, unrolled or not") {
  for (std::string text : {std::string(kShift), "(set-option :produce-models true)\n" + std::string(kShift)}) {
    InductionResult r = prove_by_induction(text, "sh", 2);
    REQUIRE(r.error.empty());
    REQUIRE(r.properties.size() == 1);
    CHECK(r.properties[0].proved);
    CHECK(r.properties[0].depth == 2);
    CHECK(r.properties[0].location == "sh.v:9.5-9.20");
    // With one step of history it is not enough.
    InductionResult r1 = prove_by_induction(text, "sh", 1);
    REQUIRE(r1.properties.size() == 1);
    CHECK_FALSE(r1.properties[0].proved);
    CHECK(r1.properties[0].detail == "holds 1 step after reset, but is not 1-inductive");
  }
}

TEST_CASE("induction: a property that fails after reset is refused with the step, unrolled or not") {
  for (std::string text : {std::string(kCounter), "(set-option :produce-models true)\n" + std::string(kCounter)}) {
    InductionResult r = prove_by_induction(text, "ct", 3);
    REQUIRE(r.error.empty());
    REQUIRE(r.properties.size() == 1);
    CHECK_FALSE(r.all_proved());
    CHECK(r.properties[0].detail == "fails 2 steps after reset");
    CHECK(r.properties[0].depth == 2);
  }
}

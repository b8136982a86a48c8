# cmake -DCMD=deepgemm -DSPEC=x.dgml -DOUT=x.ptx [-DFAMILY=wgmma[+tma|+elem]] [-DEXTRA=regex] [-DPLAN=x.plan.json]
#       -P check_ptx.cmake
# Without -DFAMILY, the spec says it: a `// PTX-FAMILY: F` line, and `// PTX-CHECK: REGEX` lines
# that the PTX must match besides the family's own instructions.
if(NOT FAMILY)
  file(STRINGS ${SPEC} family_line REGEX "^// PTX-FAMILY: ")
  list(LENGTH family_line n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "${SPEC}: one '// PTX-FAMILY: F' line expected, found ${n}")
  endif()
  string(REGEX REPLACE "^// PTX-FAMILY: *" "" FAMILY "${family_line}")
  file(STRINGS ${SPEC} check_lines REGEX "^// PTX-CHECK: ")
  foreach(line ${check_lines})
    string(REGEX REPLACE "^// PTX-CHECK: " "" regex "${line}")
    list(APPEND EXTRA "${regex}")
  endforeach()
endif()
# A wgmma family with "+tma" loads its tiles with the tensor-memory accelerator from a producer
# warpgroup (mbarrier pipeline, setmaxnreg); without it, with cp.async in every thread.
# -DPLAN=golden.plan.json: the backend starts from that saved plan (compile --from-plan), so the
# PTX checked is the golden plan's whatever the solver would choose today.
set(from_plan "")
if(PLAN)
  set(from_plan --from-plan ${PLAN})
endif()
execute_process(COMMAND ${CMD} compile ${SPEC} ${from_plan} --emit=ptx -o ${OUT} --verbose RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile --emit=ptx failed (${rc}):\n${err}")
endif()
file(READ ${OUT} ptx)
# setmaxnreg moves registers inside the block's own pool, threads × the launch bound's share (a
# multiple of 8, at most 255, as ptxas allocates): the consumers' setmaxnreg.inc waits until the
# pool has what they ask for, so a producer that gives back too little leaves them waiting forever.
if(ptx MATCHES "setmaxnreg\\.inc\\.sync\\.aligned\\.u32 ([0-9]+)")
  set(inc ${CMAKE_MATCH_1})
  set(dec 0)
  if(ptx MATCHES "setmaxnreg\\.dec\\.sync\\.aligned\\.u32 ([0-9]+)")
    set(dec ${CMAKE_MATCH_1})
  endif()
  if(NOT ptx MATCHES "\\.maxntid ([0-9]+), 1, 1")
    message(FATAL_ERROR "a kernel with setmaxnreg has no .maxntid")
  endif()
  set(threads ${CMAKE_MATCH_1})
  set(blocks 1)
  if(ptx MATCHES "\\.minnctapersm ([0-9]+)")
    set(blocks ${CMAKE_MATCH_1})
  endif()
  math(EXPR entry "65536 / (${threads} * ${blocks})")
  if(entry GREATER 255)
    set(entry 255)
  endif()
  math(EXPR entry "${entry} / 8 * 8")
  if(dec EQUAL 0)
    set(dec ${entry})
  endif()
  math(EXPR need "128 * ${dec} + (${threads} - 128) * ${inc}")
  math(EXPR pool "${threads} * ${entry}")
  if(need GREATER pool)
    message(FATAL_ERROR "setmaxnreg asks ${need} registers of a block that holds ${pool} (${threads} threads × "
                        "${entry}; producer ${dec}, consumers ${inc}): the consumers would wait forever")
  endif()
endif()
# "+elem": every operand's rows are unaligned (an odd K), so no tile is copied by cp.async: each
# is loaded element by element and stored in 16-byte chunks.
set(elem OFF)
if(FAMILY MATCHES "\\+elem$")
  set(elem ON)
  string(REGEX REPLACE "\\+elem$" "" FAMILY "${FAMILY}")
endif()
set(tma OFF)
if(FAMILY MATCHES "\\+tma$")
  set(tma ON)
  string(REGEX REPLACE "\\+tma$" "" FAMILY "${FAMILY}")
endif()
set(cp_async_loads "cp\\.async\\.cg\\.shared\\.global" "cp\\.async\\.wait_group")
set(tma_loads "cp\\.async\\.bulk\\.tensor\\.2d\\.shared::cluster\\.global\\.tile\\.mbarrier::complete_tx::bytes"
              "mbarrier\\.init\\.shared::cta\\.b64" "mbarrier\\.arrive\\.expect_tx\\.shared::cta\\.b64"
              "mbarrier\\.try_wait\\.parity\\.shared::cta\\.b64" "mbarrier\\.arrive\\.shared::cta\\.b64"
              "setmaxnreg\\.dec\\.sync\\.aligned\\.u32 40" "\\.param \\.align 64 \\.b8 [a-z0-9_]+\\[128\\]")
if(tma)
  if(ptx MATCHES "cp\\.async\\.cg")
    message(FATAL_ERROR "a TMA kernel loads tiles with cp.async too")
  endif()
  set(loads ${tma_loads})
elseif(NOT FAMILY STREQUAL "wgmma_w4")  # (which uses both: its own checks below)
  if(ptx MATCHES "cp\\.async\\.bulk|mbarrier")
    message(FATAL_ERROR "a cp.async kernel uses the TMA loader's instructions")
  endif()
  set(loads ${cp_async_loads})
endif()
if(FAMILY STREQUAL "wgmma")
  set(wants "\\.target sm_90a" "wgmma\\.mma_async\\.sync\\.aligned\\.m64n[0-9]+k16\\.f32\\.(f16|bf16)\\.(f16|bf16)"
            "wgmma\\.fence\\.sync\\.aligned" "wgmma\\.commit_group\\.sync\\.aligned" "wgmma\\.wait_group\\.sync\\.aligned 1"
            ${loads})
  if(NOT tma)
    list(APPEND wants "fence\\.proxy\\.async\\.shared::cta")
  endif()
elseif(FAMILY STREQUAL "wgmma_int8")
  set(wants "\\.target sm_90a" "wgmma\\.mma_async\\.sync\\.aligned\\.m64n[0-9]+k32\\.s32\\.s8\\.s8"
            "wgmma\\.commit_group\\.sync\\.aligned" ${loads})
elseif(FAMILY STREQUAL "wgmma_fp8")
  # fp8 x fp8 -> fp32: k32 steps, no transpose operands (both K-major), input scales +1.
  set(wants "\\.target sm_90a" "wgmma\\.mma_async\\.sync\\.aligned\\.m64n[0-9]+k32\\.f32\\.e(4m3|5m2)\\.e(4m3|5m2) [^;]*, p, 1, 1;"
            "wgmma\\.commit_group\\.sync\\.aligned" ${loads})
elseif(FAMILY STREQUAL "simt")
  # CUDA cores: fused multiply-adds, cp.async into shared memory, no tensor-core instruction.
  set(wants "\\.target sm_(80|90a)" "fma\\.rn\\.(f32|f16x2)" "cp\\.async\\.cg\\.shared\\.global" "ld\\.shared")
  if(ptx MATCHES "mma\\.sync|wgmma\\.")
    message(FATAL_ERROR "the SIMT kernel uses a tensor-core instruction")
  endif()
elseif(FAMILY STREQUAL "mma_sync_int8")
  set(wants "\\.target sm_80" "mma\\.sync\\.aligned\\.m16n8k32\\.row\\.col\\.s32\\.s8\\.s8\\.s32"
            "ldmatrix\\.sync\\.aligned\\.m8n8\\.x4\\.shared\\.b16" "cp\\.async\\.cg\\.shared\\.global")
elseif(FAMILY MATCHES "^mma_sync_(s4|u4)$")
  # 4-bit activations and weights: mma.sync m16n8k64 on the int8 kernel's byte fragments (two k to a
  # byte), signed or unsigned, no conversion.
  string(REGEX REPLACE "^mma_sync_" "" t "${FAMILY}")
  set(wants "\\.target sm_80" "mma\\.sync\\.aligned\\.m16n8k64\\.row\\.col\\.s32\\.${t}\\.${t}\\.s32"
            "ldmatrix\\.sync\\.aligned\\.m8n8\\.x4\\.shared\\.b16" ${loads})
  if(ptx MATCHES "m16n8k(16|32)")
    message(FATAL_ERROR "the 4-bit integer kernel runs a 16-bit or 8-bit instruction")
  endif()
elseif(FAMILY STREQUAL "wgmma_w4")
  # 4-bit weights on wgmma (wgmma_tma.cpp): A by the tensor-memory accelerator, the packed weights
  # and their scales staged by cp.async from the producer warpgroup, converted there (lop3 into the
  # magic exponent, or E2M1's bit moves) into K-major stages (16-byte shared stores, fenced for the
  # async proxy, a producer barrier), wgmma on fp16/bf16, B not transposed.
  set(wants "\\.target sm_90a" "wgmma\\.mma_async\\.sync\\.aligned\\.m64n[0-9]+k16\\.f32\\.(f16|bf16)\\.(f16|bf16) [^;]*, p, 1, 1, 0, 0;"
            "cp\\.async\\.bulk\\.tensor\\.2d\\.shared::cluster\\.global\\.tile\\.mbarrier::complete_tx::bytes"
            "mbarrier\\.arrive\\.expect_tx\\.shared::cta\\.b64" "mbarrier\\.try_wait\\.parity\\.shared::cta\\.b64"
            "cp\\.async\\.cg\\.shared\\.global" "cp\\.async\\.wait_group 2" "st\\.shared\\.v4\\.b32"
            "fence\\.proxy\\.async\\.shared::cta" "bar\\.sync 15, 128" "setmaxnreg\\.dec\\.sync\\.aligned\\.u32 80")
  if(ptx MATCHES "ld\\.global\\.nc\\.L1::no_allocate")
    message(FATAL_ERROR "the wgmma kernel streams 4-bit weights into registers instead of staging them")
  endif()
elseif(FAMILY MATCHES "^w4")
  # 4-bit weights (w4a16.cpp): 16-byte non-allocating loads with an L2 evict-first policy straight
  # into registers, lop3 into the magic exponent and one subtraction or fma per pair (fp16) or an fma
  # (bf16), mma.sync m16n8k16; the warps' partial sums meet in shared memory. No cp.async, no
  # ldmatrix: the weights never pass through shared memory.
  # (PTX 7.0 for sm_80 has no cache hints: there the weights come by plain ld.global.nc.v4.)
  if(ptx MATCHES "\\.target sm_80")
    set(wants "\\.target sm_80")
  else()
    set(wants "\\.target sm_90a" "createpolicy\\.fractional\\.L2::evict_first\\.b64"
              "ld\\.global\\.nc\\.L1::no_allocate\\.L2::cache_hint\\.v4\\.u32")
  endif()
  if(NOT FAMILY MATCHES "e2m1")  # integers: lop3 into the magic exponent
    list(APPEND wants "lop3\\.b32 [^;]*0x000f000f, 0x(6400|4300)[0-9a-f]*, 0xea;")
  endif()
  list(APPEND wants "ld\\.global\\.nc\\.v4\\.(u32|b32)"
            "bar\\.sync|barrier\\.sync" "st\\.shared\\.(v[24]\\.)?(f32|b32)")
  if(FAMILY STREQUAL "w4_e2m1")  # E2M1 into fp16: bits to 9-11 and 15, times 2^14
    list(APPEND wants "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.f16\\.f16\\.f32"
                      "and\\.b32 [^;]*0x00070007;" "shl\\.b32 [^;]*, 9;" "mov\\.b32 [^;]*0x74007400;" "fma\\.rn\\.f16x2")
  elseif(FAMILY STREQUAL "w4_e2m1_bf16")  # into bf16: bits to 6-8 and 15, times 2^126
    list(APPEND wants "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.bf16\\.bf16\\.f32"
                      "and\\.b32 [^;]*0x00070007;" "shl\\.b32 [^;]*, 6;" "mov\\.b32 [^;]*0x7e807e80;" "fma\\.rn\\.bf16x2")
  elseif(FAMILY STREQUAL "w4_bf16")
    list(APPEND wants "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.bf16\\.bf16\\.f32"
                      "mov\\.b32 [^;]*0x3f803f80;" "mov\\.b32 [^;]*0xc308c308;" "fma\\.rn\\.bf16x2")
  else()
    list(APPEND wants "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.f16\\.f16\\.f32"
                      "mov\\.b32 [^;]*0x64086408;" "sub\\.f16x2")
  endif()
  if(ptx MATCHES "cp\\.async|ldmatrix")
    message(FATAL_ERROR "the 4-bit weight kernel stages data through shared memory with cp.async or ldmatrix")
  endif()
elseif(FAMILY STREQUAL "m8n8k4")
  set(wants "\\.target sm_70" "mma\\.sync\\.aligned\\.m8n8k4\\.row\\.(row|col)\\.f32\\.f16\\.f16\\.f32"
            "ld\\.shared\\.v[24]\\.(u32|b32|b16)" "st\\.shared\\.v4\\.(u32|b32)" "bar\\.sync")
else()
  set(wants "\\.target sm_[0-9]+a?" "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.(f16|bf16)"
            "ldmatrix\\.sync\\.aligned\\.m8n8\\.x4" "cp\\.async\\.cg\\.shared\\.global" "cp\\.async\\.wait_group")
endif()
if(elem)
  list(REMOVE_ITEM wants "cp\\.async\\.cg\\.shared\\.global")
  list(APPEND wants "st\\.shared\\.v4\\.(b32|u32)")
  if(ptx MATCHES "cp\\.async\\.cg")
    message(FATAL_ERROR "an operand with unaligned rows is copied by cp.async")
  endif()
endif()
if(EXTRA)
  list(APPEND wants "${EXTRA}")
endif()
if(err MATCHES "warning")
  message(FATAL_ERROR "the compile warned:\n${err}")
endif()
foreach(want ${wants})
  if(NOT ptx MATCHES "${want}")
    message(FATAL_ERROR "the PTX lacks ${want}")
  endif()
endforeach()
if(ptx MATCHES "\\.local")
  message(FATAL_ERROR "the PTX uses local memory")
endif()
# The kernel in the module is the last one ptxas assembled (a plan whose kernel spills is rejected
# and the next one generated): its line is the one to check.
string(FIND "${err}" "ptxas: " last_ptxas REVERSE)
if(NOT last_ptxas EQUAL -1)
  string(SUBSTRING "${err}" ${last_ptxas} -1 last_err)
else()
  set(last_err "${err}")
endif()
if(last_err MATCHES "ptxas: ([0-9]+) registers, ([0-9]+) B spill stores")
  if(NOT CMAKE_MATCH_2 EQUAL 0)
    message(FATAL_ERROR "ptxas reports spills:\n${err}")
  endif()
  message(STATUS "ptxas: ${CMAKE_MATCH_1} registers")
elseif(err MATCHES "cannot assemble for (sm_[0-9]+)")
  # A toolkit without the target (CUDA 13 dropped sm_70): assemble for the oldest target it has,
  # which takes sm_70 PTX too, to check the syntax, the instructions and the register budget.
  set(arch ${CMAKE_MATCH_1})
  execute_process(COMMAND /usr/local/cuda/bin/ptxas -arch=sm_75 -v ${OUT} -o ${OUT}.sm_75.cubin
                  RESULT_VARIABLE prc ERROR_VARIABLE plog OUTPUT_VARIABLE plog2)
  if(NOT prc EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=sm_75 rejected the ${arch} PTX:\n${plog}${plog2}")
  endif()
  if(NOT "${plog}${plog2}" MATCHES " 0 bytes spill stores")
    message(FATAL_ERROR "ptxas -arch=sm_75 reports spills:\n${plog}${plog2}")
  endif()
  message(STATUS "ptxas has no ${arch}; assembled for sm_75")
elseif(EXISTS /usr/local/cuda/bin/ptxas)
  message(FATAL_ERROR "ptxas is installed but was not run:\n${err}")
endif()

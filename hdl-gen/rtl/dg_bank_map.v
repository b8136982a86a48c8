// dg_bank_map: the scratchpad's bank mapping, the model's npu.spad_bank_map, which every reader
// and writer of the scratchpad instantiates (the fills of A and B, the compute engines). Tile row
// r = q * Banks + j (q its word row in the banks, j = r mod Banks) lies in bank
//
//   modulo (Xor = 0):  j
//   xor    (Xor = 1):  j ^ (q mod Banks)
//
// at word row q of its buffer either way. Inside one word row the mapping permutes the banks and is
// its own inverse, so the same function also gives the j a bank holds: map(q, map(q, j)) = j.
// Part of the fixed DeepGEMM RTL library; the generated top sets Xor from the model.
module dg_bank_map #(
  parameter int LgBanks = 4,
  parameter bit Xor     = 1'b0
) (
  input  logic [LgBanks-1:0] q_i,     // the word row (its low LgBanks bits)
  input  logic [LgBanks-1:0] j_i,     // the row within the word row (or a bank, for the inverse)
  output logic [LgBanks-1:0] bank_o
);
  if (Xor) begin : g_xor
    assign bank_o = j_i ^ q_i;
  end else begin : g_modulo
    assign bank_o = j_i;
    logic unused_q;
    assign unused_q = ^q_i;
  end
endmodule

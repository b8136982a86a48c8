// SB_SPRAM256KA for simulation and lint: the iCE40 UP5K's 16K x 16 single-port RAM as
// yosys' ice40 cell model describes it (read data registered, the cycle after the address;
// a nibble write mask), without its power modes, which boards/icebreaker never uses.
module SB_SPRAM256KA (
  input  logic [13:0] ADDRESS,
  input  logic [15:0] DATAIN,
  input  logic [3:0]  MASKWREN,
  input  logic        WREN,
  input  logic        CHIPSELECT,
  input  logic        CLOCK,
  input  logic        STANDBY,
  input  logic        SLEEP,
  input  logic        POWEROFF,
  output logic [15:0] DATAOUT
);
  logic [15:0] mem [16384];
  logic [15:0] mask;
  assign mask = {{4{MASKWREN[3]}}, {4{MASKWREN[2]}}, {4{MASKWREN[1]}}, {4{MASKWREN[0]}}};
  logic unused_power;
  assign unused_power = ^{STANDBY, SLEEP, POWEROFF};

  always_ff @(posedge CLOCK) begin
    if (CHIPSELECT) begin
      if (WREN) mem[ADDRESS] <= (mem[ADDRESS] & ~mask) | (DATAIN & mask);
      else DATAOUT <= mem[ADDRESS];
    end
  end
endmodule

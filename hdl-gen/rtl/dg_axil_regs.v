// dg_axil_regs: an AXI4-Lite slave in front of a register port (one access per cycle, read data
// the cycle after), for the registers of a generated NPU. One transaction at a time: a write is
// done when both its address and its data have been taken (in either order), then answered on
// the B channel; a read is answered on the R channel the cycle after the register port is read.
// A write with other byte strobes than all four is not done and answered SLVERR (the registers are
// 32 bits and have no byte lanes); an address not aligned to 4 bytes reads and writes its word.
// Addresses are the register block's 4 KB page (12 bits); AxPROT is accepted and not used. Part of
// the fixed DeepGEMM RTL library.
module dg_axil_regs (
  input  logic        clk_i,
  input  logic        rst_ni,
  // AXI4-Lite
  input  logic        awvalid_i,
  output logic        awready_o,
  input  logic [11:0] awaddr_i,
  input  logic [2:0]  awprot_i,
  input  logic        wvalid_i,
  output logic        wready_o,
  input  logic [31:0] wdata_i,
  input  logic [3:0]  wstrb_i,
  output logic        bvalid_o,
  input  logic        bready_i,
  output logic [1:0]  bresp_o,
  input  logic        arvalid_i,
  output logic        arready_o,
  input  logic [11:0] araddr_i,
  input  logic [2:0]  arprot_i,
  output logic        rvalid_o,
  input  logic        rready_i,
  output logic [31:0] rdata_o,
  output logic [1:0]  rresp_o,
  // register port
  output logic        reg_req_o,
  output logic        reg_we_o,
  output logic [11:0] reg_addr_o,
  output logic [31:0] reg_wdata_o,
  input  logic [31:0] reg_rdata_i
);
  logic        aw_have_q, w_have_q, rd_q;
  logic [11:0] awaddr_q;
  logic [31:0] wdata_q;
  logic [3:0]  wstrb_q;
  logic        do_write, do_read;

  // Address and data are held until both are here and the response before them was taken.
  assign awready_o = !aw_have_q && !bvalid_o;
  assign wready_o  = !w_have_q && !bvalid_o;
  assign do_write  = aw_have_q && w_have_q;
  // A read takes the register port when no write does and the read before it was answered.
  assign arready_o = !do_write && !rd_q && !rvalid_o;
  assign do_read   = arvalid_i && arready_o;

  assign reg_req_o   = (do_write && wstrb_q == 4'hf) || do_read;
  assign reg_we_o    = do_write;
  assign reg_addr_o  = do_write ? {awaddr_q[11:2], 2'b00} : {araddr_i[11:2], 2'b00};
  assign reg_wdata_o = wdata_q;
  assign rresp_o     = 2'b00;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_have_q <= 1'b0;
      w_have_q <= 1'b0;
      awaddr_q <= '0;
      wdata_q <= '0;
      wstrb_q <= '0;
      bvalid_o <= 1'b0;
      bresp_o <= 2'b00;
      rd_q <= 1'b0;
      rvalid_o <= 1'b0;
      rdata_o <= '0;
    end else begin
      if (awvalid_i && awready_o) begin
        aw_have_q <= 1'b1;
        awaddr_q <= awaddr_i;
      end
      if (wvalid_i && wready_o) begin
        w_have_q <= 1'b1;
        wdata_q <= wdata_i;
        wstrb_q <= wstrb_i;
      end
      if (do_write) begin
        aw_have_q <= 1'b0;
        w_have_q <= 1'b0;
        bvalid_o <= 1'b1;
        bresp_o <= wstrb_q == 4'hf ? 2'b00 : 2'b10;
      end else if (bvalid_o && bready_i) begin
        bvalid_o <= 1'b0;
      end
      // The register port's read data comes the cycle after the read.
      rd_q <= do_read;
      if (rd_q) begin
        rvalid_o <= 1'b1;
        rdata_o <= reg_rdata_i;
      end else if (rvalid_o && rready_i) begin
        rvalid_o <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{awprot_i, arprot_i, awaddr_q[1:0], araddr_i[1:0]};
endmodule

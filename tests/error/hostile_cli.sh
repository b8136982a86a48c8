#!/usr/bin/env bash
# Careless and hostile use of the command line: every case ends in the documented behaviour, never
# in a replaced device, FIFO, symlink or input, a hang, a crash or an internal error.
#   hostile_cli.sh DEEPGEMM SOURCE_DIR WORK_DIR
set -uo pipefail
D=$1 SRC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export DEEPGEMM_CACHE_DIR=$WORK/cache
SPEC=$SRC/examples/matmul.dgml
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect RC PATTERN CMD...: exit code RC and PATTERN (a grep -E regex) in stdout+stderr.
expect() {
  local rc=$1 pat=$2; shift 2
  local out got
  out=$(timeout 120 "$@" 2>&1); got=$?
  [ "$got" = "$rc" ] || bad "'$*' exited $got, expected $rc: $(echo "$out" | tail -n 3)"
  [ -z "$pat" ] || echo "$out" | grep -Eq -- "$pat" || bad "'$*' did not print /$pat/: $(echo "$out" | tail -n 3)"
}

# -o to a character device writes through it and never replaces it.
before=$(stat -c '%F %t:%T' /dev/null)
expect 0 "" "$D" compile "$SPEC" --emit=plan -o /dev/null
[ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ] || bad "/dev/null was replaced"
# /dev/full: the write error is reported.
expect 1 "cannot write '/dev/full': No space left on device" "$D" compile "$SPEC" --emit=plan -o /dev/full
# -o - is standard output (a pipe or a file the shell opened), for a dump and for the module; no
# file named '-' appears.
"$D" compile "$SPEC" --emit=plan -o - 2>/dev/null | grep -q deepgemm-plan-1 || bad "-o - did not write the plan to stdout"
{ "$D" compile "$SPEC" -o - > stdout.ko && "$D" compile "$SPEC" -o file.ko && cmp -s stdout.ko file.ko; } 2>/dev/null ||
  bad "-o - did not write the module to stdout"
[ ! -e ./- ] || bad "-o - wrote a file named '-'"
# A FIFO is written in place (a reader gets the dump) and stays a FIFO.
mkfifo fifo
(timeout 60 cat fifo > fifo.out) &
expect 0 "" "$D" compile "$SPEC" --emit=plan -o fifo
wait
[ -p fifo ] || bad "the FIFO was replaced"
grep -q '"format": "deepgemm-plan-1"' fifo.out || bad "the FIFO's reader did not get the plan"
# A symlink is followed: its target is written, the link stays.
echo old > target && ln -s target link
expect 0 "" "$D" compile "$SPEC" --emit=plan -o link
[ -L link ] || bad "the symlink was replaced"
grep -q deepgemm-plan-1 target || bad "the symlink's target was not written"
ln -s missing dangling
expect 1 "symbolic link to 'missing', which does not exist" "$D" compile "$SPEC" --emit=plan -o dangling
[ -L dangling ] && [ ! -e missing ] || bad "the dangling link was followed or replaced"
# The spec itself, under its own name or a hard link, is never an output.
cp "$SPEC" s.dgml && ln s.dgml hard.dgml && cp s.dgml s.orig
expect 1 "it is an input of this command" "$D" compile s.dgml --emit=plan -o s.dgml
expect 1 "it is an input of this command" "$D" compile s.dgml -o hard.dgml
cmp -s s.dgml s.orig || bad "the spec was overwritten"
# A directory is refused as an output.
mkdir dir
expect 1 "cannot write 'dir': is a directory" "$D" compile "$SPEC" --emit=plan -o dir

# Reads: only regular files, bounded; never a hang on a FIFO or /dev/zero.
expect 1 "cannot read '/dev/zero': is a character device" "$D" compile /dev/zero
expect 1 "cannot read '/dev/zero': is a character device" "$D" inspect /dev/zero
expect 1 "cannot read '/dev/zero': is a character device" "$D" sim /dev/zero
expect 1 "cannot read 'fifo': is a FIFO" "$D" inspect fifo
expect 1 "cannot read 'dir': is a directory" "$D" inspect dir
expect 1 "cannot read 'dir': is a directory" "$D" sim dir
head -c 300000 /dev/zero | tr '\0' ' ' > big.dgml
expect 1 "cannot read 'big.dgml': is larger than the 262144-byte maximum" "$D" compile big.dgml

# sim's options: NaN, zero and out-of-range values are refused by name.
expect 1 "--stall: the back-pressure probability must be a number from 0 to 0.9, not 'nan'" "$D" sim x.ko --stall nan
expect 1 "--k: K must be a positive integer, not '0'" "$D" sim x.ko --k 0
expect 1 "--solver-timeout: the solver's budget in seconds must be a number" "$D" compile "$SPEC" --solver-timeout nan

# The solver's budget: running out is a user error naming the free constraints, not exit 70.
# A query that needs far longer than the budget, and an infeasible spec whose explanation runs out.
expect 1 "gave no answer within its budget of 0.5 s and 50000000 units \\(its time budget is spent\\)" "$D" compile "$SRC/tests/error/slow/hard_query.dgml" --emit=plan --solver-timeout 0.5
expect 1 "gave no answer within its budget of 0.001 s and 50000000 units|No valid candidate found" "$D" compile "$SRC/tests/error/infeasible_free_constraints.dgml" --emit=plan --solver-timeout 0.001
# The work budget (Z3's resource units): the same error on every machine, however loaded.
expect 1 "gave no answer within its budget of 600 s and 2000000 units \\(its work budget is spent\\)" "$D" compile "$SRC/tests/error/slow/hard_query.dgml" --emit=plan --solver-work 2000000
expect 1 "--solver-work: the solver's work budget in units must be a whole number from 1000 to 4000000000, not '0'" "$D" compile "$SPEC" --solver-work 0
expect 1 "--solver-work: the solver's work budget in units must be a whole number from 1000 to 4000000000, not '1e6'" "$D" compile "$SPEC" --solver-work 1e6

# The cache: an entry for another target at this spec's key is not served.
expect 0 "" "$D" compile "$SPEC" -o gpu.ko
expect 0 "" "$D" compile "$SRC/examples/npu_int8.dgml" -o npu.ko
entry=$(ls cache/*.ko | head -n 1)
for e in cache/*.ko; do cp npu.ko "$e"; done
expect 0 "corrupt entry .*(a module for NPU|its key record)" "$D" compile "$SPEC" -o again.ko --verbose
cmp -s gpu.ko again.ko || bad "the rebuilt module differs from the first"
# A directory where an entry belongs is rebuilt around, not an internal error.
rm -rf cache && mkdir -p cache
expect 0 "" "$D" compile "$SPEC" -o c1.ko
k=$(ls cache/*.ko | head -n 1); rm -f "$k"; mkdir "$k"
expect 0 "" "$D" compile "$SPEC" -o c2.ko
cmp -s c1.ko c2.ko || bad "the module built beside a directory entry differs"

# sim never builds or runs Verilog that the generator does not emit.
expect 0 "" "$D" compile "$SRC/examples/npu_int8.dgml" -o npu.ko
python3 - npu.ko evil.ko evil_path.ko <<'PY' || bad "could not make the altered modules"
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
n, table = struct.unpack_from('<II', b, 48)
secs = []
for i in range(n):
    e = table + 32 * i
    kind, flags, off, size, crc = struct.unpack_from('<IIIII', b, e)
    if kind != 11:  # no signature
        secs.append([kind, flags, bytes(b[e + 20:e + 32]), bytes(b[off:off + size])])
def write(path, secs):
    # Re-lay the module out, checksums recomputed (the format's canonical placement).
    off = 64 + 32 * len(secs)
    out = bytearray(b[:64]); struct.pack_into('<I', out, 48, len(secs))
    table_bytes = bytearray(); payload = bytearray()
    for kind, flags, name, data in secs:
        off = (off + 15) // 16 * 16
        table_bytes += struct.pack('<IIIII', kind, flags, off, len(data), zlib.crc32(data)) + name
        payload += b'\0' * (off - (64 + 32 * len(secs) + len(payload))) + data
        off += len(data)
    size = (off + 15) // 16 * 16
    payload += b'\0' * (size - 64 - 32 * len(secs) - len(payload))
    struct.pack_into('<I', out, 56, size); struct.pack_into('<I', out, 60, 0)
    crc = zlib.crc32(bytes(out) + bytes(table_bytes))
    struct.pack_into('<I', out, 60, crc)
    open(path, 'wb').write(bytes(out + table_bytes + payload))
# evil.ko: a system task in the first Verilog file; evil_path.ko: a file named by a path.
mark = b'// ---- file: '
for path, edit in ((sys.argv[2], lambda v: v.replace(b'endmodule', b'initial $system("touch pwned");\nendmodule', 1)),
                   (sys.argv[3], lambda v: v.replace(mark + v[len(mark):v.index(b'\n')], mark + b'../escape.v', 1))):
    write(path, [[k, f, nm, edit(d) if k == 6 else d] for k, f, nm, d in secs])
PY
expect 0 "" "$D" inspect evil.ko
expect 1 "not built or run: .*system task or function '\\\$system'" "$D" sim evil.ko
[ ! -e pwned ] || bad "sim ran the module's code"
# inspect --verilog writes the files a module holds, and only under the folder it is given.
mkdir -p xv/in
expect 1 "names a bad file '../escape.v'" "$D" inspect evil_path.ko --verilog xv/in
[ ! -e xv/escape.v ] || bad "inspect --verilog wrote outside its folder"
expect 1 "names a bad file '../escape.v'" "$D" sim evil_path.ko
expect 1 "the module holds no Verilog \\(it is for a GPU\\)" "$D" inspect file.ko --verilog xv/gpu

# A model the generator cannot build is an error naming the field, never planned as another one.
mkdir -p models && cp "$SRC/hw-models/schema.json" models/
python3 - "$SRC/hw-models/npu16.json" models/npu_is.json <<'PY' || bad "could not make the model"
import json, sys
m = json.load(open(sys.argv[1]))
m["name"] = "npu_is"
m["npu"]["dataflows"] = ["input_stationary"]
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
sed 's/^target npu16;/target npu_is;/' "$SRC/examples/npu_int8.dgml" > is.dgml
expect 1 'npu.dataflows lists "input_stationary": the generated compute engines are weight_stationary and output_stationary; list only those in npu.dataflows' \
  "$D" --hw-models models compile is.dgml -o is.ko
[ ! -e is.ko ] || bad "a module was written for a model that cannot be built"
# ... also beside a dataflow the generator builds: input stationary was once planned as output
# stationary without a word.
python3 - "$SRC/hw-models/npu16.json" models/npu_is.json <<'PY' || bad "could not make the model"
import json, sys
m = json.load(open(sys.argv[1]))
m["name"] = "npu_is"
m["npu"]["dataflows"] = ["input_stationary", "output_stationary"]
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
expect 1 'npu.dataflows lists "input_stationary"' "$D" --hw-models models compile is.dgml -o is.ko
[ ! -e is.ko ] || bad "a module was written for a model that lists input_stationary"
expect 1 'npu.dataflows lists "input_stationary"' "$D" --hw-models models compile is.dgml --emit=plan
rm -f models/npu_is.json
# Models the generator does not build yet fail with exit 1 naming the field, never a plan-only module.
python3 - "$SRC/hw-models/npu16.json" models <<'PY' || bad "could not make the models"
import json, sys
base = json.load(open(sys.argv[1]))
for name, edit in (("npu_acc40", {"acc_width": 40, "acc_width_bits": 640}), ("npu_banks12", {"spad_banks": 12}),
                   ("npu_rows6ws", {"pe_rows": 6, "dataflows": ["weight_stationary"]}), ("npu_rows6", {"pe_rows": 6})):
    m = json.loads(json.dumps(base))
    m["name"] = name
    m["npu"].update(edit)
    json.dump(m, open(sys.argv[2] + "/" + name + ".json", "w"), indent=1)
PY
for m in npu_acc40 npu_banks12 npu_rows6ws npu_rows6; do sed "s/^target npu16;/target $m;/" "$SRC/examples/npu_int8.dgml" > $m.dgml; done
expect 1 "npu.acc_width is 40: the generated accumulators are 32, 48 or 64 bits" "$D" --hw-models models compile npu_acc40.dgml -o acc40.ko
expect 1 "npu.spad_banks is 12: .* must be a power of two \\(the nearest are 8 and 16\\)" "$D" --hw-models models compile npu_banks12.dgml -o banks12.ko
expect 1 "npu.pe_rows is 6 and npu.dataflows lists only weight_stationary, .*: make npu.pe_rows a power of two \\(the nearest are 4 and 8\\) or add output_stationary to npu.dataflows" "$D" --hw-models models compile npu_rows6ws.dgml -o rows6ws.ko
[ ! -e acc40.ko ] && [ ! -e banks12.ko ] && [ ! -e rows6ws.ko ] || bad "a module was written for a model that cannot be built"
# ... while a 6-row array is built (output stationary; its rows wrap around the 16 banks).
expect 0 "" "$D" --hw-models models compile npu_rows6.dgml --emit=verilog -o rows6
grep -rq "Rows(6)" rows6 || bad "no Verilog of a 6-row array"

# Signed modules: keygen, compile --sign, inspect and sim with a trusted key.
expect 0 "public key: key.pub" "$D" keygen key
expect 1 "a key is never replaced" "$D" keygen key
expect 0 "" "$D" keygen other
expect 0 "" "$D" compile "$SRC/examples/npu_int8.dgml" -o signed.ko --sign key
expect 0 "signature: Ed25519 by [0-9a-f]{64}: valid, the trusted key" "$D" inspect signed.ko --trusted-key key.pub
expect 1 "signed by a key that is not the trusted one" "$D" inspect signed.ko --trusted-key other.pub
expect 1 "module is not signed" "$D" inspect npu.ko --trusted-key key.pub
expect 0 "signature: module is not signed" "$D" inspect npu.ko
expect 1 "untrusted module: module is not signed" "$D" sim npu.ko --trusted-key key.pub
expect 1 "untrusted module: module is signed by a key that is not the trusted one" "$D" sim signed.ko --trusted-key other.pub
# sim's trace is written by the simulator: its path obeys the rules of every output, checked first.
ln -sf missing-target dangling.vcd
expect 1 "cannot write the trace to 'dir': is a directory" "$D" sim npu.ko --trace dir
expect 1 "cannot write the trace to 'dangling.vcd': is a symbolic link to 'missing-target', which does not exist" "$D" sim npu.ko --trace dangling.vcd
expect 1 "cannot write the trace to 'npu.ko': it is the module being simulated" "$D" sim npu.ko --trace npu.ko
expect 1 "is not a secret key file" "$D" compile "$SPEC" -o x.ko --sign key.pub
expect 1 "--sign applies to a module" "$D" compile "$SPEC" --emit=plan --sign key
cp key key.orig
expect 1 "cannot write 'key': it is an input of this command" "$D" compile "$SPEC" -o key --sign key
cmp -s key key.orig || bad "the signing key was overwritten"
# The signature survives a cache hit (the cache holds the module unsigned).
expect 0 "Cache hit" "$D" compile "$SRC/examples/npu_int8.dgml" -o signed2.ko --sign key --verbose
cmp -s signed.ko signed2.ko || bad "a module signed on a cache hit differs"

[ "$fails" = 0 ] && echo "hostile_cli: all cases held" || { echo "hostile_cli: $fails failed"; exit 1; }

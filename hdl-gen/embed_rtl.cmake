# cmake -DOUT=rtl_library.cpp -DFILES="a.v;b.v" -P embed_rtl.cmake: the fixed RTL library, embedded
# in the compiler so that a generated design is complete wherever the compiler runs.
set(body "")
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  get_filename_component(stem ${f} NAME_WE)
  file(READ ${f} text)
  # A module with properties (assertions under FORMAL) is proved on its own, but for protocol
  # checkers (*_check): those hold no design, and are bound by the proofs (*_proof) and by
  # co-simulation instead; and but for a module with a proof wrapper (<module>_proof.v), whose
  # properties need the environment the wrapper assumes and are proved through it. (A module may
  # show its state to proofs under FORMAL without asserting.)
  get_filename_component(dir ${f} DIRECTORY)
  string(FIND "${text}" "`ifdef FORMAL" at)
  set(asserts -1)
  if(NOT at EQUAL -1)
    string(SUBSTRING "${text}" ${at} -1 formal_part)
    string(FIND "${formal_part}" "assert (" asserts)
  endif()
  if(at EQUAL -1 OR asserts EQUAL -1 OR stem MATCHES "_check$" OR EXISTS ${dir}/${stem}_proof.v)
    set(props false)
  else()
    set(props true)
  endif()
  string(APPEND body "      {\"${name}\", \"${stem}\", R\"DGRTL(${text})DGRTL\", ${props}},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from hdl-gen/rtl/*.v by embed_rtl.cmake.\n#include \"hdlgen/rtl_library.h\"\n\nnamespace dg::hdlgen {\n\nconst std::vector<LibraryFile>& rtl_library() {\n  static const std::vector<LibraryFile> files = {\n${body}  };\n  return files;\n}\n\n}  // namespace dg::hdlgen\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)

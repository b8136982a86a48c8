# cmake -DOUT=board_files.cpp -DDIR=boards -P embed_boards.cmake: every FPGA prototype board of
# boards/ (a folder with a board.json) with its RTL (*.v) and pin file (*.pcf), embedded in the
# compiler so that synthesis can place and route a design on the board wherever the compiler runs.
file(GLOB descriptions ${DIR}/*/board.json)
list(SORT descriptions)
set(body "")
foreach(desc ${descriptions})
  get_filename_component(dir ${desc} DIRECTORY)
  get_filename_component(board ${dir} NAME)
  file(GLOB files ${dir}/board.json ${dir}/*.v ${dir}/*.pcf)
  list(SORT files)
  foreach(f ${files})
    get_filename_component(name ${f} NAME)
    file(READ ${f} text)
    string(APPEND body "      {\"${board}\", \"${name}\", R\"DGBOARD(${text})DGBOARD\"},\n")
  endforeach()
endforeach()
file(WRITE ${OUT}.tmp "// Generated from boards/*/ by embed_boards.cmake.\n#include \"hdlgen/board_files.h\"\n\nnamespace dg::hdlgen {\n\nconst std::vector<BoardFile>& board_files() {\n  static const std::vector<BoardFile> files = {\n${body}  };\n  return files;\n}\n\n}  // namespace dg::hdlgen\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)

dg_unit_test(frontend SOURCES lexer_test.cpp parser_test.cpp sema_test.cpp LIBS dg_sema)

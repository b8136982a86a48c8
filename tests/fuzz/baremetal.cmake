# The freestanding runtime's plan reader and executor, through its board API (host port).
if(DEFINED DG_BAREMETAL_CORE_SOURCES)
  set(_bm_fuzz_sources ${DG_BAREMETAL_CORE_SOURCES} ${DG_BAREMETAL_DIR}/port/host/port_host.cpp)
  dg_fuzz_test(baremetal_plan
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/baremetal_plan_fuzz.cpp ${_bm_fuzz_sources}
    INCLUDES ${PROJECT_SOURCE_DIR}/runtime-baremetal/include ${DG_BAREMETAL_DIR}/port/host
    CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/baremetal_plan)
  if(TARGET fuzz_baremetal_plan)
    # The core refuses hosted builds: its sources keep the freestanding flags here too.
    set_source_files_properties(${DG_BAREMETAL_CORE_SOURCES} TARGET_DIRECTORY fuzz_baremetal_plan
                                PROPERTIES COMPILE_OPTIONS "-ffreestanding;-fno-exceptions;-fno-rtti")
  endif()
endif()

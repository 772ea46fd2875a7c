# Compares a generated document with `mbstep ARGS` (tools/mbstep/CMakeLists.txt):
# docs/input.md is `mbstep manual`, docs/plugins.md is `mbstep plugins --markdown`.
# -DMBSTEP=<binary> -DMANUAL=<committed file> [-DARGS="manual"] (a CMake list).
if(NOT DEFINED ARGS)
  set(ARGS manual)
endif()
string(REPLACE " " ";" args "${ARGS}")
execute_process(COMMAND ${MBSTEP} ${args} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mbstep ${ARGS} failed (${rc})")
endif()
file(READ ${MANUAL} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${MANUAL} is stale: regenerate it with `build/bin/mbstep ${ARGS} > ${MANUAL}`")
endif()
message(STATUS "${MANUAL} is current")

# mbstep_add_plugin(<family> SOURCES <src>... [OUTPUT_DIRECTORY <dir>] [NO_INSTALL])
#
# One plugin family = one MODULE library libmbstep_<family>.so (STYLE.md §7, §10) with hidden
# visibility: its one exported symbol is `mbstep_register` (MBSTEP_PLUGIN_EXPORT). The same file
# serves the project's own families and, installed next to mbstepConfig.cmake, out-of-tree
# plugins built with find_package(mbstep).
#
#   OUTPUT_DIRECTORY  where the .so is written; default: <build>/lib/mbstep in the mbstep tree,
#                     the current binary directory out of tree (point MBSTEP_PLUGIN_PATH at it)
#   NO_INSTALL        no install rule; otherwise the .so installs to <libdir>/mbstep, the
#                     directory an installed `mbstep` searches without MBSTEP_PLUGIN_PATH
include_guard(GLOBAL)
include(GNUInstallDirs)

function(mbstep_add_plugin family)
  cmake_parse_arguments(P "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT P_SOURCES)
    message(FATAL_ERROR "mbstep_add_plugin(${family}): no SOURCES")
  endif()
  if(NOT P_OUTPUT_DIRECTORY)
    if(DEFINED MBSTEP_PLUGIN_OUTPUT_DIR)
      set(P_OUTPUT_DIRECTORY ${MBSTEP_PLUGIN_OUTPUT_DIR})
    else()
      set(P_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  set(target mbstep_${family})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE mbstep::core)
  if(TARGET mbstep_warnings)
    target_link_libraries(${target} PRIVATE mbstep_warnings)
  endif()
  # Installed next to libmbstep_core.so's directory: <libdir>/mbstep/../ holds the core.
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIRECTORY}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/..")
  if(NOT P_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/mbstep)
  endif()
  set_property(GLOBAL APPEND PROPERTY MBSTEP_PLUGIN_TARGETS ${target})
endfunction()

# mbstep_add_plugin(<family> SOURCES ...): a MODULE library libmbstep_<family>.so in
# <build>/lib/mbstep with hidden visibility; its one exported symbol is mbstep_register.
function(mbstep_add_plugin family)
  cmake_parse_arguments(P "" "" "SOURCES" ${ARGN})
  set(target mbstep_${family})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE mbstep::core mbstep_warnings)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${MBSTEP_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/mbstep)
  set_property(GLOBAL APPEND PROPERTY MBSTEP_PLUGIN_TARGETS ${target})
endfunction()

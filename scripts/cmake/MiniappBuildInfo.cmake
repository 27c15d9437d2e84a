# Provenance recorded in every report: the git commit (`git describe` at configure time, with
# a fallback for source tarballs), the compiler and the flags. Writes build_info_generated.hpp
# into the current binary directory; only src/build_info.cpp includes it.
set(MINIAPP_GIT_DESCRIBE "unknown")
set(MINIAPP_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(MINIAPP_GIT_DESCRIBE "${out}")
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(MINIAPP_GIT_COMMIT "${out}")
  endif()
endif()
# Re-run configure when HEAD moves, so the recorded commit follows the checkout.
if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE head_file
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_file)
    get_filename_component(head_file "${head_file}" ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${head_file}")
  endif()
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type_upper)
set(MINIAPP_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${build_type_upper}}")
string(STRIP "${MINIAPP_CXX_FLAGS}" MINIAPP_CXX_FLAGS)
# What src/CMakeLists.txt adds to every target to forbid FMA contraction.
if(CMAKE_CXX_COMPILER_ID STREQUAL "NVHPC")
  set(MINIAPP_EXTRA_FLAGS "-Mnofma")
else()
  set(MINIAPP_EXTRA_FLAGS "-ffp-contract=off")
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/build_info_generated.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/build_info_generated.hpp @ONLY)

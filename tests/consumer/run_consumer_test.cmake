# ctest consumer_find_package (cmake -P): install the current build into a
# fresh prefix, build tests/consumer against it with find_package(gconv), and
# run the consumers.
#   -DBUILD_DIR=<gconv build> -DSOURCE_DIR=<tests/consumer> -DWORK_DIR=<scratch>
#   -DGENERATOR=<generator> -DCXX=<c++ compiler> -DCC=<c compiler>
# Checks: the installed layout; the FLOPs printed from C++ and C equal the
# formula's; the installed library reads the INSTALLED configs (a pool file
# removed from them changes the pool size, which a fallback to the source
# tree would not).
cmake_minimum_required(VERSION 3.24)

foreach(v BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX CC)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "consumer test: -D${v}=... is required")
  endif()
endforeach()

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run_checked("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(f lib/libgconv.so bin/gconv include/gconv/gconv.h include/gconv/registry.hpp include/gconv/problem.hpp
          share/gconv/configs/arch/sm90.json share/gconv/configs/pools/igemm_fwd.json
          share/gconv/kernels/igemm/igemm.cuh lib/cmake/gconv/gconvConfig.cmake
          lib/cmake/gconv/gconvConfigVersion.cmake lib/cmake/gconv/gconvTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "consumer test: ${f} is not installed under ${prefix}")
  endif()
endforeach()
# Only the public headers are installed.
file(GLOB_RECURSE installed_headers RELATIVE ${prefix}/include ${prefix}/include/*)
foreach(h ${installed_headers})
  if(NOT h MATCHES "^gconv/[a-z_]+\\.(h|hpp)$")
    message(FATAL_ERROR "consumer test: unexpected installed header ${h}")
  endif()
endforeach()

run_checked("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
            -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC})
run_checked("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# 2 * N * K * Ho*Wo * C/G * Y*X for the spec below.
set(spec fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1)
math(EXPR want_flops "2 * 32 * 256 * 56 * 56 * (256 / 32) * 3 * 3")

# Without GCONV_CONFIG_DIR the library must find <prefix>/share/gconv/configs.
set(run_env ${CMAKE_COMMAND} -E env --unset=GCONV_CONFIG_DIR)
run_checked("consumer_c" ${run_env} ${WORK_DIR}/build/consumer_c ${spec})
if(NOT run_output MATCHES "flops ${want_flops}\n")
  message(FATAL_ERROR "consumer test: consumer_c printed\n${run_output}\nwant flops ${want_flops}")
endif()
run_checked("consumer" ${run_env} ${WORK_DIR}/build/consumer ${spec})
if(NOT run_output MATCHES "flops ${want_flops}\n")
  message(FATAL_ERROR "consumer test: consumer printed\n${run_output}\nwant flops ${want_flops}")
endif()
if(NOT run_output MATCHES "kernels ([0-9]+)\n" OR CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "consumer test: consumer printed no pool size:\n${run_output}")
endif()
set(full_count ${CMAKE_MATCH_1})
if(NOT run_output MATCHES "kernel [a-z]")
  message(FATAL_ERROR "consumer test: consumer printed no kernel:\n${run_output}")
endif()

# The installed configs are the ones read: drop the installed direct fwd pool.
file(REMOVE ${prefix}/share/gconv/configs/pools/direct_fwd.json)
run_checked("consumer (reduced pool)" ${run_env} ${WORK_DIR}/build/consumer ${spec})
if(NOT run_output MATCHES "kernels ([0-9]+)\n" OR NOT CMAKE_MATCH_1 LESS full_count)
  message(FATAL_ERROR "consumer test: removing the installed direct_fwd.json did not shrink the pool "
                      "(${full_count} kernels before); is the library reading another configs folder?\n${run_output}")
endif()
message(STATUS "consumer test: ok (flops ${want_flops}, pool ${full_count} -> ${CMAKE_MATCH_1})")

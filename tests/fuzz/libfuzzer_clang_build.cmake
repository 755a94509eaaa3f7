# Runs the libFuzzer targets from a GCC build: configures a small clang build of the fuzz targets
# and the core libraries they instrument in BUILD_DIR, builds them and runs each over its seeds for
# the time tests/fuzz/CMakeLists.txt gives it (SHARDWISE_FUZZ_SECONDS). A crash fails this test and
# its reproducer stays in BUILD_DIR/tests/fuzz/artifacts_<name>/ and is replayed first
# by the next run.
#   cmake -DSOURCE_DIR=<src> -DBUILD_DIR=<dir> -DCLANGXX=<clang++> [-DLAUNCHER=ccache] [-DSECONDS=25]
#         -P libfuzzer_clang_build.cmake
cmake_minimum_required(VERSION 3.25)
foreach(required SOURCE_DIR BUILD_DIR CLANGXX)
    if(NOT DEFINED ${required})
        message(FATAL_ERROR "libfuzzer_clang_build.cmake: -D${required}=... is required")
    endif()
endforeach()
if(NOT CLANGXX OR NOT EXISTS "${CLANGXX}")
    message(FATAL_ERROR "clang++ not found: libFuzzer needs clang and its runtime (Debian 12: apt-get install clang "
                        "libclang-rt-14-dev; packaging/bootstrap.sh lists both), then reconfigure")
endif()
if(NOT SECONDS)
    set(SECONDS 25)
endif()
set(fuzzed protocol_event log_classifier) # fuzz_<name>, artifacts in tests/fuzz/artifacts_<name>/
list(TRANSFORM fuzzed PREPEND fuzz_ OUTPUT_VARIABLE targets)
cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)

function(run_step what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
    message(STATUS "${what}: ok")
endfunction()

# Only the fuzz targets get built (the tests' CMake files expect the CLI target, so it is configured
# but not built); the app and the runner are left out. Debug at -O1 keeps assertions on and still
# fuzzes at a useful speed.
run_step("configure the clang fuzz build in ${BUILD_DIR}"
    ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} -G Ninja
        -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}
        -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g -fno-omit-frame-pointer"
        -DSHARDWISE_BUILD_APP=OFF -DSHARDWISE_BUILD_CLI=ON -DSHARDWISE_BUILD_RUNNER=OFF -DSHARDWISE_BUILD_TESTS=ON
        -DSHARDWISE_FUZZ=ON -DSHARDWISE_FUZZ_SECONDS=${SECONDS} -DSHARDWISE_WARNINGS_AS_ERRORS=ON)
run_step("build ${targets}" ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${targets} -j ${jobs})

# Reproducers of an earlier run come first: one that still fails fails this run before any fuzzing;
# one that passes now was fixed and goes.
set(reproducers)
foreach(name ${fuzzed})
    file(GLOB earlier ${BUILD_DIR}/tests/fuzz/artifacts_${name}/*)
    foreach(f ${earlier})
        execute_process(COMMAND ${BUILD_DIR}/tests/bin/fuzz_${name} ${f} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
        if(rc EQUAL 0)
            file(REMOVE ${f})
            message(STATUS "${f} no longer fails; removed")
        else()
            list(APPEND reproducers "  ${BUILD_DIR}/tests/bin/fuzz_${name} ${f}")
        endif()
    endforeach()
endforeach()

if(NOT reproducers)
    list(JOIN targets "|" alternatives)
    execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${BUILD_DIR} -R "^(${alternatives})$" -j ${jobs} --output-on-failure
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    message("${out}")
    foreach(name ${fuzzed})
        file(GLOB found ${BUILD_DIR}/tests/fuzz/artifacts_${name}/*)
        foreach(f ${found})
            list(APPEND reproducers "  ${BUILD_DIR}/tests/bin/fuzz_${name} ${f}")
        endforeach()
    endforeach()
endif()
if(reproducers)
    list(JOIN reproducers "\n" lines)
    message(FATAL_ERROR "libFuzzer inputs that fail; replay each with:\n${lines}")
endif()
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the libFuzzer runs failed (${rc}) without leaving a reproducer")
endif()

# install_consumer: install a merino build into a scratch prefix, then build and run a user's
# program against it, once through find_package(merino) and once through pkg-config (and the
# profiled variant both ways: merino::prof, merino-prof).
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=<tests/install> -DWORK_DIR=... -DGENERATOR=...
#         -DC_COMPILER=... -DCXX_COMPILER=... -DPKG_CONFIG=... -DLIBDIR=lib [-DCONFIG=Release]
#         [-DSANITIZE_FLAGS="..."] -P run.cmake
#
# Any missing file, failed step or wrong answer fails the test.
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR C_COMPILER CXX_COMPILER PKG_CONFIG LIBDIR)
    if("${${var}}" STREQUAL "" OR "${${var}}" MATCHES "-NOTFOUND$")
        message(FATAL_ERROR "install_consumer: ${var} is not set (${${var}}); is pkg-config installed?")
    endif()
endforeach()

function(step what)
    message(STATUS "install_consumer: ${what}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "install_consumer: ${what}: failed (${rc})")
    endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(libdir "${prefix}/${LIBDIR}")
separate_arguments(san UNIX_COMMAND "${SANITIZE_FLAGS}")

# ---- 1. install -------------------------------------------------------------------------------
set(config_args "")
if(CONFIG)
    set(config_args --config "${CONFIG}")
endif()
step("cmake --install into ${prefix}"
     "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})

set(expected
    include/merino.h
    ${LIBDIR}/libmerino.a
    ${LIBDIR}/libmerino.so
    ${LIBDIR}/pkgconfig/merino.pc
    include/merino_prof.h
    ${LIBDIR}/libmerino_prof.a
    ${LIBDIR}/libmerino_prof.so
    ${LIBDIR}/pkgconfig/merino-prof.pc
    ${LIBDIR}/cmake/merino/merinoConfig.cmake
    ${LIBDIR}/cmake/merino/merinoConfigVersion.cmake
    ${LIBDIR}/cmake/merino/merinoTargets.cmake)
get_filename_component(source_root "${SOURCE_DIR}/../.." ABSOLUTE)
set(have_hpp OFF)
if(EXISTS "${source_root}/include/merino.hpp")
    list(APPEND expected include/merino.hpp)
    set(have_hpp ON)
endif()
foreach(f IN LISTS expected)
    if(NOT EXISTS "${prefix}/${f}")
        message(FATAL_ERROR "install_consumer: ${f} was not installed into ${prefix}")
    endif()
endforeach()

# ---- 2. a CMake user: find_package(merino) + merino::merino / merino::merino_shared -------------
string(JOIN " " san_str ${san})
set(cm_build "${WORK_DIR}/cmake-consumer")
step("configure the find_package consumer"
     "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${cm_build}" -G "${GENERATOR}"
     -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
     "-DCMAKE_PREFIX_PATH=${prefix}"
     "-DCMAKE_C_FLAGS=${san_str}" "-DCMAKE_CXX_FLAGS=${san_str}" "-DCMAKE_EXE_LINKER_FLAGS=${san_str}"
     -DMERINO_CONSUMER_CXX=${have_hpp})
# It must have found the package just installed, not one installed elsewhere on the machine.
file(STRINGS "${cm_build}/CMakeCache.txt" found_dir REGEX "^merino_DIR:")
string(REGEX REPLACE "^merino_DIR:[A-Z]*=" "" found_dir "${found_dir}")
file(REAL_PATH "${found_dir}" found_dir)
file(REAL_PATH "${libdir}/cmake/merino" want_dir)
if(NOT found_dir STREQUAL want_dir)
    message(FATAL_ERROR "install_consumer: find_package found merino in ${found_dir}, not ${want_dir}")
endif()
step("build the find_package consumer" "${CMAKE_COMMAND}" --build "${cm_build}")
step("run consumer (merino::merino, static)" "${cm_build}/consumer")
step("run consumer_shared (merino::merino_shared)" "${cm_build}/consumer_shared")
step("run consumer_prof (merino::prof)" "${cm_build}/consumer_prof")
step("run consumer_prof_shared (merino::prof_shared)" "${cm_build}/consumer_prof_shared")
if(have_hpp)
    step("run consumer_cpp (merino.hpp)" "${cm_build}/consumer_cpp")
endif()

# ---- 3. a pkg-config user: cc consumer.c $(pkg-config --cflags --libs merino) ------------------
set(ENV{PKG_CONFIG_PATH} "${libdir}/pkgconfig")
execute_process(COMMAND "${PKG_CONFIG}" --variable=pcfiledir merino
                OUTPUT_VARIABLE pcdir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: pkg-config does not find merino in ${libdir}/pkgconfig")
endif()
file(REAL_PATH "${pcdir}" pcdir)
file(REAL_PATH "${libdir}/pkgconfig" want_pcdir)
if(NOT pcdir STREQUAL want_pcdir)
    message(FATAL_ERROR "install_consumer: pkg-config found merino.pc in ${pcdir}, not ${want_pcdir}")
endif()
execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs merino
                OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: pkg-config --cflags --libs merino failed")
endif()
message(STATUS "install_consumer: pkg-config --cflags --libs merino: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
set(pc_exe "${WORK_DIR}/consumer_pc")
# -lmerino picks libmerino.so; merino.pc's own rpath lets it run without LD_LIBRARY_PATH.
step("build the pkg-config consumer"
     "${C_COMPILER}" ${san} -o "${pc_exe}" "${SOURCE_DIR}/consumer.c" ${pc_flags})
step("run consumer_pc (pkg-config, shared)" "${pc_exe}")

# ---- 4. the profiled variant through pkg-config: merino-prof's flags define MERINO_PROFILE=1 -------
execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs merino-prof
                OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: pkg-config --cflags --libs merino-prof failed")
endif()
message(STATUS "install_consumer: pkg-config --cflags --libs merino-prof: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
set(pc_exe "${WORK_DIR}/consumer_prof_pc")
step("build the pkg-config consumer of merino-prof"
     "${C_COMPILER}" ${san} -o "${pc_exe}" "${SOURCE_DIR}/consumer_prof.c" ${pc_flags})
step("run consumer_prof_pc (pkg-config merino-prof, shared)" "${pc_exe}")

message(STATUS "install_consumer: all consumers built and ran")

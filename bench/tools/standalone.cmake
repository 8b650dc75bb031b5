# bench/CMakeLists.txt configured on its own (bench/run --workloads-dir): the benchmark folders of
# MERINO_BENCH_DIRS, built against the libraries of the merino build in MERINO_BUILD_DIR and the
# headers of this source tree, as merino::merino, merino::prof and merino_idle_naive.

set(MERINO_BUILD_DIR "" CACHE PATH "A merino build directory (its libmerino.a is linked)")
set(MERINO_BENCH_DIRS "" CACHE STRING "Folders of benchmark folders to build (a ;-list)")
get_filename_component(merino_root ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
if(NOT EXISTS ${MERINO_BUILD_DIR}/libmerino.a)
    message(FATAL_ERROR "merino bench: MERINO_BUILD_DIR=${MERINO_BUILD_DIR} holds no libmerino.a: "
                        "build merino first (make) and name its build directory")
endif()

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS ON)
set(CMAKE_CXX_STANDARD 17)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
add_compile_options(-Wall -Wextra)

# merino_import(TARGET FILE [DEFINES...]): an imported static library of the merino build.
function(merino_import tgt file)
    if(EXISTS ${MERINO_BUILD_DIR}/${file})
        add_library(${tgt} STATIC IMPORTED GLOBAL)
        set_target_properties(${tgt} PROPERTIES IMPORTED_LOCATION ${MERINO_BUILD_DIR}/${file}
            INTERFACE_INCLUDE_DIRECTORIES ${merino_root}/include
            INTERFACE_LINK_LIBRARIES Threads::Threads
            INTERFACE_COMPILE_DEFINITIONS "${ARGN}")
    endif()
endfunction()
merino_import(merino::merino libmerino.a)
merino_import(merino::prof libmerino_prof.a MERINO_PROFILE=1)
merino_import(merino_idle_naive libmerino_idle_naive.a)

set(BENCH_DIRS "")
foreach(d IN LISTS MERINO_BENCH_DIRS)
    get_filename_component(d ${d} ABSOLUTE)
    list(APPEND BENCH_DIRS ${d})
endforeach()

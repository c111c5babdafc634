# The CLI without C++ shared libraries: a run of `rigport` on a small file is mostly process start,
# and loading libstdc++.so, libfmt, libmeshoptimizer, libsimdjson, libpugixml, libstb and libz cost ~1 ms
# of it (measured: docs/speed.md). Debian ships static archives of pugixml, stb, libdeflate, draco
# and Nettle (the cache's SHA-256) only, so
# meshoptimizer, simdjson and fmt are compiled here from Debian's own source packages at the
# installed versions (scripts/fetch_static_deps.sh puts them in .deps/src/), and libstdc++/libgcc
# are linked statically. The library itself, its installed package and the tests' links are unchanged.
# Sets RIGPORT_STATIC_CLI_LIBS (empty when a piece is missing: the CLI then links as before).

set(RIGPORT_STATIC_CLI_LIBS "")
set(_deps "${RIGPORT_DEPS_SOURCE_DIR}")
file(GLOB _meshopt_dir LIST_DIRECTORIES true "${_deps}/meshoptimizer-${meshoptimizer_VERSION}*")
file(GLOB _simdjson_dir LIST_DIRECTORIES true "${_deps}/simdjson-${simdjson_VERSION}")
file(GLOB _fmt_dir LIST_DIRECTORIES true "${_deps}/fmtlib-${fmt_VERSION}*")
find_library(RIGPORT_PUGIXML_STATIC NAMES libpugixml.a)
find_library(RIGPORT_STB_STATIC NAMES libstb.a)
find_library(RIGPORT_LIBDEFLATE_STATIC NAMES libdeflate.a)
find_library(RIGPORT_DRACO_STATIC NAMES libdraco.a)
find_library(RIGPORT_NETTLE_STATIC NAMES libnettle.a)

set(_missing "")
foreach(_piece _meshopt_dir _simdjson_dir _fmt_dir RIGPORT_PUGIXML_STATIC RIGPORT_STB_STATIC RIGPORT_LIBDEFLATE_STATIC RIGPORT_DRACO_STATIC
               RIGPORT_NETTLE_STATIC)
  if(NOT ${_piece})
    list(APPEND _missing ${_piece})
  endif()
endforeach()
if(_missing)
  message(STATUS "rigport CLI: linked to the shared libraries (missing for a static link: ${_missing}; "
                 "scripts/setup.sh fetches the sources into ${_deps})")
  return()
endif()

# Exactly the versions whose headers the library was compiled against (file(GLOB) above matched
# the installed version numbers), built with the flags Debian's packages use for them.
file(GLOB _meshopt_sources "${_meshopt_dir}/src/*.cpp")
add_library(rigport_static_meshoptimizer STATIC EXCLUDE_FROM_ALL ${_meshopt_sources})
add_library(rigport_static_simdjson STATIC EXCLUDE_FROM_ALL "${_simdjson_dir}/singleheader/simdjson.cpp")
target_include_directories(rigport_static_simdjson PRIVATE "${_simdjson_dir}/singleheader")
target_compile_definitions(rigport_static_simdjson PRIVATE SIMDJSON_THREADS_ENABLED=1)
add_library(rigport_static_fmt STATIC EXCLUDE_FROM_ALL "${_fmt_dir}/src/format.cc" "${_fmt_dir}/src/os.cc")
target_include_directories(rigport_static_fmt PRIVATE "${_fmt_dir}/include")
foreach(_lib rigport_static_meshoptimizer rigport_static_simdjson rigport_static_fmt)
  # Third-party code: its own warnings are not ours to fix; full optimization whatever the build type.
  target_compile_options(${_lib} PRIVATE -w -O3)
endforeach()

# The static archives come before the shared libraries on the link line (rigport's own link
# dependencies follow), and --as-needed drops every shared library they leave with nothing to give.
set(RIGPORT_STATIC_CLI_LIBS rigport_static_meshoptimizer rigport_static_simdjson rigport_static_fmt
                            ${RIGPORT_PUGIXML_STATIC} ${RIGPORT_STB_STATIC} ${RIGPORT_LIBDEFLATE_STATIC} ${RIGPORT_DRACO_STATIC}
                            ${RIGPORT_NETTLE_STATIC})
message(STATUS "rigport CLI: C++ libraries linked statically (meshoptimizer ${meshoptimizer_VERSION}, "
               "simdjson ${simdjson_VERSION}, fmt ${fmt_VERSION} from ${_deps}; pugixml, stb, libdeflate, draco, nettle, libstdc++)")

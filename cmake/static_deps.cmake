# static_deps.cmake - STSL_STATIC_DEPS: the executables (stickslip,
# stickslip-mpi, benchmarks, tests) link SUNDIALS, HDF5 (with szip and
# zlib), GSL, libyaml and matio from their static archives; libc and libm
# stay shared.  Why: Debian's shared HDF5 brings about 40 libraries (curl,
# gnutls, krb5, ldap ... for a network driver stickslip never uses) that
# the dynamic loader maps and relocates at every start: 6 ms of the 7 ms
# `stickslip --version` costs, half of a `stickslip run` of the Janecek
# example (docs/benchmarks.md, "Process start-up").  The archives hold
# only what is called, so the network libraries are not linked at all.
#
# Default ON for Release builds (the default build type: what `cmake
# --install` installs), OFF for Debug and the sanitizer builds, which want
# the shared libraries' own checks and quick links.  The installed shared
# library (libstickslip.so) links the shared libraries whatever the option:
# Debian's archives are not position-independent.
#
# Sets STSL_EXE_DEPS: the dependencies of the internal library `stsl`.
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  set(STSL_STATIC_DEPS_DEFAULT ON)
else()
  set(STSL_STATIC_DEPS_DEFAULT OFF)
endif()
option(STSL_STATIC_DEPS "Link the executables with the static archives of SUNDIALS, HDF5, GSL, libyaml, matio"
  ${STSL_STATIC_DEPS_DEFAULT})

set(STSL_EXE_DEPS ${STSL_DEPS})
if(NOT STSL_STATIC_DEPS)
  return()
endif()

# One archive by file name, or the reason it is missing.
function(stsl_find_archive var name)
  find_library(${var} NAMES lib${name}.a)
  if(NOT ${var})
    set(missing "${missing} lib${name}.a" PARENT_SCOPE)
  endif()
  set(${var} ${${var}} PARENT_SCOPE)
endfunction()

set(missing "")
string(REGEX REPLACE "\\.so$" ".a" STSL_HDF5_A "${HDF5_C_LIBRARY_hdf5}")
if(NOT EXISTS "${STSL_HDF5_A}")
  set(missing "${missing} ${STSL_HDF5_A}")
endif()
foreach(name sz aec z gsl gslcblas yaml matio)
  stsl_find_archive(STSL_${name}_A ${name})
endforeach()
foreach(c cvodes arkode nvecserial sunmatrixdense sunlinsoldense sunnonlinsolnewton
    sunnonlinsolfixedpoint generic)
  if(NOT TARGET SUNDIALS::${c}_static)
    set(missing "${missing} SUNDIALS::${c}_static")
  endif()
endforeach()
if(missing)
  message(WARNING "STSL_STATIC_DEPS: no${missing}; linking the shared libraries")
  return()
endif()

add_library(stsl_static_deps INTERFACE)
# matio calls HDF5, HDF5 calls szip (libaec) and zlib: each before what it uses.
target_link_libraries(stsl_static_deps INTERFACE
  SUNDIALS::cvodes_static SUNDIALS::arkode_static SUNDIALS::nvecserial_static
  SUNDIALS::sunmatrixdense_static SUNDIALS::sunlinsoldense_static SUNDIALS::sunnonlinsolnewton_static
  SUNDIALS::sunnonlinsolfixedpoint_static SUNDIALS::generic_static
  ${STSL_matio_A} ${STSL_HDF5_A} ${STSL_sz_A} ${STSL_aec_A} ${STSL_z_A}
  ${STSL_gsl_A} ${STSL_gslcblas_A} ${STSL_yaml_A}
  Threads::Threads ${CMAKE_DL_LIBS} m)
target_include_directories(stsl_static_deps INTERFACE ${HDF5_C_INCLUDE_DIRS} ${GSL_INCLUDE_DIRS}
  ${YAML_INCLUDE_DIRS} ${MATIO_INCLUDE_DIRS})
target_compile_definitions(stsl_static_deps INTERFACE ${HDF5_C_DEFINITIONS})
set(STSL_EXE_DEPS stsl_static_deps)
message(STATUS "STSL_STATIC_DEPS: executables link the static archives (${STSL_HDF5_A} ...)")

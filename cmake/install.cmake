# install.cmake - the libraries others link (libstickslip.so and .a, both
# from the one compilation in stsl_objects), stickslip.h, the CLI, the
# plotting module, the docs, stickslip.pc and the CMake package
# (find_package(stickslip) -> stickslip::stickslip, stickslip::stickslip_static).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STSL_PUBLIC_HEADER ${PROJECT_SOURCE_DIR}/include/stickslip.h)
foreach(kind shared static)
  string(TOUPPER ${kind} KIND)
  add_library(stickslip_${kind} ${KIND} $<TARGET_OBJECTS:stsl_objects>)
  target_link_libraries(stickslip_${kind} PRIVATE ${STSL_DEPS})
  target_include_directories(stickslip_${kind} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(stickslip_${kind} PROPERTIES OUTPUT_NAME stickslip
    PUBLIC_HEADER ${STSL_PUBLIC_HEADER})
endforeach()
set_target_properties(stickslip_shared PROPERTIES EXPORT_NAME stickslip
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(stickslip_static PROPERTIES EXPORT_NAME stickslip_static)
install(TARGETS stickslip_shared stickslip_static EXPORT stickslipTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT stickslipTargets NAMESPACE stickslip::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stickslip)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/stickslipConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stickslipConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stickslip)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stickslipConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stickslipConfig.cmake
  ${PROJECT_BINARY_DIR}/stickslipConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stickslip)

# pkg-config: SUNDIALS has no .pc file on Debian, so its libraries are
# named in Libs.private; the others come through Requires.private.
file(RELATIVE_PATH STSL_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" STSL_PC_TO_PREFIX "${STSL_PC_TO_PREFIX}")
# HDF5 by the module of the library the build links: Debian's plain `hdf5`
# module is the OpenMPI flavour (its -I and static -l pull in MPI), while
# the library links the serial one, `hdf5-serial` where the system has it.
pkg_check_modules(STSL_HDF5_SERIAL QUIET hdf5-serial)
if(STSL_HDF5_SERIAL_FOUND AND NOT HDF5_IS_PARALLEL)
  set(STSL_PC_HDF5 hdf5-serial)
else()
  set(STSL_PC_HDF5 hdf5)
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/stickslip.pc.in ${PROJECT_BINARY_DIR}/stickslip.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/stickslip.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The installed CLI: the same sources, with the plotting module looked up
# where it is installed, relative to the executable (the prefix may be
# chosen at install time).
set(STSL_INSTALLED_PYTHON_DIR ${CMAKE_INSTALL_DATADIR}/stickslip/python)
file(RELATIVE_PATH STSL_PYTHON_FROM_BIN /${CMAKE_INSTALL_BINDIR} /${STSL_INSTALLED_PYTHON_DIR})
file(GLOB STSL_CLI_SOURCES_I CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cli/*.c)
add_executable(stickslip_installed_cli ${STSL_CLI_SOURCES_I})
target_link_libraries(stickslip_installed_cli PRIVATE stsl ${CMAKE_DL_LIBS})
# `stickslip fmu` packs the installed FMU binary; the FMU commands load the
# installed FMU module.
install(TARGETS stickslip_element stickslip_fmu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/stickslip)
# Both are looked up relative to the executable, as the plotting module is.
file(RELATIVE_PATH STSL_FMU_FROM_BIN /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR}/stickslip)
target_compile_definitions(stickslip_installed_cli PRIVATE STSL_FMU_FROM_EXE
  STSL_FMU_ELEMENT_SO="${STSL_FMU_FROM_BIN}/stickslip_element.so"
  STSL_FMU_MODULE_SO="${STSL_FMU_FROM_BIN}/stickslip_fmu.so")
target_compile_definitions(stickslip_installed_cli PRIVATE
  STSL_PYTHON_DIR="${STSL_PYTHON_FROM_BIN}" STSL_PYTHON_DIR_FROM_EXE)
set_target_properties(stickslip_installed_cli PROPERTIES OUTPUT_NAME stickslip
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/install-bin)
install(TARGETS stickslip_installed_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/python/stickslip_plot.py DESTINATION ${STSL_INSTALLED_PYTHON_DIR})
# A system's result view beside it (stickslip_plot.py loads it by path: the
# package itself needs the C library, the plot only numpy and h5py).
install(FILES ${PROJECT_SOURCE_DIR}/python/stickslip/system.py
  DESTINATION ${STSL_INSTALLED_PYTHON_DIR}/stickslip)
# docs/ keeps its name beside the README, so the README's links to
# docs/*.md (and the pages' links back) work in the installed copy too.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# stickslip-mpi (built when CMake finds MPI) is defined after this file is
# included, so its rule is added when the top directory has been read.
function(stsl_install_mpi)
  if(TARGET stickslip-mpi)
    install(TARGETS stickslip-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL stsl_install_mpi)

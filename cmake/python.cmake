# python.cmake - the Python package (python/stickslip, issue 12) in the build
# tree (build/python/stickslip: the sources, the preprocessed header
# `_cdef.h` cffi reads, and `_libpath.py` naming the built library) and its
# install into Debian's python3 site directory, with `_libpath.py` naming
# the installed library.
set(STSL_PY_BUILD ${PROJECT_BINARY_DIR}/python/stickslip)
# Debian's python3 looks in /usr/lib/python3/dist-packages for the prefix
# /usr, but in /usr/local/lib/python3.X/dist-packages (with its version)
# for the default prefix /usr/local: the default follows the prefix, so that
# `cmake --install` into either gives an importable package.  (Named anew:
# build trees configured before keep lib/python3/dist-packages in their
# cache under the former name, STSL_PYTHON_SITEDIR.)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(stsl_py_site "lib/python3/dist-packages")
else()
  execute_process(COMMAND /usr/bin/python3 -c
    "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE stsl_py_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(stsl_py_site "lib/python${stsl_py_version}/dist-packages")
endif()
set(STSL_PY_SITE_DIR "${stsl_py_site}" CACHE STRING
  "Where `cmake --install` puts the stickslip Python package, relative to the prefix (Debian's python3 site directory for the prefix)")
file(GLOB STSL_PY_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/stickslip/*.py)
foreach(src ${STSL_PY_SOURCES})
  get_filename_component(name ${src} NAME)
  configure_file(${src} ${STSL_PY_BUILD}/${name} COPYONLY)
endforeach()
# The declarations for cffi come from the public header itself, through the
# C preprocessor (macros and conditionals resolved): one definition.
add_custom_command(OUTPUT ${STSL_PY_BUILD}/_cdef.h
  COMMAND ${CMAKE_C_COMPILER} -E -P -x c ${STSL_PUBLIC_HEADER} -o ${STSL_PY_BUILD}/_cdef.h
  DEPENDS ${STSL_PUBLIC_HEADER}
  COMMENT "cffi declarations from stickslip.h")
file(GENERATE OUTPUT ${STSL_PY_BUILD}/_libpath.py
  CONTENT "LIBRARY = \"$<TARGET_FILE:stickslip_shared>\"\n")
# python_cdef alone is what `pip install` (setup.py) builds besides the
# shared library: it ships its own copy of both inside the package.
add_custom_target(python_cdef DEPENDS ${STSL_PY_BUILD}/_cdef.h)
add_custom_target(python_package ALL DEPENDS python_cdef stickslip_shared stickslip)

install(FILES ${STSL_PY_SOURCES} ${STSL_PY_BUILD}/_cdef.h
  DESTINATION ${STSL_PY_SITE_DIR}/stickslip)
# The installed package names the installed library (the prefix is known
# only at install time).
install(CODE "file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${STSL_PY_SITE_DIR}/stickslip/_libpath.py\"
  \"LIBRARY = \\\"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:stickslip_shared>\\\"\\n\")")

# pytest of the package in the build tree; exit 5 (no test collected) is
# reported as skipped, not passed.
if(BUILD_TESTING)
  add_test(NAME test_python COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
    ${PROJECT_SOURCE_DIR}/test/python)
  set_tests_properties(test_python PROPERTIES SKIP_RETURN_CODE 5
    ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;STICKSLIP_BIN=$<TARGET_FILE:stickslip>;STSL_BUILD_DIR=${PROJECT_BINARY_DIR};STSL_PY_SITEDIR=${STSL_PY_SITE_DIR};STSL_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}")
  # `pip install .` into venvs (Debian's python3, and another python3 of
  # its version on PATH with a .pth to Debian's packages), then a session
  # outside the sources (test/test_pip_install.py; docs/python.md
  # "Installing").  It builds its own Release library from a copy of the
  # sources, whatever this tree's flags, so the sanitized trees skip it.
  if(NOT CMAKE_C_FLAGS MATCHES "sanitize")
    add_test(NAME test_pip_install COMMAND /usr/bin/python3
      ${PROJECT_SOURCE_DIR}/test/test_pip_install.py ${PROJECT_SOURCE_DIR})
    set_tests_properties(test_pip_install PROPERTIES TIMEOUT 900)
  endif()
  # The asan build: a sanitized libstickslip.so loads into Debian's python3
  # only when the sanitizer runtimes come first in the process, so they are
  # preloaded.  LeakSanitizer stays off here: every allocation of ours has
  # the interpreter's frames below it (the call comes through cffi), so a
  # suppression of the interpreter's own never-freed objects would hide
  # ours too; the library's leak checks are the C tests' (test_api,
  # test_result_read, test_api_compare run the same calls under LSan).
  # ASan's other checks and UBSan run on every call the tests make.
  if(CMAKE_C_FLAGS MATCHES "sanitize")
    set(stsl_preload "")
    # ThreadSanitizer's runtime must come first as well (a late dlopen of
    # a TSan library fails: "cannot allocate memory in static TLS block").
    if(CMAKE_C_FLAGS MATCHES "sanitize=thread")
      set(stsl_runtimes libtsan.so)
    else()
      set(stsl_runtimes libasan.so libubsan.so)
    endif()
    foreach(rt ${stsl_runtimes})
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${rt}
        OUTPUT_VARIABLE rt_path OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(IS_ABSOLUTE "${rt_path}" AND EXISTS "${rt_path}")
        string(APPEND stsl_preload " ${rt_path}")
      endif()
    endforeach()
    if(stsl_preload)
      string(STRIP "${stsl_preload}" stsl_preload)
      set_property(TEST test_python APPEND PROPERTY ENVIRONMENT
        "LD_PRELOAD=${stsl_preload}" "ASAN_OPTIONS=detect_leaks=0" "STSL_SANITIZED=1")
    else()
      # No GCC runtime to preload (clang names its runtimes otherwise):
      # shown as disabled, not passed.
      set_tests_properties(test_python PROPERTIES DISABLED TRUE)
    endif()
  endif()
endif()

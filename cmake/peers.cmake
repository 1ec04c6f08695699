# benchmarks/peers: a smoke test of the peers benchmark's pieces (seconds),
# skipped (exit 77) where benchmarks/peers/setup has not installed SciPy and
# Siconos.  Like test_python it loads libstickslip.so into Debian's python3,
# which a sanitized build cannot do: disabled there.
if(BUILD_TESTING)
  add_test(NAME test_peers_smoke COMMAND /usr/bin/python3
    ${PROJECT_SOURCE_DIR}/benchmarks/peers/test_peers_smoke.py)
  set_tests_properties(test_peers_smoke PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python")
  if(CMAKE_C_FLAGS MATCHES "sanitize")
    set_tests_properties(test_peers_smoke PROPERTIES DISABLED TRUE)
  endif()
endif()

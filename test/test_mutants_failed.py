#!/usr/bin/python3
"""scripts/mutants counts as failed only the tests that failed: on the
output of a real ctest run over a scratch project with one test of each
outcome (passed, failed, skipped by its SKIP_RETURN_CODE, disabled, program
missing), its failed_tests() lists exactly the failed one and the one whose
program is missing; the skipped and the disabled test passed the suite."""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

PROJECT = """cmake_minimum_required(VERSION 3.16)
project(outcomes NONE)
enable_testing()
add_test(NAME passes COMMAND true)
add_test(NAME fails COMMAND false)
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME disabled COMMAND false)
set_tests_properties(disabled PROPERTIES DISABLED TRUE)
add_test(NAME missing COMMAND /nonexistent/program)
"""


def load_mutants():
    path = os.path.join(HERE, "..", "scripts", "mutants")
    loader = importlib.machinery.SourceFileLoader("mutants", path)
    spec = importlib.util.spec_from_loader("mutants", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def main():
    mutants = load_mutants()
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
            f.write(PROJECT)
        b = os.path.join(d, "b")
        subprocess.run(["cmake", "-S", d, "-B", b], check=True, stdout=subprocess.DEVNULL)
        ok, failed, out = mutants.suite(b, 60, True, stop=False)
    assert not ok, out
    assert "skips (Skipped)" in out and "disabled (Disabled)" in out, out  # what ctest lists
    assert failed == ["fails", "missing"], (failed, out)
    # Only skipped and passed: the suite passes and nothing is counted failed.
    assert mutants.failed_tests("The following tests did not run:\n"
                                "\t 12 - test_peers_smoke (Skipped)\n") == []
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

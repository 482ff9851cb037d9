"""Dynamic XAPP errors name the file/line and say what to do."""

from __future__ import annotations

import pytest

from starchart.errors import InputError
from starchart.xapp.dynamic import measure

pytestmark = pytest.mark.llvm  # tests/conftest.py skips it where no clang is found

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\nstatic float a[1024];\n"


def program(tmp_path, body: str, name: str = "k.c"):
    """A C file: HEAD (4 lines), then main with ``body``; the band pragma is on line 7."""
    path = tmp_path / name
    path.write_text(HEAD + "int main(int argc, char **argv) {\n  int n = argc > 1 ? atoi(argv[1]) : 16;\n"
                    + body + "\n}\n")
    return path


BAND = "#pragma xapp parallel\n  for (int i = 0; i < n; i++)\n    a[i] = i * 2.0f;\n  printf(\"%f\\n\", a[3]);\n"


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such C file"):
        measure(tmp_path / "nope.c")


def test_no_band(tmp_path):
    path = program(tmp_path, "  return 0;")
    with pytest.raises(InputError, match="no `#pragma xapp parallel`") as err:
        measure(path)
    assert "k.c" in str(err.value) and "band_line" in str(err.value)


def test_band_line_not_a_loop(tmp_path):
    path = program(tmp_path, BAND + "  return 0;")
    with pytest.raises(InputError, match=r"k.c, line 6: line 6 does not start a loop"):
        measure(path, band_line=6)


def test_band_optimised_away(tmp_path):
    path = program(tmp_path, "  int s = 0;\n#pragma xapp parallel\n  for (int i = 0; i < n; i++)\n    s += i;\n"
                             "  return 0;")
    with pytest.raises(InputError, match=r"k.c, line 9: no loop starting on line 9") as err:
        measure(path)
    assert "observable" in str(err.value)


def test_compile_error(tmp_path):
    path = program(tmp_path, BAND + "  return undeclared;")
    with pytest.raises(InputError, match="clang could not compile"):
        measure(path)


def test_crash_is_reported_with_its_signal(tmp_path):
    path = program(tmp_path, "  int *volatile p = 0;\n" + BAND.replace("a[i] = i * 2.0f;", "a[i] = *p;")
                   + "  return 0;")
    with pytest.raises(InputError, match="killed by SIGSEGV"):
        measure(path)


def test_nonzero_exit_quotes_stderr(tmp_path):
    path = program(tmp_path, BAND + '  fprintf(stderr, "bad input file\\n");\n  return 3;')
    with pytest.raises(InputError, match=r"exited with status 3 .*bad input file") as err:
        measure(path, ["16"])
    assert "'16'" in str(err.value)


def test_runtime_output_missing(tmp_path):
    path = program(tmp_path, BAND + "  _exit(0);")
    with pytest.raises(InputError, match="without the XAPP runtime writing its features"):
        measure(path)


def test_band_never_runs(tmp_path):
    path = program(tmp_path, "  if (n > 0) {\n" + BAND + "  }\n  return 0;")
    with pytest.raises(InputError, match=r"line 9 never ran with args \['0'\]"):
        measure(path, ["0"])


def test_timeout(tmp_path):
    path = program(tmp_path, BAND + "  for (;;) sleep(1);")
    with pytest.raises(InputError, match="did not finish within 0.5 s"):
        measure(path, timeout=0.5)


def test_band_line_type(tmp_path):
    path = program(tmp_path, BAND + "  return 0;")
    with pytest.raises(InputError, match="band_line must be a line number"):
        measure(path, band_line="8")  # type: ignore[arg-type]

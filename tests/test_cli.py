"""The command line (hsr.cli): `hsr explain` prints the plan and the forward
kernel's choice, the generated module with --source, and never a traceback:
sizes that name an axis the spec does not have, or a misspelled bundled spec,
are errors that name what there is (exit status 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hsr.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_prints_the_plan_and_the_source_only_when_asked(capsys):
    code, out, err = _run(capsys, "explain", "maxsim")
    assert code == 0 and "forward kernel:" in out and "@triton.jit" not in out and not err
    code, with_source, _ = _run(capsys, "explain", "maxsim", "--source")
    assert code == 0 and with_source.startswith(out) and "@triton.jit" in with_source
    for flag in ("--plan", "--plan-only"):  # kept for old scripts: the plan alone, as without a flag
        assert _run(capsys, "explain", "maxsim", flag)[1] == out


@pytest.mark.parametrize("spec, shapes, missing", [
    ("examples/weighted_maxsim.hsr", "i=8,j=10", "axes s, d, t not given: taken as 128 each"),
    ("examples/hausdorff.hsr", "b=2", "axes n, d, m not given: taken as 128 each"),
    ("splade", "b=4,s=64,h=768", "axis v not given: taken as 128"),
])
def test_explain_with_partial_shapes_names_the_defaults(capsys, spec, shapes, missing):
    code, out, err = _run(capsys, "explain", str(ROOT / spec) if spec.endswith(".hsr") else spec,
                          "--shapes", shapes, "--plan")
    assert code == 0 and missing in out and "forward kernel:" in out and not err


def test_explain_refuses_an_unknown_axis(capsys):
    code, out, err = _run(capsys, "explain", "maxsim", "--shapes", "i=8,zz=3")
    assert code == 2 and not out
    assert "no axis 'zz' in this spec; its axes are i, s, d, j, t" in err and "Traceback" not in err


def test_explain_of_a_misspelled_bundled_spec(capsys):
    code, out, err = _run(capsys, "explain", "maxsimm")
    assert code == 2 and not out
    assert "unknown bundled spec 'maxsimm'; did you mean 'maxsim'?" in err and "bundled specs: chamfer" in err


def test_shapes_that_do_not_parse_exit_with_the_usage():
    with pytest.raises(SystemExit, match="--shapes takes axis=size pairs"):
        main(["explain", "maxsim", "--shapes", "i=eight"])

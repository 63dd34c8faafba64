"""One rule for the flags every study shares (issue 24 §4): ``--help`` says what ``--replicates`` and
``--points`` mean in each study, ``cbalgebra --help`` and ``cbalgebra study --help`` describe every
study (not only the alpha ones), and a flag that does not apply to a study is refused in one line with
exit 2, for every study alike."""

from __future__ import annotations

import pytest

from cbalgebra.cli import main as cli_main
from cbalgebra.studies.cli import SHARED_FLAGS

STUDIES = ("alpha-general", "alpha-dnf", "routing", "matchmaker", "amsp")


def _run(argv, capsys):
    with pytest.raises(SystemExit) as info:
        raise SystemExit(cli_main(argv))
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_every_study_has_its_flag_meanings():
    assert set(SHARED_FLAGS) == set(STUDIES)


@pytest.mark.parametrize("study", STUDIES)
def test_study_help_gives_the_flags_meaning_in_that_study(study, capsys):
    code, out, _ = _run(["study", study, "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    for flag, meaning in SHARED_FLAGS[study].items():
        if meaning is None:
            assert f"[--{flag}" not in text  # neither in the usage nor among the options
        else:
            assert f"--{flag}" in text and " ".join(meaning.split()) in text
    if study in ("routing", "matchmaker", "amsp"):
        assert "predicate sets per grid point" not in text


@pytest.mark.parametrize("study, flag", [(s, f) for s, flags in SHARED_FLAGS.items() for f, m in flags.items()
                                         if m is None])
def test_a_flag_that_does_not_apply_is_one_line_exit_2(study, flag, tmp_path, capsys):
    code, _out, err = _run(["study", study, f"--{flag}", "3", "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and f"--{flag} does not apply" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_top_level_and_study_help_describe_every_study(capsys):
    code, out, _ = _run(["--help"], capsys)
    line = next(line for line in out.splitlines() if line.strip().startswith("study"))
    assert code == 0 and "alpha" in line and "AMSP" in line and "Matchmaker" in line
    code, out, _ = _run(["study", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0
    for study in STUDIES:
        assert f"{study}:" in text
    assert "disjunction advantage alpha on Spark" not in text


class _Refusal(Exception):
    """Not a CbalgebraError: a bug, whatever its message."""


@pytest.mark.parametrize(("raised", "code", "line"), [
    ("unavailable", 69, "cbalgebra study matchmaker: error: no such service"),
    ("undecided", 3, "cbalgebra study matchmaker: undecided: z3 gave up"),
    ("value", 2, "cbalgebra study matchmaker: error: a design's own check"),
])
def test_a_study_s_errors_follow_the_one_policy(raised, code, line, capsys, monkeypatch):
    """Issue 25: every subcommand maps errors by the one policy (clibase.describe), with the study's prefix."""
    from cbalgebra.covering import UndecidedError
    from cbalgebra.errors import UnavailableError
    from cbalgebra.studies.matchmaker import PLUGIN

    error = {"unavailable": UnavailableError("no such service"), "undecided": UndecidedError("z3 gave up"),
             "value": ValueError("a design's own check")}[raised]

    def refuse(args):
        raise error

    monkeypatch.setattr(PLUGIN, "study_from_args", refuse)
    got, out, err = _run(["study", "matchmaker", "--quick", "--out", "unused"], capsys)
    assert (got, out, err.strip()) == (code, "", line)


def test_a_study_s_bug_is_reported_as_one(capsys, monkeypatch):
    from cbalgebra.studies.matchmaker import PLUGIN

    def refuse(args):
        raise _Refusal("not a user's error")

    monkeypatch.setattr(PLUGIN, "study_from_args", refuse)
    got, _, err = _run(["study", "matchmaker", "--quick", "--out", "unused"], capsys)
    assert got == 70 and "internal error: _Refusal: not a user's error" in err

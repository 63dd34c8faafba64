"""The project installs as a wheel: the mapped folders and the grammar travel."""

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_parses(tmp_path):
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next(dist.glob("cbalgebra-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for expected in ("cbalgebra/grammar/siena.lark", "cbalgebra/matcher/__init__.py",
                     "cbalgebra/reducers/__init__.py", "cbalgebra/studies/__init__.py",
                     "cbalgebra/covering/strings.py", "cbalgebra/poset/assets/poset.js",
                     "cbalgebra/workloads/data/english_terms.txt"):
        assert expected in names, expected
    assert not any(n.startswith(("grammar/", "matcher/", "reducers/", "studies/")) for n in names)
    assert not any(n.startswith("cbalgebra/studies/results/") for n in names)  # committed outputs stay home

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                   check=True, capture_output=True)
    # The dependencies come from this environment's site-packages (no network
    # here); a plain path entry does not run the editable install's hook, so
    # cbalgebra itself can only come from the wheel.
    fresh_site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    # Every site-packages folder of this interpreter, not only its own purelib:
    # an environment may chain to another one's site-packages with a .pth file,
    # and .pth files are not followed from a folder that deps.pth adds.
    site_dirs = dict.fromkeys([sysconfig.get_paths()["purelib"],
                               *(p for p in sys.path if Path(p).name == "site-packages")])
    (fresh_site / "deps.pth").write_text("".join(f"{d}\n" for d in site_dirs))
    script = (
        "import cbalgebra, cbalgebra.matcher, cbalgebra.grammar, cbalgebra.reducers, cbalgebra.studies;"
        "from importlib.resources import files;"
        "assert files('cbalgebra.grammar').joinpath('siena.lark').is_file();"
        "assert str(cbalgebra.__file__).startswith(" + repr(str(fresh_site)) + "), cbalgebra.__file__;"
        "f = cbalgebra.parse_filter('int x > 1 && s >* \"a\"');"
        "print(f, cbalgebra.parse_document('ifconfig 1 x any any;')[0])"
    )
    out = subprocess.run([str(python), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == '[string s >* "a", int x > 1] ifconfig 1 [any x any]'

"""Find a Python that has the modules a miniapp script needs, before the script imports them.

    from miniapp_python import ensure
    ensure("numpy", "h5py", "matplotlib")

The scripts start with `#!/usr/bin/env python3`, so they run with whatever python3 comes first
on PATH: a module's, a virtual environment's, pyenv's. When that one lacks a module, ensure()
runs the script again with the first of $MINIAPP_PYTHON, /usr/bin/python3 and python3 on PATH
that has them all (saying so on stderr), or stops with a message that names the missing modules
and how to get them.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

_REEXEC = "MINIAPP_PYTHON_REEXEC"  # set in the re-run, so it never loops


def _missing(modules):
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _has_all(python, modules):
    try:
        return subprocess.run([python, "-c", "import " + ", ".join(modules)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def ensure(*modules):
    """Return when this Python has all `modules`; else re-run the script or exit with a message."""
    missing = _missing(modules)
    if not missing:
        return
    script = os.path.basename(sys.argv[0]) or "miniapp script"
    if not os.environ.get(_REEXEC):
        me = os.path.realpath(sys.executable)
        for python in (os.environ.get("MINIAPP_PYTHON"), "/usr/bin/python3", shutil.which("python3")):
            if not python or not os.path.exists(python) or os.path.realpath(python) == me:
                continue
            if _has_all(python, modules):
                print(f"{script}: {sys.executable} lacks {', '.join(missing)}; running with {python}",
                      file=sys.stderr)
                os.environ[_REEXEC] = "1"
                os.execv(python, [python] + sys.argv)
    sys.exit(f"{script}: needs the Python module(s) {', '.join(missing)}, which {sys.executable} "
             f"lacks. Install them (Debian: apt-get install "
             f"{' '.join('python3-' + m for m in missing)}; pip: pip install {' '.join(missing)}) "
             f"or set MINIAPP_PYTHON to a Python that has them.")

"""Every kernel test runs through Triton's CPU interpreter unless a GPU is asked for.

TRITON_INTERPRET must be set before triton (and so any generated module) is
imported, which is why it is set here, at collection time.
"""

import os

import pytest

if os.environ.get("HSR_TEST_DEVICE", "cpu") == "cpu":
    os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

import profiles  # noqa: E402  (tests/profiles.py: hypothesis's profiles)

if os.environ.get("PYTEST_XDIST_WORKER"):  # one thread a worker: -n auto already fills the cores
    torch.set_num_threads(1)

profiles.register()


SLOW_TESTS = os.path.join(os.path.dirname(__file__), "slow_tests.txt")


def _slow_entries():
    """The node ids (or file::function prefixes) listed in slow_tests.txt."""
    try:
        with open(SLOW_TESTS) as f:
            lines = [line.split("#", 1)[0].strip() for line in f]
    except FileNotFoundError:
        return ()
    return tuple(line for line in lines if line)


def _is_slow(nodeid, entries):
    """An entry names a test exactly, or a function (or class) whose every
    parametrised variant is slow: "tests/test_x.py::test_y" covers
    "tests/test_x.py::test_y[a-b]"."""
    return any(nodeid == e or nodeid.startswith(e + "[") or nodeid.startswith(e + "::")
               for e in entries)


def pytest_collection_modifyitems(config, items):
    has_gpu = torch.cuda.is_available()
    skip = pytest.mark.skip(reason="needs a CUDA device (run on the GPU machine)")
    slow = _slow_entries()
    for item in items:
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip)
        if _is_slow(item.nodeid, slow):  # `pytest -m "not slow"` leaves these out
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def device():
    """Where kernel tests run: 'cpu' (interpreter) here, 'cuda' on the GPU machine."""
    return os.environ.get("HSR_TEST_DEVICE", "cpu")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "hsr-cache"
    monkeypatch.setenv("HSR_CACHE_DIR", str(path))
    return path


@pytest.fixture(params=["atomic", "deterministic-inverse", "deterministic-onehot"])
def backward(request, monkeypatch):
    """A gradient test's backward= value, once per strategy: "atomic", and
    "deterministic" through each of its scatters (HSR_SCATTER)."""
    mode, _, scatter = request.param.partition("-")
    if scatter:
        monkeypatch.setenv("HSR_SCATTER", scatter)
    if scatter == "inverse":  # small chunks of the inverse index: several cells each, several chunks,
        monkeypatch.setenv("HSR_INVERSE_CHUNK", "40")  # and small blocks of its counting sort
        monkeypatch.setenv("HSR_COUNT_BLOCKS", "32,16")
    return mode


@pytest.fixture(params=["inverse", "onehot", "sparse"])
def scatter(request, monkeypatch):
    """The scatter that backward="deterministic" uses in this test (sparse: a program per
    selected row, the rows nothing selected left zero)."""
    monkeypatch.setenv("HSR_SCATTER", request.param)
    return request.param


@pytest.fixture(autouse=True)
def _forget_kept_calls(monkeypatch):
    """Kept calls (hsr.kept) keep what the HSR_* switches (and dispatch's rules)
    said when they were recorded; tests change them between calls of one
    signature, so every change here, and every test, starts from none kept (as
    hsr.kept.forget() after a change does for a user)."""
    from hsr import kept

    def forgetting(change):
        def changed(*args, **kwargs):
            change(*args, **kwargs)
            kept.forget()
        return changed

    kept.forget()
    monkeypatch.setenv = forgetting(monkeypatch.setenv)
    monkeypatch.delenv = forgetting(monkeypatch.delenv)
    monkeypatch.setattr = forgetting(monkeypatch.setattr)  # a rule or constant of dispatch, say
    yield
    kept.forget()

# A batch on a Dask cluster (docs/scale.md "Dask"): a scheduler and two workers started here on
# 127.0.0.1 convert a folder to the very bytes `rigport batch` writes, with the same report records
# and summary counts, through `python3 -m rigport batch --scheduler` and rigport.batch(client=);
# a worker killed mid-run has its models converted by the other. Debian's python3-distributed
# (scripts/setup.sh). Bounded: every wait below has a limit (WAIT_S); the file took 24 s on the
# 2-core build machine with little else running and 42 s beside a loaded build (nice 19).
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import rigport

from conftest import comparable, run_cli

WAIT_S = 30  # for the cluster to come up, and for a batch to finish


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two single-thread workers (no nanny: a killed worker stays dead), started
    once for this file: the test that kills a worker comes last."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    logs = tmp_path_factory.mktemp("dask-logs")
    processes = [subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], env=env,
                                  stdout=open(logs / "scheduler.log", "w"), stderr=subprocess.STDOUT)]
    workers = []
    for k in range(2):
        w = subprocess.Popen(["dask-worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                              "--name", f"w{k}"], env=env, stdout=open(logs / f"worker{k}.log", "w"), stderr=subprocess.STDOUT)
        processes.append(w)
        workers.append(w)
    from dask.distributed import Client
    client = None
    try:
        client = Client(address, timeout=f"{WAIT_S}s")
        client.wait_for_workers(2, timeout=WAIT_S)
        yield address, client, workers
    finally:
        if client is not None:
            client.close()
        for p in processes:
            if p.poll() is None:
                p.terminate()
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def make_folder(root, copies=1):
    """The sample in several formats, a textured model in its own folder, a Cal3D character (a .cfg
    with its members: one model), and copies of the IQM."""
    scene = rigport.sample()
    (root / "sub").mkdir(parents=True)
    rigport.save(scene, root / "a.iqm")
    rigport.save(scene, root / "sub" / "b.iqe")
    rigport.save(scene, root / "sub" / "c.smd")
    rigport.save(scene, root / "sub" / "d.glb")
    (root / "many").mkdir()
    for i in range(copies):
        rigport.save(scene, root / "many" / f"m{i:03}.iqm")
    return root


def tree_bytes(folder):
    """Every file below folder with its bytes; temporaries a killed worker left (their process is
    gone; the next write in that folder removes them, docs/cli.md "Outputs") are not outputs."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".rigport-tmp-" not in p.name}


SUMMARY = re.compile(r"(\d+) converted, (\d+) failed, (\d+) warnings in [0-9.]+ s\n$")


def test_cluster_batch_writes_what_rigport_batch_writes(cli, cluster, tmp_path):
    address, client, workers = cluster
    src = make_folder(tmp_path / "in", copies=8)
    local = run_cli(cli, "batch", src, "-o", tmp_path / "local", "--format", "glb", "--report", tmp_path / "local.json")
    done = subprocess.run([sys.executable, "-m", "rigport", "batch", str(src), "-o", str(tmp_path / "dask"), "--format", "glb",
                           "--scheduler", address, "--report", str(tmp_path / "dask.json")], capture_output=True, text=True,
                          timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert tree_bytes(tmp_path / "dask") == tree_bytes(tmp_path / "local")
    assert len(tree_bytes(tmp_path / "local")) == 12  # a b c d and 8 copies, one .glb each
    local_records = json.loads((tmp_path / "local.json").read_text())
    dask_records = json.loads((tmp_path / "dask.json").read_text())
    assert comparable(dask_records, tmp_path / "dask") == comparable(local_records, tmp_path / "local")
    assert SUMMARY.search(done.stderr).groups() == SUMMARY.search(local.stderr).groups()

    # With a cache on the shared folder: the second run (into the same folder, emptied: the output
    # path is part of the key) converts nothing and writes the same bytes again.
    for run in ("first", "second"):
        out = tmp_path / "cached"
        shutil.rmtree(out, ignore_errors=True)
        done = subprocess.run([sys.executable, "-m", "rigport", "batch", str(src), "-o", str(out), "--format", "glb", "--scheduler",
                               address, "--cache", str(tmp_path / "cache"), "--report", str(tmp_path / f"{run}.json")],
                              capture_output=True, text=True, timeout=WAIT_S)
        assert done.returncode == 0, done.stderr
        assert tree_bytes(out) == tree_bytes(tmp_path / "local")
        cached = [r["cached"] for r in json.loads((tmp_path / f"{run}.json").read_text())]
        assert cached == [run == "second"] * 12
        assert f"12 converted ({12 if run == 'second' else 0} from the cache)" in done.stderr

    # --cache-max: the workers' hits store nothing, so the client's trim at the end is what brings
    # the cache down to half its size.
    def cache_size():
        return sum(f.stat().st_size for f in (tmp_path / "cache").rglob("*") if f.is_file())

    half = cache_size() // 2
    done = subprocess.run([sys.executable, "-m", "rigport", "batch", str(src), "-o", str(out), "--format", "glb", "--scheduler", address,
                           "--cache", str(tmp_path / "cache"), "--cache-max", str(half), "-q"], capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert 0 < cache_size() <= half


def test_a_killed_worker_has_its_models_converted_elsewhere(cli, cluster, tmp_path):
    address, client, workers = cluster
    total = 200  # enough that the kill below lands while most models are still to do
    src = make_folder(tmp_path / "in", copies=total - 4)
    run_cli(cli, "batch", src, "-o", tmp_path / "local", "--format", "iqe", "-q")
    out = tmp_path / "dask"
    result = {}

    def convert():
        result["report"] = rigport.batch([src], out, "iqe", client=client)

    batch = threading.Thread(target=convert)
    batch.start()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and (not out.exists() or len(list(out.rglob("*.iqe"))) < 3):
        time.sleep(0.005)
    written_at_kill = len(list(out.rglob("*.iqe")))
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait(timeout=10)
    batch.join(timeout=WAIT_S)
    assert not batch.is_alive(), "the batch did not finish after a worker was killed"
    assert 3 <= written_at_kill < total, f"the worker was killed with {written_at_kill} of {total} models written"
    report = result["report"]
    assert report["converted"] == total and report["failed"] == 0 and report["failure"] is None
    assert tree_bytes(out) == tree_bytes(tmp_path / "local")

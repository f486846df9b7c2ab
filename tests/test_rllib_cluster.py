"""``training/train_rllib.py`` on a two-node ``ray start`` cluster on this machine, as ``training/RLLIB.md`` says:
a head and a worker node (their own ports and temp folder; the worker joins with the token), then too many env
runners fail fast with a message, a run through ``RAY_ADDRESS`` trains and checkpoints, it resumes, and a
``ray job submit`` run succeeds. Slow tier (about two minutes); skipped without the ``rllib`` extra.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
pytest.importorskip("ray.dashboard")

pytestmark = pytest.mark.slow

RAY = str(Path(sys.executable).with_name("ray"))
SMALL = ["--max-turns-per-round", "30", "--train-batch-size", "512", "--minibatch-size", "128", "--num-epochs", "1",
         "--hidden", "32", "--seed", "0"]


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def node_options(ports: list[int]) -> list[str]:
    names = ("--node-manager-port", "--object-manager-port", "--metrics-export-port", "--runtime-env-agent-port",
             "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port")
    return [f"{name}={port}" for name, port in zip(names, ports)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head (1 CPU, dashboard) and a worker (1 CPU) started with ``ray start --block``; stopped by their pids."""
    temp = tmp_path_factory.mktemp("ray")
    ports = free_ports(16)
    gcs, dashboard, client = ports[:3]
    env = {**os.environ, "RAY_AUTH_MODE": "token"}
    env.pop("RAY_ADDRESS", None)
    logs = [open(temp / name, "w") for name in ("head.log", "worker.log")]
    head = subprocess.Popen([RAY, "start", "--head", "--block", f"--port={gcs}", "--num-cpus=1", "--include-dashboard=true",
                             f"--dashboard-port={dashboard}", f"--ray-client-server-port={client}", "--disable-usage-stats",
                             f"--temp-dir={temp}", "--min-worker-port=0", "--max-worker-port=0", *node_options(ports[3:9])],
                            env=env, stdout=logs[0], stderr=subprocess.STDOUT, start_new_session=True)
    processes = [head]
    try:
        address = f"127.0.0.1:{gcs}"
        wait_for(lambda: ray_status(address, env, "1.0 CPU"), "the head node", temp / "head.log")
        token = subprocess.run([RAY, "get-auth-token"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        worker_env = {**env, "RAY_AUTH_TOKEN": token}
        worker = subprocess.Popen([RAY, "start", f"--address={address}", "--block", "--num-cpus=1", "--disable-usage-stats",
                                   "--min-worker-port=0", "--max-worker-port=0", *node_options(ports[9:15])],
                                  env=worker_env, stdout=logs[1], stderr=subprocess.STDOUT, start_new_session=True)
        processes.append(worker)
        wait_for(lambda: ray_status(address, env, "2.0 CPU"), "the worker node joining", temp / "worker.log")
        yield {"address": address, "dashboard": f"http://127.0.0.1:{dashboard}", "env": worker_env, "temp": temp}
    finally:
        for process in reversed(processes):       # `ray start --block` stops its node's processes on SIGTERM
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        for log in logs:
            log.close()


def ray_status(address: str, env: dict, expected: str) -> bool:
    result = subprocess.run([RAY, "status", f"--address={address}"], env=env, capture_output=True, text=True)
    return result.returncode == 0 and f"/{expected}" in result.stdout


def wait_for(condition, what: str, log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(2)
    pytest.fail(f"{what} did not come up in {seconds} s; log:\n{log.read_text()[-3000:]}")


def train(cluster, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**cluster["env"], "RAY_ADDRESS": cluster["address"]}        # no --address: RAY_ADDRESS is honoured
    return subprocess.run([sys.executable, "-m", "rummy_env.training.train_rllib", *args], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=cluster["temp"])


def test_more_env_runners_than_the_cluster_has_cpus_fail_fast(cluster):
    start = time.monotonic()
    result = train(cluster, "--num-env-runners", "3", "--out", str(cluster["temp"] / "too_many"), *SMALL, timeout=120)
    assert result.returncode != 0
    assert "needs 3 CPUs (3 env runners, one CPU each), but the Ray cluster has 2 CPUs" in result.stderr
    assert time.monotonic() - start < 60


def test_a_run_through_ray_address_trains_checkpoints_and_resumes_on_both_nodes(cluster):
    out = cluster["temp"] / "run"
    result = train(cluster, "--num-env-runners", "2", "--iterations", "2", "--out", str(out), *SMALL)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "Connecting to existing Ray cluster" in result.stderr + result.stdout
    assert (out / "checkpoint_000002" / "rummy_run.json").is_file() and (out / "logs").is_dir()
    resumed = train(cluster, "--num-env-runners", "2", "--iterations", "3", "--resume", str(out / "checkpoint_000002"))
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-3000:]
    assert "resumed" in resumed.stdout and "iter    3" in resumed.stdout
    assert (out / "checkpoint_000003").is_dir() and (out / "checkpoint_000002").is_dir()


def test_ray_job_submit_runs_the_training(cluster):
    out = cluster["temp"] / "job"
    result = subprocess.run([RAY, "job", "submit", "--address", cluster["dashboard"], "--",
                             sys.executable, "-m", "rummy_env.training.train_rllib", "--num-env-runners", "2",
                             "--iterations", "1", "--out", str(out), *SMALL],
                            env=cluster["env"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "succeeded" in result.stdout + result.stderr
    assert (out / "checkpoint_000001").is_dir()

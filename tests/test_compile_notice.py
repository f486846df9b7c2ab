"""Issue 30, 4: a command that compiles kernels says so on stderr at once, and how long it takes, instead of
minutes of silence (``rummy_env.engine.compile_notice``). The listener is driven with numba's own events of
made-up compilations, so the test does not wait for a real cold compile."""

from __future__ import annotations

import time
import types

from numba.core import event

from rummy_env.engine import compile_notice


def _event(module: str, kind: event.EventStatus) -> event.Event:
    dispatcher = types.SimpleNamespace(py_func=types.SimpleNamespace(__module__=module))
    return event.Event("numba:compile", kind, data={"dispatcher": dispatcher})


def test_a_long_compilation_is_announced_and_reported(monkeypatch, capsys):
    monkeypatch.setattr(compile_notice, "FIRST_NOTICE_S", 0.2)
    monkeypatch.setattr(compile_notice, "PROGRESS_EVERY_S", 0.6)
    notice = compile_notice.CompileNotice("the cache in /tmp/cache-folder")
    notice.on_start(_event("rummy_env.engine.drivers", event.EventStatus.START))
    notice.on_start(_event("rummy_env.engine.common", event.EventStatus.START))  # a nested kernel
    time.sleep(2.2)
    notice.on_end(_event("rummy_env.engine.common", event.EventStatus.END))
    notice.on_end(_event("rummy_env.engine.drivers", event.EventStatus.END))
    notice.watcher.join(5)  # the watcher notices the end and stops
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("rummy_env: compiling its kernels") and "the cache in /tmp/cache-folder" in err[0]
    assert "minute" in err[0]
    assert len(err) >= 2 and all(line.startswith("rummy_env: still compiling (") for line in err[1:]), err
    assert "2 kernels" in err[-1]
    assert not notice.watcher.is_alive()


def test_short_or_foreign_compilations_say_nothing(monkeypatch, capsys):
    monkeypatch.setattr(compile_notice, "FIRST_NOTICE_S", 0.5)
    notice = compile_notice.CompileNotice("/tmp/cache-folder")
    notice.on_start(_event("someone_else.kernels", event.EventStatus.START))  # not rummy_env's: not counted
    time.sleep(0.8)
    notice.on_end(_event("someone_else.kernels", event.EventStatus.END))
    notice.on_start(_event("rummy_env.engine.gin.step", event.EventStatus.START))  # a small new specialization
    notice.on_end(_event("rummy_env.engine.gin.step", event.EventStatus.END))
    time.sleep(0.8)
    assert capsys.readouterr().err == ""
    assert notice.kernels == 1 and notice.seconds() < 0.5


def test_the_notice_is_installed_unless_silenced(monkeypatch):
    installed = []
    monkeypatch.setattr(event, "register", lambda kind, listener: installed.append((kind, listener)))
    monkeypatch.setenv("RUMMY_ENV_COMPILE_NOTICE", "0")
    compile_notice.install("folder")
    assert installed == []
    monkeypatch.delenv("RUMMY_ENV_COMPILE_NOTICE")
    compile_notice.install("folder")
    assert installed[0][0] == "numba:compile" and isinstance(installed[0][1], compile_notice.CompileNotice)
    compile_notice.install(None)  # no writable cache: still said, and that they compile in every run
    assert "every run" in installed[1][1].folder

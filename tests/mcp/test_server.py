"""`vault-engine mcp` end to end: the SDK's own client spawns the server on a copy of
sample-vault/, lists the tools, calls each, and every answer is compared with what the CLI's
``--json`` prints for the same arguments: the test that fails when the shells drift."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import pytest

from tests.daemon.conftest import start_daemon  # noqa: F401  (a fixture)
from tests.mcp.conftest import WRAPPER, run_session, server_env, server_stderr, text_of
from vault_engine.operations import BY_NAME, OPERATIONS

EACH_TOOL = [
    ("search", {"query": "why did we drop the second microphone", "k": 3, "lexical": True}),
    ("search", {"query": "webhook retries", "project": "billing-service", "kind": "checkpoint"}),
    ("show", {"ref": "specs/audio-pipeline.md#Buffers"}),
    ("links", {"ref": "specs/audio-pipeline.md", "backlinks": True}),
    ("resume", {"project": "drone-audio", "max_tokens": 1500}),
    ("deadend_check", {"proposal": "drop the second microphone to save board space",
                       "project": "drone-audio", "lexical": True}),
    ("deadend_list", {"project": "drone-audio"}),
    ("checkpoint_new", {"project": "drone-audio", "agent": "mcp-test", "summary": "Both mics stay",
                        "next": ["Tune the taps"], "failed": ["Beamforming on the MCU -- not enough RAM",
                                                                         {"text": "Foam windscreens", "reason": "rotor wash"}],
                        "link": ["specs/audio-pipeline.md#Buffers"]}),
    ("reinforce", {"ref": "specs/audio-pipeline.md", "by": "mcp-test", "why": "checked the buffers"}),
    ("status", {}),
    ("index", {"no_embed": True}),
    ("find", {"query": "OrderBook.place"}),
    ("outline", {"path": "src/shop/orders.py"}),
    ("callers", {"symbol": "OrderBook.place", "depth": 2}),
    ("callees", {"symbol": "checkout"}),
]
# What two calls of one write cannot share: the time it ran, the file it made.
VARYING = {"reinforce": ("at",), "checkpoint_new": ("ref", "path"), "index": ("seconds",)}


def cli_json(cli, root, name, arguments):
    done = cli("--vault", root, *BY_NAME[name].argv(arguments), "--json")
    assert done.code == 0, done.err
    return done.json


def without(data, keys):
    return {k: v for k, v in data.items() if k not in keys}


def same(a, b, abs_tol: float = 0.0) -> bool:
    """Equal JSON, floats within 1e-4: a decayed score moves while the seconds pass. An age is
    rounded to 0.01 day, so two answers a few seconds apart can straddle a step of it."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            math.isclose(a, b, rel_tol=1e-4, abs_tol=abs_tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], 0.0101 if k == "age_days" else 0.0) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_every_tool_answers_exactly_what_the_cli_json_prints(indexed_sample, tmp_path, cli):
    assert {name for name, _ in EACH_TOOL} == set(BY_NAME), "call every tool of the table"
    expected = []

    def compare_with_cli(i, result):  # right after each call: the CLI sees the same vault
        name, arguments = EACH_TOOL[i]
        expected.append(cli_json(cli, indexed_sample, name, arguments))

    session = run_session(indexed_sample, EACH_TOOL, tmp_path, between=compare_with_cli)
    assert [t.name for t in session.tools] == [op.name for op in OPERATIONS]
    for (name, _arguments), result, want in zip(EACH_TOOL, session.results, expected):
        assert not result.is_error, (name, text_of(result))
        varying = VARYING.get(name, ())
        assert same(without(result.structured_content, varying), without(want, varying)), name
        assert json.loads(text_of(result)) == result.structured_content, name  # text and structure agree
    checkpoint = session.results[EACH_TOOL.index(next(c for c in EACH_TOOL if c[0] == "checkpoint_new"))]
    assert (indexed_sample / checkpoint.structured_content["ref"]).is_file()
    assert "truncated" not in json.dumps([r.structured_content for r in session.results])


def test_listing_tools_and_lexical_work_never_import_torch(indexed_sample, tmp_path):
    listed = run_session(indexed_sample, [], tmp_path)
    assert listed.loaded == [], "listing tools opens nothing: no vault, no store, no model"
    lexical = [("search", {"query": "second microphone", "lexical": True}),
               ("show", {"ref": "specs/audio-pipeline.md"}),
               ("deadend_check", {"proposal": "beamforming on the MCU", "lexical": True}),
               ("resume", {"project": "drone-audio"})]
    worked = run_session(indexed_sample, lexical, tmp_path)
    assert not any(r.is_error for r in worked.results)
    assert not {"torch", "sentence_transformers", "transformers"} & set(worked.loaded), worked.loaded
    assert "vault_engine.vault" in worked.loaded  # answered in this process: the probe can see


def test_tool_descriptions_are_short_and_arguments_use_the_cli_names(indexed_sample, tmp_path):
    tools = run_session(indexed_sample, [], tmp_path).tools
    for tool, op in zip(tools, OPERATIONS):
        assert len(tool.description) <= 110, tool.name
        assert set(tool.input_schema["properties"]) == {p.name for p in op.params} | {"max_tokens"}, tool.name
        assert set(tool.input_schema.get("required", ())) == {p.name for p in op.params if p.required}
    size = len(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools]))
    assert size < 9500, f"the tool list is {size} characters: keep descriptions short"  # 14 tools


BAD_CALLS = [
    ("show", {"ref": "../../../etc/passwd"}, "show: no note '../../../etc/passwd'"),
    ("links", {"ref": "/etc/passwd"}, "links: no note '/etc/passwd'"),
    ("reinforce", {"ref": "../outside.md"}, "reinforce: no note '../outside.md'"),
    ("search", {"query": "x", "k": "many"}, "search: k must be a whole number (got 'many')"),
    ("search", {"query": "x", "k": 0}, "search: k 0 is out of range: use 1..1000"),
    ("search", {"query": "x", "lexical": True, "semantic": True}, "search: lexical and semantic exclude"),
    ("search", {"query": "x", "limit": 3}, "search: unknown argument 'limit'; it takes: query, k,"),
    ("search", {"query": "x", "max_tokens": 5}, "search: max_tokens must be a whole number within"),
    ("search", {}, "search: query is required"),
    ("resume", {"project": "no-such-project"}, "resume: no project 'no-such-project' in the index"),
    ("deadend_check", {"proposal": ["not", "a", "string"]}, "deadend_check: proposal must be a string"),
    ("checkpoint_new", {"project": "drone-audio"}, "checkpoint_new: agent is required"),
    ("lookup", {"query": "x"}, "no tool 'lookup'; the tools are: search, show,"),
    ("outline", {"path": "../../etc/passwd"}, "outline: "),
    ("callers", {"symbol": "OrderBook.place", "depth": 9}, "callers: depth 9 is out of range: use 1..5"),
]


def test_bad_calls_are_one_line_tool_errors_and_the_server_keeps_serving(indexed_sample, tmp_path):
    calls = [(name, args) for name, args, _ in BAD_CALLS] + [("status", {})]
    session = run_session(indexed_sample, calls, tmp_path)
    for (name, _, message), result in zip(BAD_CALLS, session.results):
        assert result.is_error, name
        text = text_of(result)
        assert text.startswith(message), text
        assert "\n" not in text and "Traceback" not in text
    assert not session.results[-1].is_error  # still serving
    assert "Traceback" not in server_stderr(tmp_path)


def test_a_vault_engine_toml_broken_mid_session_is_each_calls_one_line_error(indexed_sample, tmp_path):
    """Opening the vault is part of a call: a toml broken under the session, or a vault deleted,
    had been a protocol error with a traceback on stderr (qa150)."""
    toml = indexed_sample / "vault-engine.toml"
    kept = toml.read_text() if toml.exists() else ""

    def between(i, result):
        if i == 0:
            toml.write_text(kept + "\n[taps.specs]\nsource = 'vault'\n[taps.specs]\nsource = 'vault'\n")
        if i == 1:
            toml.write_text(kept)

    call = ("search", {"query": "second microphone", "lexical": True})
    session = run_session(indexed_sample, [call, call, call], tmp_path, between=between, extra_args=("--no-daemon",))
    first, broken, mended = session.results
    assert not first.is_error and not mended.is_error
    assert broken.is_error and text_of(broken).startswith("search: ") and "Cannot declare" in text_of(broken)
    assert "\n" not in text_of(broken) and "Traceback" not in server_stderr(tmp_path)


def test_a_long_answer_is_capped_and_says_what_was_cut(indexed_sample, tmp_path, cli):
    session = run_session(indexed_sample, [("deadend_list", {"max_tokens": 400}),
                                           ("show", {"ref": "specs/audio-pipeline.md", "max_tokens": 150})],
                          tmp_path)
    full = cli_json(cli, indexed_sample, "deadend_list", {})
    capped = session.results[0].structured_content
    assert len(text_of(session.results[0])) <= 400 * 4
    kept = capped["dead_ends"]
    assert 0 < len(kept) < len(full["dead_ends"]) and kept == full["dead_ends"][:len(kept)]
    assert capped["truncated"] == {"max_tokens": 400, "cut": [f"dead_ends: kept {len(kept)} of {len(full['dead_ends'])}"]}
    shown = session.results[1].structured_content
    assert shown["text"].endswith("[...cut]") and shown["truncated"]["cut"][0].startswith("text: kept ")


def test_the_warm_daemon_answers_when_watch_runs(indexed_sample, tmp_path, start_daemon):  # noqa: F811
    calls = [("search", {"query": "second microphone", "lexical": True}),
             ("deadend_check", {"proposal": "drop the second microphone", "lexical": True})]
    cold = run_session(indexed_sample, calls, tmp_path, env={"VAULT_ENGINE_NO_DAEMON": "1"})
    start_daemon(indexed_sample)
    warm = run_session(indexed_sample, calls, tmp_path)
    assert same([r.structured_content for r in warm.results], [r.structured_content for r in cold.results])
    assert "vault_engine.vault" in cold.loaded
    assert not {"vault_engine.vault", "whoosh"} & set(warm.loaded), warm.loaded  # the daemon answered


def test_with_watch_running_the_watcher_serves_the_session_and_a_stop_hands_it_over(
        indexed_sample, tmp_path, start_daemon):  # noqa: F811
    calls = [("search", {"query": "second microphone", "lexical": True}),
             ("deadend_check", {"proposal": "drop the second microphone", "lexical": True}),
             ("status", {})]
    alone = run_session(indexed_sample, calls, tmp_path, env={"VAULT_ENGINE_NO_DAEMON": "1"})
    daemon = start_daemon(indexed_sample)
    stopped = []

    def stop_the_watcher_after_the_first_call(i, result):
        if i == 0:
            stopped.append(daemon.stop())

    relayed = run_session(indexed_sample, calls, tmp_path, between=stop_the_watcher_after_the_first_call)
    assert stopped == [0]
    assert [t.name for t in relayed.tools] == [op.name for op in OPERATIONS]
    assert not any(r.is_error for r in relayed.results), [text_of(r) for r in relayed.results]
    content = [r.structured_content for r in relayed.results]
    assert same(content[:2], [r.structured_content for r in alone.results][:2])
    assert content[2]["watcher"] == alone.results[2].structured_content["watcher"]  # none, after the stop
    log = server_stderr(tmp_path)
    assert "served by its running watcher" in log and "the watcher stopped: this process serves" in log
    assert "vault_engine.vault" in relayed.loaded  # the calls after the stop were answered here
    assert "Traceback" not in log and "Traceback" not in daemon.log.read_text()


def test_a_relay_whose_watcher_went_away_replays_the_unanswered_request_to_its_own_server(indexed_sample):
    import socket
    import threading

    from vault_engine.mcp.relay import Relay

    relay_end, watcher_end = socket.socketpair()
    client_r, relay_in = os.pipe()
    relay_r, client_w = os.pipe()
    handshake = [rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "0"}}),
                 rpc(None, "notifications/initialized")]
    search = rpc(7, "tools/call", {"name": "search", "arguments": {"query": "second microphone", "lexical": True}})
    watcher_answer = json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"from": "the watcher"}})

    def watcher_that_answers_the_handshake_then_stops():
        with watcher_end, watcher_end.makefile("rb") as lines:
            assert json.loads(lines.readline())["method"] == "initialize"
            watcher_end.sendall((watcher_answer + "\n").encode())
            assert json.loads(lines.readline())["method"] == "notifications/initialized"
            assert json.loads(lines.readline())["id"] == 7  # received, never answered

    watcher = threading.Thread(target=watcher_that_answers_the_handshake_then_stops)
    watcher.start()
    with os.fdopen(relay_r, "rb") as relay_stdin, os.fdopen(relay_in, "wb") as relay_stdout:
        relay = Relay(relay_end, relay_end.makefile("rb"), str(indexed_sample), relay_stdin, relay_stdout)
        running = threading.Thread(target=relay.run)
        running.start()
        with os.fdopen(client_w, "w") as to_relay, os.fdopen(client_r) as from_relay:
            to_relay.write(handshake[0] + "\n")
            to_relay.flush()
            assert json.loads(from_relay.readline()) == json.loads(watcher_answer)
            to_relay.write(handshake[1] + "\n" + search + "\n")
            to_relay.flush()
            answered = json.loads(from_relay.readline())  # not a second answer to initialize
            assert answered["id"] == 7 and answered["result"]["structuredContent"]["status"] == "hit"
            to_relay.close()
            running.join(60)
            assert not running.is_alive()
            relay_stdout.close()
            assert from_relay.read() == ""  # nothing else reached the client
    watcher.join(10)


def test_a_relay_does_not_run_a_write_the_watcher_may_have_run_again(indexed_sample):
    """One `checkpoint_new` had written two checkpoints: the watcher's, then the replay's (qa150).
    The read waiting beside it is replayed; the write is answered with a tool error saying so."""
    import socket
    import threading

    from vault_engine.mcp.relay import Relay

    relay_end, watcher_end = socket.socketpair()
    client_r, relay_in = os.pipe()
    relay_r, client_w = os.pipe()
    write = rpc(8, "tools/call", {"name": "checkpoint_new", "arguments": {
        "project": "drone-audio", "agent": "relaytest", "summary": "One checkpoint only"}})
    search = rpc(9, "tools/call", {"name": "search", "arguments": {"query": "second microphone", "lexical": True}})
    folder = indexed_sample / "projects" / "drone-audio" / "checkpoints"
    before = set(folder.iterdir())

    def watcher_that_hears_both_then_stops():
        with watcher_end, watcher_end.makefile("rb") as lines:
            assert json.loads(lines.readline())["method"] == "initialize"
            watcher_end.sendall((json.dumps({"jsonrpc": "2.0", "id": 0, "result": {}}) + "\n").encode())
            assert [json.loads(lines.readline()).get("id") for _ in range(3)] == [None, 8, 9]

    watcher = threading.Thread(target=watcher_that_hears_both_then_stops)
    watcher.start()
    with os.fdopen(relay_r, "rb") as relay_stdin, os.fdopen(relay_in, "wb") as relay_stdout:
        relay = Relay(relay_end, relay_end.makefile("rb"), str(indexed_sample), relay_stdin, relay_stdout)
        running = threading.Thread(target=relay.run)
        running.start()
        with os.fdopen(client_w, "w") as to_relay, os.fdopen(client_r) as from_relay:
            to_relay.write(rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                 "clientInfo": {"name": "raw", "version": "0"}}) + "\n")
            to_relay.write(rpc(None, "notifications/initialized") + "\n" + write + "\n" + search + "\n")
            to_relay.flush()
            answers = {a["id"]: a for a in (json.loads(from_relay.readline()) for _ in range(3))}
            assert sorted(answers) == [0, 8, 9]
            assert answers[8]["result"]["isError"] is True
            assert "checkpoint_new: the watcher serving this session stopped before it answered" in (
                answers[8]["result"]["content"][0]["text"])
            assert answers[9]["result"]["structuredContent"]["status"] == "hit"
            to_relay.close()
            running.join(60)
            assert not running.is_alive()
    watcher.join(10)
    assert set(folder.iterdir()) == before  # the watcher here wrote none, and the relay none either


def test_a_relay_whose_watcher_stalls_takes_the_waiting_request_over(indexed_sample):
    """A watcher stopped with SIGSTOP keeps its socket open: an open session waited forever
    (three calls timed out at 40 s each), where every other command gives up after 5 s."""
    import socket
    import threading

    from vault_engine.mcp.relay import Relay

    relay_end, watcher_end = socket.socketpair()
    client_r, relay_in = os.pipe()
    relay_r, client_w = os.pipe()
    search = rpc(7, "tools/call", {"name": "search", "arguments": {"query": "second microphone", "lexical": True}})
    heard = threading.Event()

    def watcher_that_hears_and_never_answers():
        with watcher_end.makefile("rb") as lines:
            for line in iter(lines.readline, b""):
                ident = json.loads(line).get("id")
                if ident == 0:  # the handshake is answered; then it stops answering
                    watcher_end.sendall((json.dumps({"jsonrpc": "2.0", "id": 0, "result": {}}) + "\n").encode())
                if ident == 7:
                    heard.set()

    threading.Thread(target=watcher_that_hears_and_never_answers, daemon=True).start()
    with os.fdopen(relay_r, "rb") as relay_stdin, os.fdopen(relay_in, "wb") as relay_stdout:
        relay = Relay(relay_end, relay_end.makefile("rb"), str(indexed_sample), relay_stdin, relay_stdout,
                      stalled=heard.is_set)  # stalled once it holds the request unanswered
        running = threading.Thread(target=relay.run)
        running.start()
        with os.fdopen(client_w, "w") as to_relay, os.fdopen(client_r) as from_relay:
            to_relay.write(rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                 "clientInfo": {"name": "raw", "version": "0"}}) + "\n")
            to_relay.write(rpc(None, "notifications/initialized") + "\n" + search + "\n")
            to_relay.flush()
            answers = [json.loads(from_relay.readline()) for _ in range(2)]  # the watcher's to 0, this one's to 7
            assert [a.get("id") for a in answers] == [0, 7]
            assert answers[1]["result"]["structuredContent"]["status"] == "hit"
            to_relay.close()
            running.join(60)
            assert not running.is_alive()
    watcher_end.close()


def rpc(ident, method, params=None):
    message = {"jsonrpc": "2.0", "method": method, **({"id": ident} if ident is not None else {})}
    return json.dumps({**message, **({"params": params} if params is not None else {})})


def test_a_malformed_request_is_a_protocol_error_and_stdout_holds_only_protocol(indexed_sample):
    server = subprocess.Popen([sys.executable, "-c", WRAPPER, "/dev/null", "--vault", str(indexed_sample), "mcp"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **server_env()})

    def send(line):
        server.stdin.write(line + "\n")
        server.stdin.flush()

    def reply():  # every stdout line must be a JSON-RPC message: nothing else may reach stdout
        message = json.loads(server.stdout.readline())
        assert message["jsonrpc"] == "2.0"
        return message

    try:
        send(rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "raw", "version": "0"}}))
        assert "result" in reply()
        send(rpc(None, "notifications/initialized"))
        send(rpc(2, "tools/call", {"name": "search", "arguments": "not an object"}))
        refused = reply()
        assert refused["id"] == 2 and refused["error"]["code"] == -32602
        # half of a UTF-16 pair: the SDK dropped the line, and the client waited for ever (qa139)
        send(rpc(4, "tools/call", {"name": "search", "arguments": {"query": "mic \ud800"}}))
        send(rpc("x\ud800", "tools/call", {"name": "status", "arguments": {}}))  # the server had died (qa141)
        send(json.dumps({"jsonrpc": "2.0", "id": "y\ud800", "result": {}}))  # a response: never answered (qa142)
        send("this is not JSON at all")
        send(rpc(3, "tools/call", {"name": "search", "arguments": {"query": "second microphone", "lexical": True}}))
        answers = [reply()]
        while answers[-1].get("id") != 3:  # the SDK may answer the unreadable line first
            answers.append(reply())
        assert answers[-1]["result"]["structuredContent"]["status"] == "hit"
        assert {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": (
            "the request holds half of a UTF-16 pair (a lone surrogate) U+D800: send text in UTF-8")}} in answers
        assert [a for a in answers if a.get("id") is None] == [{"jsonrpc": "2.0", "id": None, "error": {
            "code": -32602, "message": "the request holds half of a UTF-16 pair (a lone surrogate) U+D800: send text "
                                       "in UTF-8"}}]
    finally:
        server.stdin.close()
        code = server.wait(30)
    assert code == 0 and "Traceback" not in server.stderr.read()


def test_a_client_that_hangs_up_before_its_answer_ends_the_server_without_a_traceback(indexed_sample):
    """A client killed mid-call: the server's answer met a closed pipe, and it died with 60
    lines of the SDK's task-group traceback (qa193)."""
    server = subprocess.Popen([sys.executable, "-c", WRAPPER, "/dev/null", "--vault", str(indexed_sample), "mcp"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **server_env()})
    server.stdin.write(rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "raw", "version": "0"}}) + "\n")
    server.stdin.flush()
    assert "result" in json.loads(server.stdout.readline())
    server.stdout.close()  # gone: what the server writes now meets a closed pipe
    server.stdin.write(rpc(None, "notifications/initialized") + "\n"
                       + rpc(2, "tools/call", {"name": "search", "arguments": {"query": "microphone", "lexical": True}})
                       + "\n")
    server.stdin.flush()
    time.sleep(2)
    server.stdin.close()
    assert server.wait(30) == 0
    assert "Traceback" not in server.stderr.read()


@pytest.mark.parametrize("args", [["--help"], ["search", "token", "--lexical", "--json"]])
def test_other_commands_never_import_the_mcp_sdk(indexed_sample, args):
    probe = ("import sys\nfrom vault_engine.cli.main import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('MCP', 'mcp' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, "--vault", str(indexed_sample), *args],
                          capture_output=True, text=True, timeout=60, env={**os.environ, **server_env()})
    assert done.stderr.strip().splitlines()[-1] == "MCP False"


def test_a_vault_folder_that_does_not_exist_stops_the_server_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(tmp_path / "nowhere"), "mcp"],
                          input="", capture_output=True, text=True, timeout=60, env={**os.environ, **server_env()})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"vault-engine: vault folder {tmp_path / 'nowhere'} (--vault) does not exist: point --vault at an existing folder\n"

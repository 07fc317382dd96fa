"""The server-log filter the browser tests assert on: it must drop exactly one transport event (a
write to a websocket the browser had closed) and keep every other error."""

from .conftest import server_errors

# Tornado's own write path (asyncio reports the unretrieved task)
TORNADO_WRITE = """\
2026-11-24 17:44:06,101 Task exception was never retrieved
future: <Task finished name='Task-9' coro=<WebSocketProtocol13.write_message.<locals>.wrapper() done>
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/tornado/websocket.py", line 1086, in wrapper
    await fut
tornado.iostream.StreamClosedError: Stream is closed

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/tornado/websocket.py", line 1088, in wrapper
    raise WebSocketClosedError()
tornado.websocket.WebSocketClosedError"""

# Panel's write path (the shape the CI run of 2026-11-24 17:44 logged)
PANEL_WRITE = """\
2026-11-24 17:44:06,519 Task exception was never retrieved
future: <Task finished name='Task-77' coro=<_dispatch_msgs() done> exception=WebSocketClosedError()>
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/panel/io/document.py", line 250, in _dispatch_msgs
    futures += dispatch_tornado(conn, msg=msg)
  File "/venv/lib/python3.11/site-packages/panel/io/document.py", line 475, in dispatch_tornado
    WebSocketHandler.write_message(socket, msg.metadata_json),
  File "/venv/lib/python3.11/site-packages/tornado/websocket.py", line 364, in write_message
    raise WebSocketClosedError()
tornado.websocket.WebSocketClosedError
2026-11-24 17:44:06,520 Failed sending message as connection was closed
2026-11-24 17:44:06,523 WebSocket connection closed: code=None, reason=None"""

# a warning another thread printed right after the traceback (joblib's, as a sweep is cancelled while
# its page closes: the CI run of 2026-12-06 12:16 logged this shape)
JOBLIB_WARNING = """\
/venv/lib/python3.11/site-packages/joblib/parallel.py:1912: UserWarning: 3 tasks have been successfully \
executed  but not used. Additionally, 16 tasks which were still being processed by the workers have been cancelled.
  warnings.warn(msg)"""

# an app failure in a callback: must be reported
APP_ERROR = """\
2026-11-24 17:44:07,000 ERROR: panel.reactive - Callback failed for object named 'log₂ γ'
Traceback (most recent call last):
  File "/work/buviz/app/state.py", line 10, in _on_gamma
    raise ValueError("gamma must be positive")
ValueError: gamma must be positive"""

# an app failure whose traceback merely passes through a write_message: must be reported
WRAPPED = """\
2026-11-24 17:44:08,000 Task exception was never retrieved
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/tornado/websocket.py", line 364, in write_message
    message = json.dumps(message)
TypeError: Object of type ndarray is not JSON serializable"""


def test_closed_socket_writes_are_dropped():
    assert server_errors((TORNADO_WRITE + "\n" + PANEL_WRITE).splitlines()) == []


def test_a_closed_socket_write_followed_by_another_threads_warning_is_dropped():
    assert server_errors((TORNADO_WRITE + "\n" + JOBLIB_WARNING + "\n" + PANEL_WRITE).splitlines()) == []


def test_an_app_error_after_a_warning_inside_a_transport_event_is_kept():
    lines = (TORNADO_WRITE + "\n" + JOBLIB_WARNING + "\n" + WRAPPED.split("\n", 1)[1]).splitlines()
    assert any("TypeError: Object of type ndarray" in e for e in server_errors(lines))


def test_app_errors_are_kept_next_to_transport_events():
    lines = (PANEL_WRITE + "\n" + APP_ERROR + "\n" + TORNADO_WRITE + "\n" + WRAPPED).splitlines()
    errors = server_errors(lines)
    assert [e.splitlines()[0] for e in errors] == [
        "2026-11-24 17:44:07,000 ERROR: panel.reactive - Callback failed for object named 'log₂ γ'",
        "Traceback (most recent call last):",  # APP_ERROR's traceback line
        "Traceback (most recent call last):",  # WRAPPED's
    ]
    assert "ValueError: gamma must be positive" in errors[0]
    assert "TypeError: Object of type ndarray" in errors[2]

"""Limits on requests as they come in, before any of the app's work is done for them.

Two layers, because a request is held at two places:

- ``protocol``: the server's side of each connection (``gamehost serve`` runs uvicorn with
  :class:`~host.limits.protocol.LimitedHttpToolsProtocol`). A request's line and headers
  must arrive within ``GAMEHOST_HEADER_TIMEOUT`` seconds of its first byte (a new
  connection must send one within as long), and its body within ``GAMEHOST_BODY_TIMEOUT``
  of its headers; else the connection is answered 408 and closed. A client address may
  have ``GAMEHOST_CONNECTIONS_PER_CLIENT`` connections still sending a request, per server
  process; one more closes its oldest such connection once that has had a second to
  finish (and a process reading half its descriptor limit of requests closes the oldest of
  the busiest client at once). uvicorn itself times out neither, and a thousand
  connections trickling a header line every ten seconds held every descriptor of the
  process.
- ``body``: the app's way in (:class:`~host.limits.body.BodyLimit`, in every server). A body
  over ``GAMEHOST_MAX_BODY_BYTES`` is answered 413: from its Content-Length before a byte
  of it is read, or as soon as a chunked one grows past the limit. Without it an unsigned
  300 MB form was read whole into memory before its signature was checked.

WebSocket messages have their own cap, ``GAMEHOST_WS_MAX_BYTES`` (uvicorn's ``ws_max_size``).
Behind a proxy the client is the address the proxy forwards, trusted only from the
proxies in uvicorn's ``FORWARDED_ALLOW_IPS`` (``address``). The shipped Caddy and nginx
configurations (deploy/) set the same limits at the proxy.
"""

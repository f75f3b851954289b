"""Listening at a table or on a call: what to listen for (:mod:`.phrases`), what an
utterance means (:mod:`.reading`, pure) and the streaming listener that hands each meaning
to the referee (:mod:`.listener`). Hearing itself (engines, end-pointing, gates) is
``host/speech/``; this package knows sessions, tables and the referee."""

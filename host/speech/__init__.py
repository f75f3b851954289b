"""Offline speech layer: Vosk recognition, end-of-utterance detection, audio I/O and TTS.

Submodules are imported explicitly (``from host.speech.endpointer import Endpointer``) so
that importing the package stays cheap and does not load vosk, onnxruntime or PortAudio.
"""

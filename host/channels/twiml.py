"""TwiML as text: what ``str(response)`` gives for a response built with the SDK's
``VoiceResponse`` / ``MessagingResponse``, from a template of the response's shape.

The SDK serialises through ``ElementTree.tostring`` (a writer, a namespace scan, an
escape call per value): most of a voice action's TwiML cost. Responses of one shape (the
same verbs, attributes and which of them carry text) differ only in their values, so the
SDK's own output for a shape is kept once, with a marker where each value goes, and each
response after that is its values escaped as ``ElementTree`` escapes them, put in place.
tests/host/test_twiml.py holds the two to the same text.

>>> from twilio.twiml.voice_response import VoiceResponse
>>> vr = VoiceResponse()
>>> _ = vr.say("Ann said 53 & <more>", language="en-US")
>>> render(vr) == str(vr)
True
"""

from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as ET
from typing import Any

from twilio.twiml import TwiML

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'  # as the SDK's ``TwiML.to_xml`` writes it
MAX_SHAPES = 512  # a response of a shape not kept beyond these is serialised by the SDK
_MARK = re.compile("\x01([0-9]+)\x02")  # no character ElementTree escapes

_templates: dict[tuple[Any, ...], tuple[str, ...]] = {}
_lock = threading.Lock()


def render(response: TwiML) -> str:
    """``str(response)``: the same text, from the template of its shape."""
    root: ET.Element = response.xml()
    shape: list[Any] = []
    values: list[tuple[str, bool]] = []  # (value, in an attribute)
    if not _walk(root, shape, values):
        return str(response.to_xml())  # a value that is not text: the SDK's way (and its error)
    key = tuple(shape)
    parts = _templates.get(key)
    if parts is None:
        parts = _template(root, key, values)
        if parts is None:
            return str(response.to_xml())
    out = [parts[0]]
    for (value, attribute), after in zip(values, parts[1:], strict=True):
        out.append(_escape_attrib(value) if attribute else _escape_cdata(value))
        out.append(after)
    return "".join(out)


def _walk(element: ET.Element, shape: list[Any], values: list[tuple[str, bool]]) -> bool:
    """The element's shape and values in the order ``ElementTree`` writes them (attributes,
    text, children, tail); False if one is not text."""
    shape.append(element.tag)
    shape.append(tuple(element.attrib))
    for value in element.attrib.values():
        if not isinstance(value, str):
            return False
        values.append((value, True))
    text = element.text
    shape.append(bool(text))
    if text:
        if not isinstance(text, str):
            return False
        values.append((text, False))
    shape.append(len(element))
    for child in element:
        if not _walk(child, shape, values):
            return False
    tail = element.tail
    shape.append(bool(tail))
    if tail:
        if not isinstance(tail, str):
            return False
        values.append((tail, False))
    return True


def _template(
    root: ET.Element, key: tuple[Any, ...], values: list[tuple[str, bool]]
) -> tuple[str, ...] | None:
    """The text between the values of this shape (the root's values become markers)."""
    marks = iter(range(len(values)))

    def mark(element: ET.Element) -> None:
        for name in element.attrib:
            element.set(name, f"\x01{next(marks)}\x02")
        if element.text:
            element.text = f"\x01{next(marks)}\x02"
        for child in element:
            mark(child)
        if element.tail:
            element.tail = f"\x01{next(marks)}\x02"

    mark(root)
    pieces = _MARK.split(_serialised(root))
    parts, order = tuple(pieces[0::2]), [int(i) for i in pieces[1::2]]
    if order != list(range(len(values))):  # written in another order than walked: no template
        return None
    with _lock:
        if len(_templates) < MAX_SHAPES:
            _templates[key] = parts
    return parts


def _serialised(root: ET.Element) -> str:
    written: bytes = ET.tostring(root, encoding="utf-8")
    return DECLARATION + written.decode("utf-8")


# As ``ElementTree`` escapes text and attribute values; then, as its UTF-8 writer does, a
# character UTF-8 cannot carry (a lone surrogate) as a character reference.


_CDATA = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
_ATTRIB = (*_CDATA, ('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;"))


def _escaped(text: str, table: tuple[tuple[str, str], ...]) -> str:
    for char, reference in table:
        if char in text:
            text = text.replace(char, reference)
    return text if text.isascii() else _utf8(text)


def _escape_cdata(text: str) -> str:
    return _escaped(text, _CDATA)


def _escape_attrib(text: str) -> str:
    return _escaped(text, _ATTRIB)


def _utf8(text: str) -> str:
    return text.encode("utf-8", "xmlcharrefreplace").decode("utf-8")

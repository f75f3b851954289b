"""The table on a screen: the home page and the live view of a game (``router.py``)."""

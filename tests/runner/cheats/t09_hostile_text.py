r"""Cheat (threat 9): text as a weapon. At import and on every call it prints a NUL byte, lone surrogates,
invalid UTF-8 and terminal escapes (through os.write, and through sys.stdout with surrogates let through),
then raises an exception whose text holds them. Left unchanged in the report, such text was refused by the
platform's database (PostgreSQL: a NUL; any database: a lone surrogate), the write failed, and the sweeper
gave the submission another secret run: a re-roll, chosen by the contestant. Beaten: every string from the
contestant is written out as data before the report is signed (runner/textsafe.py), and read again so by
every consumer; the run is the submission's error, recorded once.

expect: error
message: custom_kernel raised ValueError: hostile \x00
threat: 9
"""

import os as _os
import sys as _sys

_HOSTILE = "hostile \x00 \ud800 \udcff \x1b[2J\x1b]0;owned\x07 \x9b31m end"


def _shout():
    _os.write(1, b"raw \x00 \xed\xa0\x80 \xff\xfe \x1b[2J\n")
    _os.write(2, b"raw err \x00 \xed\xb0\x80\n")
    _sys.stdout.reconfigure(errors="surrogatepass")
    print(_HOSTILE, flush=True)


_shout()


def custom_kernel(data):
    _shout()
    raise ValueError(_HOSTILE)

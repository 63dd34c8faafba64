"""A test oracle: what Siena Fast Forwarding 2.x's driver would read.

SFF is not installed here, so this module re-states, from the rules of its
flex scanner (``sff_scanner.ll``) and bison grammar (``sff_parser.yy``), the
parts of its driver language our writers use, and decodes values the way SFF
does (strings as bytes with SFF's escapes, doubles through strtod, ints
through strtoll). It is written independently of ``cbalgebra``: a file that
passes here is accepted by SFF and means to SFF what the returned statements
say.

Scanner rules re-stated (flex: longest match; on a tie, the earlier rule):
spaces ``[ \\b\\t\\v\\f\\r]`` and newlines are skipped; ``//`` to end of line
and ``/* */`` are comments; a line starting with ``#`` is a line marker;
``"`` opens a string; a lone ``/`` opens a regular expression; operators
``, | && || = > < != =* *= ** ~=``; the keywords ``ifconfig select set
consolidate output statistics clear timer help true false any integer string
boolean double``; identifiers ``[a-zA-Z_][a-zA-Z0-9_/.-]*``; integers
``[-+]?[1-9][0-9]*`` or ``0``, and ``0x...``; doubles
``[-+]?([0-9]+\\.|[0-9]*\\.[0-9]+)([eE][-+]?[0-9]+)?`` (a point is required);
anything else is a one-character token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEYWORDS = ("ifconfig", "select", "set", "consolidate", "output", "statistics", "clear", "timer", "help",
            "true", "false", "any", "integer", "string", "boolean", "double")
TYPE_WORDS = ("integer", "string", "boolean", "double")
#: keywords the grammar's ``Id`` accepts as a name (``any`` is not one of them)
ID_KEYWORDS = ("integer", "string", "boolean", "double", "ifconfig", "select", "set", "consolidate", "output",
               "timer", "help", "statistics", "clear", "true", "false")
OPERATORS = ("=", "!=", "<", ">", "=*", "*=", "**")

# in flex rule order
_RULES = [
    ("LINE_MARKER", re.compile(r"#[^\n]*\n")),  # only at the start of a line
    ("COMMENT_OPEN", re.compile(r"/\*")),
    ("LINE_COMMENT", re.compile(r"//[^\n]*\n")),
    ("SPACE", re.compile(r"[ \b\t\v\f\r]+")),
    ("NEWLINE", re.compile(r"\n")),
    ("STRING_OPEN", re.compile(r'"')),
    ("REGEX_OPEN", re.compile(r"/")),
    # (one flex rule per operator: longest first here, as flex would pick it)
    ("OP", re.compile(r"\|\||&&|!=|=\*|\*=|\*\*|~=|,|\||=|>|<")),
    ("KEYWORD", re.compile("|".join(sorted(KEYWORDS, key=len, reverse=True)))),
    ("ID", re.compile(r"[a-zA-Z_][a-zA-Z0-9_/.\-]*")),
    ("INT", re.compile(r"[\-+]?[1-9][0-9]*|0")),
    ("HEX", re.compile(r"0[Xx][0-9a-fA-F]+")),
    ("DOUBLE", re.compile(r"[\-+]?([0-9]*\.[0-9]+|[0-9]+\.)([eE][\-+]?[0-9]+)?")),  # longest alternative first
    ("CHAR", re.compile(r".", re.S)),
]

# string-literal rules, in flex order (the shared block comes first)
_STRING_RULES = [
    (re.compile(r"\\n"), lambda m: b"\n"),
    (re.compile(r"\\t"), lambda m: b"\t"),
    (re.compile(r"\\r"), lambda m: b"\r"),
    (re.compile(r"\\e"), lambda m: b"\x1b"),
    (re.compile(r"\\f"), lambda m: b"\f"),
    (re.compile(r"\\a"), lambda m: b"\a"),
    (re.compile(r"\\v"), lambda m: b"\v"),
    (re.compile(r"\\([0-7]{1,3})"), lambda m: bytes([int(m.group(1), 8) % 256])),
    (re.compile(r"\\0?[Xx]([0-9a-fA-F]+)"), lambda m: bytes([int(m.group(1), 16) % 256])),
    (re.compile(r"\\b"), lambda m: b"\b"),
    (re.compile(r"\n"), lambda m: b"\n"),
    (re.compile(r'"'), None),  # end of the literal
    (re.compile(r'[^"\\\n]+'), lambda m: m.group(0).encode("utf-8")),
    (re.compile(r"\\\?"), lambda m: b"?"),
    (re.compile(r"\\(.)", re.S), lambda m: m.group(1).encode("utf-8")),
]


class SFFSyntaxError(AssertionError):
    pass


@dataclass(frozen=True)
class Token:
    kind: str  # OP, KEYWORD, ID, INT, DOUBLE, STR, CHAR
    text: str
    value: object
    line: int


def _longest(rules, text: str, pos: int, at_line_start: bool):
    best = None
    for index, (kind, rx) in enumerate(rules):
        if kind == "LINE_MARKER" and not at_line_start:
            continue
        m = rx.match(text, pos)
        if m and (best is None or m.end() > best[1].end()):
            best = (kind, m)
    return best


def _string(text: str, pos: int, line: int) -> tuple[bytes, int, int]:
    out = bytearray()
    while True:
        if pos >= len(text):
            raise SFFSyntaxError(f"line {line}: unterminated string")
        best = None
        for rx, action in _STRING_RULES:
            m = rx.match(text, pos)
            if m and (best is None or m.end() > best[0].end()):
                best = (m, action)
        m, action = best
        line += m.group(0).count("\n")
        pos = m.end()
        if action is None:
            return bytes(out), pos, line
        out += action(m)


def tokens(text: str) -> list[Token]:
    """SFF's scanner over ``text``."""
    out: list[Token] = []
    pos, line = 0, 1
    while pos < len(text):
        kind, m = _longest(_RULES, text, pos, pos == 0 or text[pos - 1] == "\n")
        if kind == "COMMENT_OPEN":
            end = text.find("*/", m.end())
            if end < 0:
                raise SFFSyntaxError(f"line {line}: unterminated comment")
            line += text.count("\n", pos, end)
            pos = end + 2
            continue
        if kind == "STRING_OPEN":
            value, pos, line2 = _string(text, m.end(), line)
            out.append(Token("STR", text[m.start():pos], value, line))
            line = line2
            continue
        if kind == "REGEX_OPEN":
            raise SFFSyntaxError(f"line {line}: '/' starts a regular expression")
        if kind in ("LINE_MARKER", "LINE_COMMENT", "NEWLINE", "SPACE"):
            line += m.group(0).count("\n")
            pos = m.end()
            continue
        word = m.group(0)
        if kind == "INT":
            value: object = int(word)
            if not -(2**63) <= value < 2**63:
                raise SFFSyntaxError(f"line {line}: {word} is beyond strtoll's range")
        elif kind == "HEX":
            kind, value = "INT", int(word, 16)
        elif kind == "DOUBLE":
            value = float(word)  # strtod: correctly rounded, like Python's float()
        elif kind == "KEYWORD" and word in ("true", "false"):
            kind, value = "BOOL", word == "true"
        else:
            value = word
        out.append(Token(kind, word, value, line))
        pos = m.end()
    return out


# ----------------------------------------------------------------- grammar
@dataclass(frozen=True)
class Statement:
    kind: str          # ifconfig, select, set, or another command word
    line: int
    interface: int | None = None
    #: ifconfig: filters, each a list of (name bytes, op, type word, value);
    #: an ``any`` constraint has op "any" and value None
    filters: tuple = ()
    #: select: (name bytes, type word, value)
    attributes: tuple = ()
    #: set: (parameter, value)
    setting: tuple = ()


class _Parser:
    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.k = 0

    def peek(self) -> Token | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self) -> Token:
        t = self.peek()
        if t is None:
            raise SFFSyntaxError("unexpected end of input")
        self.k += 1
        return t

    def expect(self, kind: str, text: str | None = None) -> Token:
        t = self.take()
        if t.kind != kind or (text is not None and t.text != text):
            raise SFFSyntaxError(f"line {t.line}: expected {text or kind}, got {t.text!r}")
        return t

    def name(self) -> bytes:
        t = self.take()
        if t.kind == "ID" or (t.kind == "KEYWORD" and t.text in ID_KEYWORDS) or t.kind == "BOOL":
            return t.text.encode("utf-8")
        if t.kind == "STR":
            return t.value
        raise SFFSyntaxError(f"line {t.line}: expected a name, got {t.text!r}")

    def value(self, t: Token) -> tuple[str, object]:
        if t.kind == "INT":
            return "integer", t.value
        if t.kind == "DOUBLE":
            return "double", t.value
        if t.kind == "BOOL":
            return "boolean", t.value
        if t.kind == "STR":
            return "string", t.value
        raise SFFSyntaxError(f"line {t.line}: expected a value, got {t.text!r}")

    def constraint(self, name: bytes) -> tuple:
        t = self.take()
        if t.kind == "KEYWORD" and t.text == "any":
            u = self.take()
            if u.kind == "KEYWORD" and u.text in TYPE_WORDS + ("any",):
                return (name, "any", u.text, None)
            raise SFFSyntaxError(f"line {u.line}: 'any' needs a type ({', '.join(TYPE_WORDS)} or any), "
                                 f"got {u.text!r}")
        if t.kind != "OP" or t.text not in OPERATORS:
            raise SFFSyntaxError(f"line {t.line}: expected an operator, got {t.text!r}")
        type_word, value = self.value(self.take())
        return (name, t.text, type_word, value)

    def statement(self) -> Statement:
        t = self.take()
        if t.kind == "KEYWORD" and t.text == "ifconfig":
            iface = self.expect("INT").value
            filters = [[self.constraint(self.name())]]
            while self.peek() is not None and self.peek().kind == "OP" and self.peek().text in (",", "&&", "|", "||"):
                joiner = self.take().text
                c = self.constraint(self.name())
                if joiner in (",", "&&"):
                    filters[-1].append(c)
                else:
                    filters.append([c])
            return Statement("ifconfig", t.line, interface=iface, filters=tuple(tuple(f) for f in filters))
        if t.kind == "KEYWORD" and t.text == "select":
            attrs = []
            while True:
                name = self.name()
                self.expect("OP", "=")
                type_word, value = self.value(self.take())
                attrs.append((name, type_word, value))
                nxt = self.peek()
                if nxt is None or (nxt.kind == "CHAR" and nxt.text == ";"):
                    break
            return Statement("select", t.line, attributes=tuple(attrs))
        if t.kind == "KEYWORD" and t.text == "set":
            parameter = self.name().decode()
            self.expect("OP", "=")
            v = self.take()
            if v.kind not in ("BOOL", "INT", "ID"):
                raise SFFSyntaxError(f"line {v.line}: set {parameter} takes a Boolean, an integer or a word")
            return Statement("set", t.line, setting=(parameter, v.value))
        if t.kind == "KEYWORD" and t.text in ("consolidate", "clear", "statistics", "timer", "output", "help"):
            while self.peek() is not None and not (self.peek().kind == "CHAR" and self.peek().text == ";"):
                self.take()
            return Statement(t.text, t.line)
        raise SFFSyntaxError(f"line {t.line}: unexpected {t.text!r} at the start of a statement")

    def statements(self) -> list[Statement]:
        out = []
        while self.peek() is not None:
            out.append(self.statement())
            self.expect("CHAR", ";")
        return out


def parse(text: str) -> list[Statement]:
    """The statements SFF's driver reads from ``text`` (SFFSyntaxError if it
    would report a syntax error), checked for the statement order SFF needs:
    ``set preprocessing_limit`` only once a table exists (after an
    ``ifconfig``) and before the first ``select``."""
    stmts = _Parser(tokens(text)).statements()
    first_ifconfig = next((k for k, s in enumerate(stmts) if s.kind == "ifconfig"), None)
    first_select = next((k for k, s in enumerate(stmts) if s.kind == "select"), None)
    for k, s in enumerate(stmts):
        if s.kind == "set" and s.setting[0] == "preprocessing_limit":
            if first_ifconfig is not None and k < first_ifconfig:
                raise SFFSyntaxError(f"line {s.line}: SFF ignores preprocessing_limit before the first ifconfig")
            if first_select is not None and k > first_select:
                raise SFFSyntaxError(f"line {s.line}: preprocessing_limit after a select does not apply to it")
    return stmts

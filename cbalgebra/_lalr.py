"""The LALR driver of the grammar: Lark's parse table, run by this module so
that a word spelled like a keyword can also be an attribute name.

Where the parser could take a word either as its keyword or as a NAME, both
readings go on until one fails, and the keyword reading wins if both succeed
(``int any any``). A one-token lookahead drops most wrong readings before
they cost anything. The grammar is grammar/siena.lark with the terminals of
:mod:`cbalgebra.lexicon`; the transformer (``cbalgebra.parse``) builds values
while the table reduces. Errors are raised as Lark or the transformer raise
them; ``cbalgebra.parse`` turns them into located ParseErrors.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import LexerState, LineCounter
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser_state import ParseConf, ParserState
from lark.utils import TextSlice

from cbalgebra.lexicon import LEXEMES, grammar_text
from cbalgebra.literals import LocatedError
from cbalgebra.values import InvalidValueError

__all__ = ["Grammar", "drive", "drive_statements"]


class Grammar:
    """The LALR table of grammar/siena.lark, its callbacks and a basic lexer.

    Lark's own loop cannot follow two readings of one word, so this module
    drives the table itself (see :func:`drive`).
    """

    def __init__(self, transformer: Transformer) -> None:
        lark = Lark(
            grammar_text(),
            parser="lalr",
            lexer="basic",
            start=["predicate_text", "message_text", "statement"],
            transformer=transformer,
            maybe_placeholders=False,
            cache=False,
        )
        frontend = lark.parser
        table = frontend.parser.parser.parse_table
        self.lexer = frontend.lexer
        self.states = table.states
        self.confs = {start: ParseConf(table, frontend.parser.parser.callbacks, start)
                      for start in ("predicate_text", "message_text", "statement")}
        #: Every word the grammar knows: terminal type -> its spelling.
        self.keywords = {row.terminal: row.text for row in LEXEMES if row.is_word}
        #: Terminal types that can open a statement.
        self.statement_starts = frozenset(
            k for k in self.states[self.confs["statement"].start_state] if k.isupper())

    def tokens(self, text: str, start: int = 0, line: int = 1, line_start: int = 0) -> Iterator[Token]:
        counter = LineCounter("\n")
        counter.char_pos, counter.line, counter.line_start_pos = start, line, line_start
        counter.column = start - line_start + 1
        state = LexerState(TextSlice(text, start, len(text)), counter)
        return self.lexer.lex(state, None)


#: Readings followed at once before the least preferred are dropped. Each
#: ambiguous word doubles them at most, and a wrong reading fails within a
#: token or two, so real input never comes close.
_MAX_READINGS = 64


class _Reading:
    """One way of reading the input so far: the parser state of the current
    statement (None between statements), the items it finished, and the token
    that opened the current statement."""

    __slots__ = ("items", "opener", "state")

    def __init__(self, state: ParserState | None, items: tuple = (), opener: Token | None = None) -> None:
        self.state = state
        self.items = items
        self.opener = opener

    def live(self) -> ParserState:
        """The parser state of the statement being read (there is one when called)."""
        assert self.state is not None, "a reading between statements has no parser state"
        return self.state

    def fork(self) -> _Reading:
        state = self.state
        if state is not None:
            # Lark's LALR child filter appends to the child list of the tree it
            # extends (an EBNF repetition); give the copy lists of its own.
            values = [Tree(v.data, list(v.children)) if isinstance(v, Tree) else v for v in state.value_stack]
            state = _new_state(state.parse_conf, list(state.state_stack), values)
        return _Reading(state, self.items, self.opener)


def _new_state(conf: ParseConf, stack: list | None = None, values: list | None = None) -> ParserState:
    """A Lark LALR parser state that is fed tokens by this module's driver, so
    it has no lexer thread of its own."""
    return ParserState(conf, None, stack, values)  # type: ignore[arg-type]  # no lexer: we feed tokens


class _Failure:
    __slots__ = ("error", "index")

    def __init__(self, index: int, error: Exception) -> None:
        self.index = index
        self.error = error


def _unexpected(g: Grammar, token: Token, state: ParserState, statements: bool) -> UnexpectedToken:
    actions = g.states[state.position]
    expected = {k for k in actions if k.isupper()}
    if statements and "$END" in expected:
        expected.discard("$END")
        expected |= g.statement_starts | {"$END"}
    return UnexpectedToken(token, expected)


def _feed(reading: _Reading, token: Token, failures: list, index: int) -> bool:
    try:
        reading.live().feed_token(token)
        return True
    except (UnexpectedToken, LocatedError, InvalidValueError) as e:
        failures.append(_Failure(index, e))
        return False


def _finish(g: Grammar, reading: _Reading, end: Token, failures: list, index: int) -> bool:
    """End the current statement of ``reading``; False if it cannot end here."""
    state = reading.live()
    if "$END" not in g.states[state.position]:
        failures.append(_Failure(index, _unexpected(g, end, state, True)))
        return False
    try:
        item = state.feed_token(end, True)
    except (UnexpectedToken, LocatedError, InvalidValueError) as e:
        failures.append(_Failure(index, e))
        return False
    reading.items = (*reading.items, item)
    reading.state = None
    return True


def _advance(g: Grammar, readings: list[_Reading], token: Token, index: int, conf: ParseConf | None,
             failures: list, following: Token | None = None) -> list[_Reading]:
    """Feed ``token`` to every reading, in every type it may take.

    A keyword may also be a NAME. In a document (``conf`` is the statement
    table), a word that opens a statement may also end the current one. The
    result keeps the preferred readings first: keyword before NAME.

    ``following`` is the next token, if known: a reading whose shift of
    ``token`` leads to a state that cannot take it is dropped before it is
    copied (most ambiguous words are settled that way, at no cost).
    """
    if len(readings) == 1 and token.type not in g.keywords and readings[0].state is not None:
        # The common case: one reading, and a token with one type.
        return readings if _feed(readings[0], token, failures, index) else []
    states = g.states
    types = (token.type, "NAME") if token.type in g.keywords else (token.type,)
    out: list[_Reading] = []
    for reading in readings:
        options = []
        for t in types:
            if reading.state is None:
                assert conf is not None, "only a document has readings between statements"
                if t in states[conf.start_state]:
                    options.append((t, "start"))
                continue
            actions = states[reading.state.position]
            if t in actions:
                options.append((t, "continue"))
            if conf is not None and t in g.statement_starts and "$END" in actions:
                options.append((t, "restart"))
        if len(options) > 1 and following is not None:
            viable = [o for o in options if _may_follow(g, reading, o, following, conf)]
            if viable:
                options = viable
        if not options:
            if reading.state is None:
                assert conf is not None, "only a document has readings between statements"
                failures.append(_Failure(index, _unexpected(g, token, _new_state(conf), True)))
            else:
                failures.append(_Failure(index, _unexpected(g, token, reading.state, conf is not None)))
            continue
        for n, (t, how) in enumerate(options):
            r = reading if n == len(options) - 1 else reading.fork()
            typed = token if t == token.type else Token.new_borrow_pos(t, token.value, token)
            if how == "restart":
                end = Token.new_borrow_pos("$END", "", token)
                if not _finish(g, r, end, failures, index):
                    continue
            if r.state is None:
                assert conf is not None, "only a document has readings between statements"
                r.state, r.opener = _new_state(conf), token
            if _feed(r, typed, failures, index):
                out.append(r)
    return out[:_MAX_READINGS]


def _may_follow(g: Grammar, reading: _Reading, option: tuple[str, str], following: Token,
                conf: ParseConf | None) -> bool:
    """False when taking ``option`` surely fails on the ``following`` token.

    Runs the LALR moves for the option's type on a copy of the state stack
    only (no values, no callbacks), then asks whether the reached state
    accepts the following token in one of its types."""
    t, how = option
    states = g.states
    if how == "continue":
        stack = list(reading.live().state_stack)
    else:
        assert conf is not None, "only a document starts a statement inside the input"
        stack = [conf.start_state]
    while True:
        move = states[stack[-1]].get(t)
        if move is None:
            return False  # a reduction led to a state that rejects the token
        action, target = move
        if action is Shift:
            stack.append(target)
            break
        size = len(target.expansion)
        if size:
            del stack[-size:]
        stack.append(states[stack[-1]][target.origin.name][1])
    after = states[stack[-1]]
    if following.type in after or ("NAME" in after and following.type in g.keywords):
        return True
    return how == "continue" and conf is not None and "$END" in after and following.type in g.statement_starts


def _lookahead(tokens):
    """Pairs (token, next token or None). A lexing error on the next token is
    raised only once the current token is dealt with, so errors keep their
    order."""
    it = iter(tokens)
    try:
        current = next(it)
    except StopIteration:
        return
    while True:
        try:
            following = next(it)
        except StopIteration:
            yield current, Token("$END", "")
            return
        except UnexpectedCharacters as e:
            yield current, None
            raise e
        yield current, following
        current = following


def _best_error(failures: list[_Failure]) -> Exception:
    """The error of the reading that got furthest (the preferred one on a tie)."""
    best = failures[0]
    for f in failures[1:]:
        if f.index > best.index:
            best = f
    return best.error


def drive(g: Grammar, text: str, start: str) -> Any:
    """Parse ``text`` from ``start`` (not a document), following every reading
    of ambiguous words; the preferred surviving reading wins. Errors are
    raised as they arise (a lexing error, an unexpected token, a
    LocatedError of the transformer), for the caller to locate."""
    conf = g.confs[start]
    readings = [_Reading(_new_state(conf))]
    failures: list[_Failure] = []
    last = None
    index = 0
    keywords = g.keywords
    for index, (token, following) in enumerate(_lookahead(g.tokens(text))):
        if len(readings) == 1 and token.type not in keywords:
            # The common case, inline: one reading, a token of one type.
            readings[0].live().feed_token(token)
        else:
            readings = _advance(g, readings, token, index, None, failures, following)
            if not readings:
                raise _best_error(failures)
        last = token
    end = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
    for reading in readings:
        try:
            return reading.live().feed_token(end, True)
        except (UnexpectedToken, LocatedError, InvalidValueError) as e:
            failures.append(_Failure(index + 1, e))
    raise _best_error(failures)


def drive_statements(
    g: Grammar, text: str, start: int = 0, line: int = 1, line_start: int = 0, handback: bool = False,
) -> Generator[Any, None, int | None]:
    """Yield the statements of ``text`` from offset ``start`` as DocumentItems,
    each as soon as every other reading of the input is ruled out.

    With ``handback``, stop after the first statement is settled and return
    the offset of the next statement's first token (None at the end), so the
    fast scanner can take over again. Errors are raised as by :func:`drive`.
    """
    conf = g.confs["statement"]
    readings = [_Reading(None)]
    failures: list[_Failure] = []
    last = None
    index = 0
    for index, (token, following) in enumerate(_lookahead(g.tokens(text, start, line, line_start))):
        readings = _advance(g, readings, token, index, conf, failures, following)
        if not readings:
            raise _best_error(failures)
        last = token
        if len(readings) == 1 and readings[0].items:
            only = readings[0]
            yield from only.items
            only.items = ()
            if handback:
                assert only.opener is not None, "a finished statement had an opening token"
                return only.opener.start_pos
    end = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
    for reading in readings:
        if reading.state is None or _finish(g, reading, end, failures, index + 1):
            yield from reading.items
            return None
    raise _best_error(failures)

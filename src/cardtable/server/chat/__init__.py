"""Table chat: what people at a table say to each other, and what the operator may read of it.

This package owns:

- **messages** (:mod:`.room`): the ``chat`` protocol message of a seat, checked and cleaned
  (plain text, NFKC, control and invisible characters refused, or a preset code), numbered and
  sent to every seat with chat at that table (people; a bot only when it said ``chat: true`` in
  its hello). Spectators never get chat (like lichess's players' chat: nothing said at the table
  can leak past the spectator delay).
- **limits** (:mod:`.room`): 200 characters a line, 5 lines per 10 s per seat; chat is on at
  tables (practice or private) with two people or more only: off for ranked and tournament
  tables, and a table of bots, or of one person and bots, has none.
- **mute**: per viewer, in the page (``static/chat.js``, remembered per table in
  ``localStorage``); the server sends every line to every seat with chat.
- **reports** (:mod:`.room`, :mod:`.api`): a seat reports a line to the operator; the operator
  lists and reads reports, and reads a game's chat, with the organiser's token
  (``admin_token``).
- **storage** (:mod:`.store`): every line is stored with its game (table ``chat_lines``),
  never in the public record; reports in ``chat_reports``.
"""

from cardtable.server.chat.room import ChatError, ChatRoom, clean_text
from cardtable.server.chat.store import ChatStore

__all__ = ["ChatError", "ChatRoom", "ChatStore", "clean_text"]

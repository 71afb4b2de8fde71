"""The bot client library: play on a cardtable server with any local agent, unchanged.

An asyncio core (:class:`Client`) and a blocking facade (:func:`play`), in the style of
python-chess's engine module. The agent is the same object that plays in-process (a built-in
bot, a bot file, your own class): the client turns the server's JSON back into the game's own
observation, request and action values, answers within each deadline, reconnects and resumes
its seat, and reports every result. Only ``websockets`` is needed (``pip install
cardtable[client]``). See docs/client.md.
"""

from cardtable.client.blocking import agent_source, play
from cardtable.client.client import (
    Backoff,
    Client,
    ClientStats,
    ConnectionLost,
    Probe,
)
from cardtable.client.messages import PROTOCOL_VERSION, ProtocolError, ServerError
from cardtable.client.runner import AgentLate, AgentRunner
from cardtable.client.seat import DecodeError, GameCodec, GameReport

__all__ = [
    "PROTOCOL_VERSION",
    "AgentLate",
    "AgentRunner",
    "Backoff",
    "Client",
    "ClientStats",
    "ConnectionLost",
    "DecodeError",
    "GameCodec",
    "GameReport",
    "Probe",
    "ProtocolError",
    "ServerError",
    "agent_source",
    "play",
]

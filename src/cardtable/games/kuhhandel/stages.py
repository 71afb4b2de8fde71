"""Stages of a Kuhhandel game: what it waits for (interned strings, compared with ``is``).

``Final`` lets the optional compiled build (mypyc) use them as constants instead of looking the
names up at every use.
"""

from typing import Final

TURN: Final = "turn"
BID: Final = "bid"
SELL_OR_BUY: Final = "sell_or_buy"
PAY: Final = "pay"
OFFER: Final = "offer"
RESPOND: Final = "respond"
CLAIM: Final = "claim"
PREEMPT: Final = "preempt"
RAT: Final = "rat"
DIVIDE: Final = "divide"
OVER: Final = "over"
AUCTION_STAGES: Final = (BID, SELL_OR_BUY)

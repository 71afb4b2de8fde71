"""Stages of a Kuhhandel game: what it waits for (interned strings, compared with ``is``)."""

TURN = "turn"
BID = "bid"
SELL_OR_BUY = "sell_or_buy"
PAY = "pay"
OFFER = "offer"
RESPOND = "respond"
CLAIM = "claim"
PREEMPT = "preempt"
RAT = "rat"
DIVIDE = "divide"
OVER = "over"
AUCTION_STAGES = (BID, SELL_OR_BUY)

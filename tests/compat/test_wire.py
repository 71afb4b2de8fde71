"""The reference wire format, message by message (kuh-handel-wire.md §2), without a server."""

from __future__ import annotations

import json

import pytest

from cardtable.server.compat import wire
from cardtable.server.compat.lobby import parse_bool, table_size

from .shapes import state_message


def test_s2_4_questions_match_the_spec_examples_exactly() -> None:
    rounds = wire.auction_round("p2", 10, [("p3", 20)])
    assert wire.dumps(wire.state("DrawOrTrade")) == '{"payload":[],"type":"DrawOrTrade"}'
    assert wire.dumps(wire.state("Trade")) == '{"payload":[],"type":"Trade"}'
    assert wire.dumps(wire.provide_bidding(rounds)) == (
        '{"payload":{"state":{"animal":{"value":10},"bids":[["p3",{"Bid":20}]],"host":"p2"}},'
        '"type":"ProvideBidding"}'
    )
    final = wire.auction_round("bot", 90, [("p2", 30), ("p3", 0), ("p2", 0), ("p3", 0)])
    assert wire.dumps(wire.buy_or_sell(final)) == (
        '{"payload":{"state":{"animal":{"value":90},"bids":[["p2",{"Bid":30}],["p3",'
        '{"Pass":[]}],["p2",{"Pass":[]}],["p3",{"Pass":[]}]],"host":"bot"}},"type":"BuyOrSell"}'
    )
    assert wire.dumps(wire.send_money("p2", 30)) == (
        '{"payload":{"amount":30,"player_id":"p2"},"type":"SendMoney"}'
    )
    assert wire.dumps(wire.respond_to_trade("p2", 10, 1, 2)) == (
        '{"payload":{"offer":{"animal":{"value":10},"animal_count":1,"challenger":"p2",'
        '"challenger_card_offer":2}},"type":"RespondToTrade"}'
    )


def test_s2_4_game_updates_match_the_spec_examples_exactly() -> None:
    def body(message: dict[str, object]) -> str:
        text = wire.dumps(message)
        prefix, suffix = '{"payload":{"update":', '},"type":"GameUpdate"}'
        assert text.startswith(prefix) and text.endswith(suffix)
        return text[len(prefix) : -len(suffix)]

    assert body(wire.inflation(50)) == '{"Inflation":50}'
    assert body(wire.no_biddings("bot", 10)) == (
        '{"Auction":{"NoBiddings":{"animal":{"value":10},"host_id":"bot"}}}'
    )
    rounds = wire.auction_round("p2", 40, [("p3", 10), ("bot", 0), ("p3", 0), ("bot", 0)])
    assert body(wire.normal_auction("p3", "p2", rounds, count=1, amount=10)) == (
        '{"Auction":{"NormalAuction":{"from":"p3","money_transfer":{"Public":{"card_amount":1,'
        '"min_value":10}},"rounds":{"animal":{"value":40},"bids":[["p3",{"Bid":10}],["bot",'
        '{"Pass":[]}],["p3",{"Pass":[]}],["bot",{"Pass":[]}]],"host":"p2"},"to":"p2"}}}'
    )
    private = wire.normal_auction("bot", "p2", rounds, notes=[10, 10, 10])
    assert '"money_transfer":{"Private":{"amount":[10,10,10]}}' in body(private)
    assert body(wire.trade("p2", "bot", "p2", 10, 1, offer=(10, 0), counter=None)) == (
        '{"Trade":{"animal":{"value":10},"animal_count":1,"challenger":"p2","money_trade":'
        '{"Private":{"challenger_card_offer":[10,0],"opponent_card_offer":null}},"opponent":'
        '"bot","receiver":"p2"}}'
    )
    assert body(wire.trade("p2", "p3", "p3", 40, 1, offer=2, counter=1)) == (
        '{"Trade":{"animal":{"value":40},"animal_count":1,"challenger":"p2","money_trade":'
        '{"Public":{"challenger_card_offer":2,"opponent_card_offer":1}},"opponent":"p3",'
        '"receiver":"p3"}}'
    )
    assert body(wire.expose("p3", [0, 0, 10, 10, 10])) == (
        '{"ExposePlayer":{"player":"p3","wallet":{"bank_notes":[[0,2],[10,3]]}}}'
    )
    assert body(
        wire.end([("p3", 2020), ("bot", 0), ("p2", 0)], ["rectified action of:bot, Bid(10), Pass"])
    ) == (
        '{"End":{"illegal_moves_made":["rectified action of:bot, Bid(10), Pass"],"ranking":'
        '[["p3",2020],["bot",0],["p2",0]]}}'
    )


def test_s2_5_start_message_of_the_default_game_is_byte_identical() -> None:
    from cardtable.games.kuhhandel import COMPETITION

    def animal_set(v: int) -> str:
        card = f'{{"value":{v}}}'
        inflation = "[50,100,200,500]" if v == 500 else "[0,0,0,0]"
        return (
            f'{{"animal":{card},"animals":[{",".join([card] * 4)}],"draw_count":0,'
            f'"inflation":{inflation}}}'
        )

    values = (10, 40, 90, 160, 250, 350, 500, 650, 800, 1000)
    expected = (
        '{"payload":{"update":{"Start":{"animals":['
        + ",".join(animal_set(v) for v in values)
        + '],"players_in_turn_order":["bot","p2","p3"],"wallet":{"bank_notes":[[0,2],[10,4],'
        '[50,1]]}}}},"type":"GameUpdate"}'
    )
    sets = [wire.animal_set(s.value, s.payouts) for s in COMPETITION.species]
    start = wire.start(sets, ["bot", "p2", "p3"], [0, 0, 10, 10, 10, 10, 50])
    assert wire.dumps(start) == expected
    assert state_message(start) == "GameUpdate:Start"


def test_s2_2_empty_variants_are_never_null_or_missing() -> None:
    for kind in ("DrawOrTrade", "Trade"):
        assert json.loads(wire.dumps(wire.state(kind)))["payload"] == []
    assert wire.bidding(0) == {"Pass": []}
    with pytest.raises(ValueError):
        wire.state("Foo")


@pytest.mark.parametrize(
    ("text", "expected", "parsed"),
    [
        ('{"type":"NoAction","payload":{"decision":{"Ok":[]}}}', "NoAction", ("Ok",)),
        (
            '{"type":"PlayerTurnDecision","payload":{"decision":{"Draw":[]}}}',
            "PlayerTurnDecision",
            ("Draw",),
        ),
        (
            '{"type":"PlayerTurnDecision","payload":{"decision":{"Trade":{"opponent":"p2",'
            '"animal":{"value":10},"animal_count":1,"amount":[0,10]}}}}',
            "PlayerTurnDecision",
            ("Trade", wire.InitialTrade("p2", 10, 1, (0, 10))),
        ),
        (
            '{"type":"InitialTrade","payload":{"decision":{"opponent":"p2","animal":{"value":10},'
            '"animal_count":1,"amount":[]}}}',
            "InitialTrade",
            wire.InitialTrade("p2", 10, 1, ()),
        ),
        ('{"type":"Bidding","payload":{"decision":{"Bid":30}}}', "Bidding", ("Bid", 30)),
        ('{"type":"Bidding","payload":{"decision":{"Pass":[]}}}', "Bidding", ("Pass",)),
        (
            '{"type":"AuctionDecision","payload":{"decision":{"Buy":[]}}}',
            "AuctionDecision",
            ("Buy",),
        ),
        (
            '{"type":"AuctionDecision","payload":{"decision":{"Sell":[]}}}',
            "AuctionDecision",
            ("Sell",),
        ),
        (
            '{"type":"SendMoney","payload":{"decision":{"Amount":[10,10,10]}}}',
            "SendMoney",
            ("Amount", (10, 10, 10)),
        ),
        ('{"type":"SendMoney","payload":{"decision":{"WasBluff":[]}}}', "SendMoney", ("WasBluff",)),
        (
            '{"type":"TradeOpponentDecision","payload":{"decision":{"Accept":[]}}}',
            "TradeOpponentDecision",
            ("Accept",),
        ),
        (
            '{"type":"TradeOpponentDecision","payload":{"decision":{"CounterOffer":[50]}}}',
            "TradeOpponentDecision",
            ("CounterOffer", (50,)),
        ),
        # unknown fields are ignored at every level, as serde does (§2.1)
        (
            '{"type":"Bidding","extra":1,"payload":{"decision":{"Bid":5},"x":[]}}',
            "Bidding",
            ("Bid", 5),
        ),
    ],
)
def test_s2_6_every_client_reply_seen_on_the_wire_parses(
    text: str, expected: str, parsed: object
) -> None:
    assert wire.parse_reply(text, expected) == parsed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type":"Bidding","payload":{"decision":{"Bid":30}}}', "PlayerTurnDecision"),
        ('{"type":"Bidding","payload":{"decision":{"Bid":-1}}}', "Bidding"),
        ('{"type":"Bidding","payload":{"decision":{"Bid":1.5}}}', "Bidding"),
        ('{"type":"Bidding","payload":{"decision":{"Bid":true}}}', "Bidding"),
        ('{"type":"Bidding","payload":{"decision":{"Raise":3}}}', "Bidding"),
        ('{"type":"Bidding","payload":{}}', "Bidding"),
        ('{"type":"SendMoney","payload":{"decision":{"Amount":[10,"x"]}}}', "SendMoney"),
        ('{"type":"InitialTrade","payload":{"decision":{"opponent":3}}}', "InitialTrade"),
        ("[1,2]", "NoAction"),
    ],
)
def test_s4_2_wrong_variants_and_types_are_bad_replies(text: str, expected: str) -> None:
    with pytest.raises(wire.BadReply):
        wire.parse_reply(text, expected)


def test_s4_2_text_that_is_not_json_is_told_apart() -> None:
    with pytest.raises(ValueError) as info:
        wire.parse_reply("hello", "NoAction")
    assert not isinstance(info.value, wire.BadReply)


def test_s4_4_rectified_strings_use_rust_debug_format() -> None:
    assert wire.rectified("bot", ("Bid", 10), ("Pass",)) == "rectified action of:bot, Bid(10), Pass"
    assert wire.rectified("bot", ("WasBluff",), ("Amount", (10, 10, 10))) == (
        "rectified action of:bot, WasBluff, Amount([10, 10, 10])"
    )
    asked = ("Trade", wire.InitialTrade("p2", 10, 2, ()))
    done = ("Trade", wire.InitialTrade("p2", 10, 1, ()))
    assert wire.rectified("bot", asked, done) == (
        'rectified action of:bot, Trade(InitialTrade { opponent: "p2", animal: Animal { value: '
        '10 }, animal_count: 2, amount: [] }), Trade(InitialTrade { opponent: "p2", animal: '
        "Animal { value: 10 }, animal_count: 1, amount: [] })"
    )


def test_s4_4_equality_is_lenient_like_the_reference() -> None:
    assert wire.same(("WasBluff",), ("Amount", ()))
    assert wire.same(("Amount", (0,)), ("WasBluff",))
    assert not wire.same(("WasBluff",), ("Amount", (10,)))
    a = wire.InitialTrade("p2", 10, 1, ())
    assert wire.same(a, wire.InitialTrade("p2", 10, 1, (0, 0)))
    assert not wire.same(a, wire.InitialTrade("p2", 10, 1, (10,)))
    assert wire.same(("Amount", (10, 50)), ("Amount", (50, 10)))
    assert not wire.same(("Bid", 10), ("Pass",))


def test_s1_2_games_per_second_is_a_rust_float() -> None:
    assert wire.rust_float(float("nan")) == "NaN"
    assert wire.rust_float(3.0) == "3"
    assert wire.rust_float(3.2154) == "3.2154"
    assert "e" not in wire.rust_float(1e-7)


def test_s1_2_raise_faulty_action_warning_reads_bools_from_anything() -> None:
    assert parse_bool("true") is True and parse_bool("1") is True
    assert parse_bool("false") is False and parse_bool("0") is False
    assert parse_bool("maybe") is None


def test_s1_3_players_per_table_follow_the_reference_rule() -> None:
    sizes = (3, 4, 5, 6)
    assert table_size(6, sizes) == 3  # smallest size dividing n
    assert table_size(8, sizes) == 4
    assert table_size(7, sizes) == 4  # no divisor: the largest remainder (7 mod 4 = 3)
    assert table_size(11, sizes) == 6  # 11 mod 6 = 5
    assert table_size(13, sizes) == 5
    assert table_size(2, sizes) == 2  # fewer than a table: all of them (house bots fill)

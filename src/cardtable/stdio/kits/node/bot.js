#!/usr/bin/env node
// A cardtable bot in JavaScript (Node, no packages) speaking the stdio protocol.
//
// It answers every request of Kuhhandel and Cunegonda with the simplest legal action: the first
// of the request's choices when it lists them, else a fixed rule per request kind. Protocol,
// request kinds and fields: docs/stdio-bots.md. Try it:
//
//     cardtable play kuhhandel --bots "cmd:node bot.js,heuristic,random"
//     cardtable arena kuhhandel --bots "cmd:node bot.js,heuristic" --games 10
"use strict";

const readline = require("readline");

// Notes covering `amount` from which no note could be left out: largest first.
function payment(wallet, amount) {
  const paid = [];
  let total = 0;
  for (const note of [...wallet].sort((a, b) => b - a)) {
    if (total >= amount) break;
    paid.push(note);
    total += note;
  }
  return paid;
}

function choose(observation, request) {
  if (request.choices !== null) return request.choices[0]; // every legal action is listed
  const info = request.info;
  switch (request.kind) {
    case "bid": // Kuhhandel auction: bid the minimum while it is cheap, else pass
      if (info.min <= Math.floor(info.money / 4) && (info.max === null || info.min <= info.max)) {
        return { kind: "bid", amount: info.min };
      }
      return { kind: "pass" };
    case "pay": // info amount (or count: that many notes, for a pedigree), wallet
      if ("count" in info) {
        return { kind: "pay", notes: [...info.wallet].sort((a, b) => a - b).slice(0, info.count) };
      }
      return { kind: "pay", notes: payment(info.wallet, info.amount) };
    case "offer": // a cow trade's offer: any notes of the wallet, none is allowed
      return { kind: "offer", notes: [] };
    case "respond": // accept the offer (or counter with notes)
      return { kind: "accept" };
    case "pass": // Cunegonda: pass info.count cards of the hand
      return { pass: observation.hand.slice(0, info.count) };
    default:
      throw new Error("unknown request kind " + request.kind);
  }
}

function say(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello": // a game starts: game, rules, seat, seats
      say({ type: "ready", name: "starter-node", keep: "match" });
      break;
    case "request":
      say({ type: "action", id: message.id, action: choose(message.observation, message.request) });
      break;
    case "bye":
      process.exit(0);
    default: // event, game_end: nothing to answer
  }
});

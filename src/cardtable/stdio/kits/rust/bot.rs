//! A cardtable bot in Rust (one file, standard library only) speaking the stdio protocol.
//!
//! It answers every request of Kuhhandel and Cunegonda with the simplest legal action: the first
//! of the request's choices when it lists them, else a fixed rule per request kind. Protocol,
//! request kinds and fields: docs/stdio-bots.md. Build (no cargo, no crates) and try it:
//!
//!     rustc -O -o bot bot.rs
//!     cardtable play kuhhandel --bots "cmd:./bot,heuristic,random"
//!     cardtable arena kuhhandel --bots "cmd:./bot,heuristic" --games 10
//!
//! The JSON reader below is written for this bot (the standard library has none): it parses one
//! line into a tree of nodes that know their raw text, so a choice is answered by copying it.

use std::io::{self, BufRead, Write};

// ---- a tiny JSON reader ----------------------------------------------------------------------

#[derive(PartialEq)]
enum Kind {
    Null,
    Bool,
    Number,
    Str,
    Array,
    Object,
}

struct Node {
    kind: Kind,
    start: usize, // the raw text of the value: line[start..end]
    end: usize,
    key: (usize, usize), // an object member's key: line[key.0..key.1] (raw, without quotes)
    children: Vec<Node>, // elements or members
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> u8 {
        *self.text.get(self.at).unwrap_or(&0)
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    /// At the opening quote: moves past the closing one.
    fn skip_string(&mut self) -> Result<(), String> {
        self.at += 1;
        loop {
            match self.peek() {
                0 => return Err("unterminated string".into()),
                b'"' => {
                    self.at += 1;
                    return Ok(());
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_space();
        if self.peek() != byte {
            return Err(format!("expected '{}' at {}", byte as char, self.at));
        }
        self.at += 1;
        Ok(())
    }

    fn value(&mut self) -> Result<Node, String> {
        self.skip_space();
        let start = self.at;
        let rest = &self.text[start..];
        let (kind, children) = match self.peek() {
            b'{' => (Kind::Object, self.container(b'}', true)?),
            b'[' => (Kind::Array, self.container(b']', false)?),
            b'"' => {
                self.skip_string()?;
                (Kind::Str, Vec::new())
            }
            b't' if rest.starts_with(b"true") => {
                self.at += 4;
                (Kind::Bool, Vec::new())
            }
            b'f' if rest.starts_with(b"false") => {
                self.at += 5;
                (Kind::Bool, Vec::new())
            }
            b'n' if rest.starts_with(b"null") => {
                self.at += 4;
                (Kind::Null, Vec::new())
            }
            b'-' | b'0'..=b'9' => {
                while matches!(self.peek(), b'+' | b'-' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.at += 1;
                }
                (Kind::Number, Vec::new())
            }
            _ => return Err(format!("unexpected character at {}", self.at)),
        };
        Ok(Node {
            kind,
            start,
            end: self.at,
            key: (0, 0),
            children,
        })
    }

    fn container(&mut self, close: u8, object: bool) -> Result<Vec<Node>, String> {
        let mut children = Vec::new();
        self.at += 1;
        self.skip_space();
        if self.peek() == close {
            self.at += 1;
            return Ok(children);
        }
        loop {
            let mut key = (0, 0);
            if object {
                self.skip_space();
                if self.peek() != b'"' {
                    return Err(format!("expected a key at {}", self.at));
                }
                let from = self.at + 1;
                self.skip_string()?;
                key = (from, self.at - 1);
                self.expect(b':')?;
            }
            let mut child = self.value()?;
            child.key = key;
            children.push(child);
            self.skip_space();
            match self.peek() {
                b',' => self.at += 1,
                c if c == close => {
                    self.at += 1;
                    return Ok(children);
                }
                _ => return Err(format!("expected ',' at {}", self.at)),
            }
        }
    }
}

/// The message on one line, or why it is not JSON.
fn parse(line: &str) -> Result<Node, String> {
    let mut parser = Parser {
        text: line.as_bytes(),
        at: 0,
    };
    let node = parser.value()?;
    parser.skip_space();
    if parser.at != line.len() {
        return Err(format!("text after the value at {}", parser.at));
    }
    Ok(node)
}

struct Message<'a> {
    line: &'a str,
}

impl<'a> Message<'a> {
    fn raw(&self, node: &Node) -> &'a str {
        &self.line[node.start..node.end]
    }

    /// The member `key` of an object (None if absent or not an object).
    fn get<'n>(&self, object: Option<&'n Node>, key: &str) -> Option<&'n Node> {
        let object = object.filter(|o| o.kind == Kind::Object)?;
        object
            .children
            .iter()
            .find(|m| &self.line[m.key.0..m.key.1] == key)
    }

    /// A string node equal to `text` (compared raw: the kinds' strings have no escapes).
    fn is(&self, node: Option<&Node>, text: &str) -> bool {
        node.map_or(false, |n| {
            let raw = self.raw(n);
            n.kind == Kind::Str && raw.len() == text.len() + 2 && &raw[1..raw.len() - 1] == text
        })
    }

    /// A number node's integer part (0 when absent), as C's strtol reads it.
    fn number(&self, node: Option<&Node>) -> i64 {
        let Some(n) = node else { return 0 };
        let raw = self.raw(n);
        let rest = raw.trim_start_matches(|c: char| c == '-' || c.is_ascii_digit());
        let digits = raw.len() - rest.len();
        raw[..digits].parse().unwrap_or(0)
    }
}

// ---- the bot ---------------------------------------------------------------------------------

fn answer(
    m: &Message,
    id: Option<&Node>,
    observation: Option<&Node>,
    request: Option<&Node>,
) -> String {
    let choices = m.get(request, "choices");
    let info = m.get(request, "info");
    let kind = m.get(request, "kind");
    let action = if let Some(first) = choices
        .filter(|c| c.kind == Kind::Array)
        .and_then(|c| c.children.first())
    {
        m.raw(first).to_string() // every legal action is listed: the first
    } else if m.is(kind, "bid") {
        // Kuhhandel auction: the minimum while it is cheap
        let least = m.number(m.get(info, "min"));
        let money = m.number(m.get(info, "money"));
        let most = m.get(info, "max").filter(|n| n.kind != Kind::Null);
        if least <= money / 4 && most.map_or(true, |n| least <= m.number(Some(n))) {
            format!("{{\"kind\":\"bid\",\"amount\":{least}}}")
        } else {
            "{\"kind\":\"pass\"}".to_string()
        }
    } else if m.is(kind, "pay") {
        // info amount (or count: that many notes), wallet
        let mut notes: Vec<i64> = m.get(info, "wallet").map_or(Vec::new(), |w| {
            w.children.iter().map(|e| m.number(Some(e))).collect()
        });
        notes.sort_unstable_by(|a, b| b.cmp(a)); // largest first
        let paid: Vec<i64> = if m.get(info, "count").is_some() {
            // a pedigree: that many notes, the smallest
            let count = m.number(m.get(info, "count")).max(0) as usize;
            notes.iter().rev().take(count).copied().collect()
        } else {
            // largest first until covered: no note could be left out
            let amount = m.number(m.get(info, "amount"));
            let mut total = 0;
            notes
                .iter()
                .take_while(|&&note| {
                    let more = total < amount;
                    total += note;
                    more
                })
                .copied()
                .collect()
        };
        let list: Vec<String> = paid.iter().map(|n| n.to_string()).collect();
        format!("{{\"kind\":\"pay\",\"notes\":[{}]}}", list.join(","))
    } else if m.is(kind, "offer") {
        // a cow trade's offer: none is allowed
        "{\"kind\":\"offer\",\"notes\":[]}".to_string()
    } else if m.is(kind, "respond") {
        "{\"kind\":\"accept\"}".to_string()
    } else if m.is(kind, "pass") {
        // Cunegonda: pass info.count cards of the hand
        let count = m.number(m.get(info, "count")).max(0) as usize;
        let hand = m
            .get(observation, "hand")
            .map_or(&[][..], |h| &h.children[..]);
        let cards: Vec<&str> = hand.iter().take(count).map(|c| m.raw(c)).collect();
        format!("{{\"pass\":[{}]}}", cards.join(","))
    } else {
        "null".to_string()
    };
    let id = id.map_or("null", |n| m.raw(n));
    format!("{{\"type\":\"action\",\"id\":{id},\"action\":{action}}}\n")
}

fn main() {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                eprintln!("bot.rs: cannot read stdin: {error}");
                std::process::exit(1);
            }
        };
        let message = match parse(&line) {
            Ok(message) => message,
            Err(error) => {
                let head: String = line.chars().take(80).collect();
                eprintln!("bot.rs: cannot parse ({error}): {head}");
                std::process::exit(1);
            }
        };
        let m = Message { line: &line };
        let top = Some(&message);
        let kind = m.get(top, "type");
        let reply = if m.is(kind, "hello") {
            // a game starts: game, rules, seat, seats
            "{\"type\":\"ready\",\"name\":\"starter-rust\",\"keep\":\"match\"}\n".to_string()
        } else if m.is(kind, "request") {
            answer(
                &m,
                m.get(top, "id"),
                m.get(top, "observation"),
                m.get(top, "request"),
            )
        } else if m.is(kind, "bye") {
            break;
        } else {
            continue; // event, game_end: nothing to answer
        };
        if stdout
            .write_all(reply.as_bytes())
            .and_then(|_| stdout.flush())
            .is_err()
        {
            std::process::exit(1); // the platform closed the pipe
        }
    }
}

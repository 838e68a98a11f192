"""The spectators' pages as text: the HTML of each page, one stylesheet and
one script (served from the server itself, so the pages' Content Security
Policy allows scripts from 'self' only).

A page carries the hall's present state as JSON in a non-executed
``<script type="application/json">`` and then follows the server's event
stream (``/events``), so it shows the tables at once and changes without a
reload. The script writes every value from a table with ``textContent``,
never as markup. The timer runs in the browser: each message carries the
server's ``now``, so a TV whose clock is wrong still counts right from the
state's ``deadline``.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..board_words import PHASES, words

#: the OBS overlay's fixed size (a browser source of this size in OBS)
OVERLAY_WIDTH, OVERLAY_HEIGHT = 800, 140

CSS = """
body { margin: 0; font-family: "DejaVu Sans", sans-serif; }
body.tv { background: #10141a; color: #f2f2f2; }
body.tv main { padding: 2vw 3vw; }
.tv h1 { font-size: 4vw; margin: 0 0 1vw 0; }
.tv .phase { font-size: 3vw; color: #9ab; }
.tv .speaker { font-size: 6vw; font-weight: bold; margin-top: 1vw; }
.tv .timer { font-size: 14vw; font-weight: bold; font-variant-numeric: tabular-nums; line-height: 1; }
.tv .timer.low { color: #ff5a4e; }
.tv .said { font-size: 2.4vw; color: #cde; min-height: 3vw; margin: 1vw 0; }
.seats { display: grid; grid-template-columns: repeat(5, 1fr); gap: 1vw; }
.seat { background: #1f2733; border-radius: .6vw; padding: .8vw; font-size: 2vw; }
.seat.speaking { background: #2d6cdf; }
.seat.out { opacity: .35; text-decoration: line-through; }
.seat .fouls { color: #ffb347; float: right; }
body.overlay { background: transparent; width: @Wpx; height: @Hpx; overflow: hidden; }
.overlay .panel { position: absolute; left: 10px; bottom: 10px; width: 780px; height: 70px;
  background: rgba(12, 16, 22, .85); color: #fff; border-radius: 8px; display: flex;
  align-items: center; font-size: 28px; }
.overlay .panel > div { padding: 0 16px; white-space: nowrap; overflow: hidden; }
.overlay .o-table { color: #9ab; }
.overlay .o-speaker { flex: 1; text-overflow: ellipsis; }
.overlay .o-timer { font-weight: bold; font-variant-numeric: tabular-nums; font-size: 40px; }
.overlay .o-fouls { color: #ffb347; font-size: 22px; }
body.plain { background: #fff; color: #111; padding: 2em; }
.plain table { border-collapse: collapse; font-size: 1.2em; }
.plain th, .plain td { border-bottom: 1px solid #ccc; padding: .3em .8em; text-align: right; }
.plain td:nth-child(2), .plain th:nth-child(2) { text-align: left; }
""".replace("@W", str(OVERLAY_WIDTH)).replace("@H", str(OVERLAY_HEIGHT))

SCRIPT = r"""
"use strict";
(function () {
  const body = document.body;
  const kind = body.dataset.page;
  const only = body.dataset.table ? Number(body.dataset.table) : null;
  const W = JSON.parse(document.getElementById("words").textContent);
  const tables = {};
  let offset = 0;  // the server's clock less the browser's, seconds
  let standings = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function left(t) {
    if (t.deadline !== null && t.deadline !== undefined) {
      return Math.max(0, t.deadline - (Date.now() / 1000 + offset));
    }
    return (t.paused_left === null || t.paused_left === undefined) ? null : t.paused_left;
  }
  function clock(s) {
    if (s === null) return "—";
    const whole = Math.ceil(s - 1e-9);
    return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
  }
  function phase(t) {
    if (t.result) return W.result.replace("{winner}", t.result);
    return W.phases[t.phase] || t.phase || "—";
  }
  function seatName(t, seat) {
    const name = t.players[String(seat)];
    return name ? seat + " · " + name : String(seat);
  }
  function fill(id, text) {
    const e = document.getElementById(id);
    if (e && e.textContent !== text) e.textContent = text;
  }
  function renderTv(t) {
    fill("phase", phase(t));
    fill("speaker", t.speaker === null ? "" : W.speaking + ": " + seatName(t, t.speaker));
    fill("said", t.announcement || "");
    const seats = document.getElementById("seats");
    const out = new Set(t.out.map(o => o.seat));
    seats.replaceChildren();
    const count = t.seats || Object.keys(t.players).length;
    for (let n = 1; n <= count; n++) {
      const box = el("div", "seat", seatName(t, n));
      if (out.has(n)) box.classList.add("out");
      if (t.speaker === n) box.classList.add("speaking");
      const fouls = t.fouls[String(n)];
      if (fouls) box.appendChild(el("span", "fouls", "⚠" + fouls));
      seats.appendChild(box);
    }
  }
  function renderOverlay(t) {
    fill("o-table", W.table + " " + t.table);
    fill("o-speaker", t.speaker === null ? phase(t) : W.speaking + ": " + seatName(t, t.speaker));
    const fouls = t.speaker === null ? "" : (t.fouls[String(t.speaker)] || "");
    fill("o-fouls", fouls ? "⚠" + fouls : "");
  }
  function renderStandings() {
    if (!standings) return;
    const table = document.getElementById("standings");
    table.replaceChildren();
    const head = el("tr");
    standings.head.forEach(h => head.appendChild(el("th", "", h)));
    table.appendChild(head);
    standings.rows.forEach(r => {
      const tr = el("tr");
      r.forEach(c => tr.appendChild(el("td", "", c)));
      table.appendChild(tr);
    });
    fill("count", standings.count);
  }
  function tick() {
    const t = only === null ? null : tables[only];
    if (!t) return;
    const s = left(t);
    const id = kind === "overlay" ? "o-timer" : "timer";
    fill(id, clock(s));
    const e = document.getElementById(id);
    if (e) e.classList.toggle("low", s !== null && s <= 10);
  }
  function apply(msg) {
    if (msg.kind === "table") {
      offset = msg.now - Date.now() / 1000;
      tables[msg.table.table] = msg.table;
      if (msg.table.table === only) {
        if (kind === "tv") renderTv(msg.table);
        if (kind === "overlay") renderOverlay(msg.table);
        tick();
      }
    } else if (msg.kind === "standings") {
      standings = msg;
      if (kind === "standings") renderStandings();
    }
  }
  JSON.parse(document.getElementById("initial").textContent).forEach(apply);
  setInterval(tick, 200);
  const source = new EventSource("/events" + (only === null ? "" : "?table=" + only));
  source.onmessage = e => apply(JSON.parse(e.data));
})();
"""


def _json_block(value: Any) -> str:
    """JSON that cannot close its <script> element (``<`` escaped)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def page_words(lang: str) -> dict[str, Any]:
    w = words(lang)
    index = 1 if lang == "en" else 0
    return {
        "table": w["table"],
        "speaking": w["speaker"],
        "result": w["result"],
        "phases": {key: pair[index] for key, pair in PHASES.items()},
    }


def page(kind: str, title: str, body: str, initial: list[dict[str, Any]], lang: str,
         table: int | None = None) -> str:  # fmt: skip
    """One page: its body markup, the state it starts from, the words."""
    data_table = "" if table is None else f' data-table="{table}"'
    return (
        f'<!DOCTYPE html>\n<html lang="{"en" if lang == "en" else "ru"}">\n<head>\n'
        f'<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n'
        f"<title>{html.escape(title)}</title>\n"
        f'<link rel="stylesheet" href="/hall.css">\n</head>\n'
        f'<body class="{kind_class(kind)}" data-page="{kind}"{data_table}>\n{body}\n'
        f'<script type="application/json" id="initial">{_json_block(initial)}</script>\n'
        f'<script type="application/json" id="words">{_json_block(page_words(lang))}</script>\n'
        f'<script src="/hall.js"></script>\n</body>\n</html>\n'
    )


def kind_class(kind: str) -> str:
    return {"tv": "tv", "overlay": "overlay"}.get(kind, "plain")


def tv_body(table: int, lang: str) -> str:
    w = words(lang)
    return (
        f"<main>\n<h1>{html.escape(w['table'])} {table}</h1>\n"
        '<div class="phase" id="phase"></div>\n<div class="speaker" id="speaker"></div>\n'
        '<div class="timer" id="timer">—</div>\n<div class="said" id="said"></div>\n'
        '<div class="seats" id="seats"></div>\n</main>'
    )


def overlay_body() -> str:
    return (
        '<div class="panel"><div class="o-table" id="o-table"></div>'
        '<div class="o-speaker" id="o-speaker"></div>'
        '<div class="o-fouls" id="o-fouls"></div>'
        '<div class="o-timer" id="o-timer">—</div></div>'
    )


def standings_body(event: str, scheme_title: str, lang: str) -> str:
    w = words(lang)
    return (
        f"<h1>{html.escape(w['title'].format(event=event))}</h1>\n"
        f"<p>{html.escape(w['scheme'].format(title=scheme_title))} · "
        f'<span id="count"></span></p>\n<table id="standings"></table>'
    )


def index_body(event: str, tables: list[int], lang: str) -> str:
    w = words(lang)
    items = "\n".join(
        f'<li>{html.escape(w["table"])} {n}: <a href="/table/{n}">TV</a> · '
        f'<a href="/overlay/{n}">OBS</a></li>'
        for n in tables
    )
    return (
        f"<h1>{html.escape(w['title'].format(event=event))}</h1>\n"
        f'<p><a href="/standings">{html.escape(w["standings"])}</a></p>\n<ul>\n{items}\n</ul>'
    )

"""The printable score sheet: one HTML page with print CSS, pre-filled with the
variant's contract for every round, the players' columns and the totals so far. On a
phone the table scrolls sideways in its own box, its round column fixed; the page itself
never scrolls sideways."""

from __future__ import annotations

from html import escape

from .middleware import inline_hash
from .schemas import SheetPublic

__all__ = ["PRINT_POLICY", "printable_sheet"]

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #111; background: #fff; }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; overflow-wrap: anywhere; }
p.meta { margin: 0 0 1rem; color: #444; }
.sheet-scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: separate; border-spacing: 0; width: 100%;
  border-top: 1px solid #333; border-left: 1px solid #333; }
th, td { border: solid #333; border-width: 0 1px 1px 0; padding: .35rem .4rem;
  text-align: center; background: #fff; }
.round { position: sticky; left: 0; z-index: 1; box-shadow: 1px 0 0 #333; }
th.contract, td.contract { text-align: left; min-width: 7rem; }
td.total { font-weight: bold; background: #f2f2f2; }
td.blank { height: 1.6rem; min-width: 2.5rem; }
tfoot td { font-weight: bold; }
.no-print { margin-top: 1rem; }
@media (max-width: 40rem) { body { margin: .75rem; } }
@media print {
  body { margin: 0; }
  .sheet-scroll { overflow: visible; }
  .round { position: static; box-shadow: none; }
  .no-print { display: none; }
  @page { size: landscape; margin: 12mm; }
}
"""


_PRINT = "window.print()"

PRINT_POLICY = (
    f"default-src 'self'; style-src {inline_hash(_CSS)}; "
    f"script-src 'unsafe-hashes' {inline_hash(_PRINT)}; object-src 'none'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own style sheet and print button, nothing else."""


def printable_sheet(sheet: SheetPublic) -> str:
    players = sheet.players
    head = "".join(f'<th colspan="2">{escape(p)}</th>' for p in players)
    sub = "".join("<th>points</th><th>total</th>" for _ in players)
    rows = []
    for rnd in sheet.rounds:
        cells = []
        for seat in range(len(players)):
            points = rnd.points[seat]
            total = rnd.totals[seat] if rnd.totals else None
            cells.append(
                f'<td class="blank">{"" if points is None else points}</td>'
                f'<td class="total">{"" if total is None else total}</td>'
            )
        contract = escape(rnd.contract or "any melds")
        rows.append(
            f'<tr><td class="round">{rnd.number}</td><td class="contract">{contract}'
            f" <small>({rnd.cards_dealt} cards)</small></td>{''.join(cells)}</tr>"
        )
    totals = "".join(f'<td colspan="2">{t}</td>' for t in sheet.totals)
    if sheet.winners:
        result = "Winner: " + ", ".join(escape(w) for w in sheet.winners)
    elif sheet.leaders and any(sheet.totals):
        result = "Leading: " + ", ".join(escape(w) for w in sheet.leaders)
    else:
        result = ""
    target = f" · played to {sheet.target_score}" if sheet.target_score else ""
    title = escape(sheet.name or f"Game {sheet.game_id}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — score sheet</title><style>{_CSS}</style></head>
<body>
<h1>{title} — {escape(sheet.variant_title)}</h1>
<p class="meta">Lowest total wins{target}. {result}</p>
<div class="sheet-scroll" id="print-scroll">
<table id="print-sheet">
<thead><tr><th rowspan="2" class="round">Round</th>
<th rowspan="2" class="contract">Contract</th>{head}</tr>
<tr>{sub}</tr></thead>
<tbody>{"".join(rows)}</tbody>
<tfoot><tr><td class="round">Total</td><td></td>{totals}</tr></tfoot>
</table>
</div>
<p class="no-print"><button onclick="{_PRINT}">Print</button>
<a href="/#/games/{sheet.game_id}/sheet">Back to the score sheet</a></p>
</body></html>
"""

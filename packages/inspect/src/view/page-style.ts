/**
 * The page's style sheet: light and dark from `prefers-color-scheme`, visible focus, one
 * column in a narrow window. Plain CSS, inlined in the page (its hash is in the page's CSP).
 */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #fbfbfa; --fg: #1d1f23; --muted: #5d636e; --line: #d7dae0; --card: #ffffff;
  --accent: #2557b8; --focus: #c2410c; --code: #f2f3f5;
  --llm: #2557b8; --tool: #0f7b53; --env: #8a5a00; --other: #7b3fa0;
  --same: #5d636e; --changed: #a15c00; --changed-bg: #fff4d6; --added: #0f7b53; --added-bg: #e3f6ec;
  --removed: #b42318; --removed-bg: #fde8e6; --missed: #b42318;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171b; --fg: #e6e8eb; --muted: #a2a8b3; --line: #343840; --card: #1d2026;
    --accent: #8ab4ff; --focus: #ffb86b; --code: #262a31;
    --llm: #8ab4ff; --tool: #5fd4a0; --env: #f0c060; --other: #d3a6f0;
    --same: #a2a8b3; --changed: #f0c060; --changed-bg: #3a3118; --added: #5fd4a0; --added-bg: #17352a;
    --removed: #ff8a80; --removed-bg: #3d1d1b; --missed: #ff8a80;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
main { max-width: 1600px; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 3px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: .5rem; z-index: 2; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
h1 { font-size: 1.35rem; margin: .25rem 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 0 0 .4rem; }
h3, h4, h5 { margin: 0; font-size: 1rem; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .86em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code); padding: .45rem .6rem; border-radius: 6px; margin: .25rem 0; max-height: 32rem; overflow: auto; }
.verdict-line { font-weight: 600; margin: .25rem 0 1rem; }
.heads { display: grid; grid-template-columns: repeat(var(--sides, 1), minmax(0, 1fr)); gap: 1rem; margin-bottom: 1rem; }
.head { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.head dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .9rem; margin: 0; }
.head dt { color: var(--muted); }
.head dd { margin: 0; overflow-wrap: anywhere; }
.timeline { display: grid; grid-template-columns: 4.5rem repeat(var(--lanes, 1), minmax(0, 1fr)); gap: .6rem; align-items: start; }
.lane-head { font-weight: 600; color: var(--muted); padding: 0 .25rem; }
/* Each step is a grid of the same tracks as the timeline's, so its columns line up with the lane
   heads; off-screen steps are neither laid out nor painted until scrolled to (a long run opens fast). */
.step { display: grid; grid-column: 1 / -1; grid-template-columns: 4.5rem repeat(var(--lanes, 1), minmax(0, 1fr)); gap: .6rem; align-items: start; content-visibility: auto; contain-intrinsic-size: auto 24rem; }
.step-label { color: var(--muted); font-size: .85rem; font-weight: 600; padding-top: .6rem; text-align: right; }
.cell { display: flex; flex-direction: column; gap: .6rem; min-width: 0; }
.cell-lane { display: none; color: var(--muted); font-size: .8rem; }
.card { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--kind, var(--other)); border-radius: 8px; padding: .6rem .8rem; min-width: 0; }
.card.kind-llm { --kind: var(--llm); }
.card.kind-tool { --kind: var(--tool); }
.card.kind-env { --kind: var(--env); }
.card.missed { border-color: var(--missed); border-left-color: var(--missed); box-shadow: 0 0 0 1px var(--missed); }
.card-title { display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
.card-title .seq { color: var(--muted); font-weight: 600; }
.card-title .name { color: var(--kind, var(--other)); font-weight: 600; overflow-wrap: anywhere; }
.card-meta { color: var(--muted); font-size: .8rem; display: flex; gap: .6rem; flex-wrap: wrap; }
.bar { height: 4px; background: var(--kind, var(--other)); opacity: .65; border-radius: 2px; margin: .35rem 0 .4rem; min-width: 2px; }
.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .7rem; margin: 0; }
.fields dt { color: var(--muted); font-size: .85rem; }
.fields dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.fields .changed { background: var(--changed-bg); border-radius: 3px; }
.fields dt.changed::before { content: "\\25B8 "; color: var(--changed); }
.badge { display: inline-block; font-size: .75rem; font-weight: 700; padding: .05rem .45rem; border-radius: 999px; border: 1px solid currentColor; }
.badge.missed { color: var(--missed); }
.redacted { background: var(--removed-bg); color: var(--removed); border-radius: 3px; padding: 0 .15rem; }
details.whole { margin-top: .45rem; }
details > summary { cursor: pointer; color: var(--accent); font-size: .9rem; width: fit-content; }
details.whole[open] > summary { margin-bottom: .4rem; }
.part { border-top: 1px solid var(--line); padding-top: .4rem; margin-top: .4rem; }
.part h5 { font-size: .9rem; margin-bottom: .2rem; }
.message { border: 1px solid var(--line); border-radius: 6px; padding: .3rem .5rem; margin: .3rem 0; }
.message.changed { border-color: var(--changed); background: var(--changed-bg); }
.role { font-weight: 600; font-size: .82rem; color: var(--muted); text-transform: lowercase; }
.events { margin: .25rem 0; padding-left: 1.5rem; max-height: 24rem; overflow: auto; }
.events li { margin: .1rem 0; }
.rows { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: .9rem; }
.row { border-top: 1px solid var(--line); padding-top: .5rem; content-visibility: auto; contain-intrinsic-size: auto 20rem; }
.row-verdict { margin: 0 0 .4rem; display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
.v-same .badge { color: var(--same); }
.v-changed-input .badge, .v-changed-answer .badge { color: var(--changed); }
.v-added .badge { color: var(--added); }
.v-removed .badge, .v-missed .badge { color: var(--removed); }
.v-not-reached .badge { color: var(--muted); border-style: dashed; }
.pair { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1rem; align-items: start; }
/* Which side a card is on: said to screen readers, and shown once the sides are stacked. */
.side { min-width: 0; }
.side-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.empty { border: 1px dashed var(--line); border-radius: 8px; padding: .6rem .8rem; color: var(--muted); font-size: .9rem; }
.changes { margin: .5rem 0 0; }
.changes ul { margin: .2rem 0; padding-left: 1.2rem; }
.changes li { overflow-wrap: anywhere; }
del { background: var(--removed-bg); color: var(--removed); text-decoration: line-through; }
ins { background: var(--added-bg); color: var(--added); text-decoration: none; }
.v-same .pair { opacity: .8; }
footer { color: var(--muted); font-size: .8rem; margin-top: 2rem; }
@media (max-width: 760px) {
  main { padding: .75rem; }
  .heads, .pair { grid-template-columns: minmax(0, 1fr); }
  .timeline, .step { grid-template-columns: minmax(0, 1fr); }
  .lane-head { display: none; }
  .step-label { text-align: left; padding-top: .4rem; border-top: 1px solid var(--line); }
  .cell-lane { display: block; }
  .side-label { position: static; width: auto; height: auto; overflow: visible; clip: auto; color: var(--muted); font-size: .8rem; margin-bottom: .2rem; }
  .cell:empty { display: none; }
}
`

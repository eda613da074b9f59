// The cell's own CSS, inside its shadow root: the host page's styles neither reach in nor out.
export const CELL_CSS = `
:host { display: block; margin: 1rem 0; font: 14px/1.4 system-ui, sans-serif; color: CanvasText; }
.cell { border: 1px solid #8886; border-radius: .5rem; overflow: hidden; }
textarea { box-sizing: border-box; width: 100%; min-height: 3.5em; margin: 0; padding: .5rem; border: 0;
  border-bottom: 1px solid #8886; font: 13px/1.4 ui-monospace, monospace; resize: vertical; background: Canvas; color: CanvasText; }
textarea:focus-visible, button:focus-visible { outline: 2px solid Highlight; outline-offset: -2px; }
.bar { display: flex; align-items: center; gap: .5rem; padding: .25rem .5rem; }
.status { color: GrayText; font-size: .85em; }
.output:empty { display: none; }
.output { padding: 0 .5rem .5rem; }
.result { margin: .25rem 0; }
.result-meta { margin: 0 0 .25rem; color: GrayText; font-size: .85em; }
.result:not(.outcome-outcome_ok) .badge { color: #c62828; }
pre { margin: .25rem 0; white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.4 ui-monospace, monospace; }
.stderr, .traceback { color: #c62828; }
.input-line { display: inline; }
.input-line input { font: inherit; min-width: 20ch; }
img.plot { max-width: 100%; height: auto; }
.chart { margin: .25rem 0; }
.chart iframe { display: block; width: 100%; height: 460px; border: 0; background: white; }
.chart figcaption { color: GrayText; font-size: .85em; }
.html-output { overflow-x: auto; }
.html-output table { border-collapse: collapse; }
.html-output th, .html-output td { border: 1px solid #8886; padding: .15rem .4rem; }
button.link { background: none; border: 0; padding: 0; color: LinkText; text-decoration: underline; cursor: pointer; }
`;

/**
 * Every style of the widget, inside its shadow root. `:host` resets with `all: initial
 * !important`: in the cascade, a shadow tree's important declarations on its host beat the page's
 * own, so no page rule (inherited fonts and colours, `* {…}`, `!important` ones) reaches in, and
 * these selectors cannot match anything outside.
 */
export const CSS = `
:host{all:initial!important;display:block!important;position:static!important;
--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--soft:#f3f5f7;--accent:#0b63ce;--accent-fg:#fff;--err:#b3261e;
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif!important;color:var(--fg)!important}
:host([data-theme=dark]){--bg:#16191d;--fg:#e6e8eb;--muted:#9ba3ad;--line:#353b43;--soft:#1f242a;--accent:#5aa2ff;--accent-fg:#0b1220;--err:#ff8a80}
*{box-sizing:border-box;font:inherit;color:inherit}
[hidden]{display:none!important}
button{cursor:pointer;border:1px solid var(--line);background:var(--soft);border-radius:6px;padding:4px 10px;display:inline-flex;align-items:center;gap:6px}
button:disabled{opacity:.55;cursor:default}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;background:var(--accent);color:var(--accent-fg);border:0;border-radius:999px;padding:10px 16px;font-weight:600;box-shadow:0 4px 14px rgba(0,0,0,.25)}
kbd{font:12px ui-monospace,monospace;border:1px solid currentColor;border-radius:4px;padding:0 4px}
.panel{position:fixed;right:20px;bottom:76px;z-index:2147483001;width:min(420px,calc(100vw - 24px));height:min(620px,calc(100vh - 100px));display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:12px;box-shadow:0 12px 40px rgba(0,0,0,.3);overflow:hidden}
header{display:flex;align-items:center;gap:8px;padding:10px 12px;border-bottom:1px solid var(--line)}
h2{margin:0;flex:1;font-size:15px;font-weight:600}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:12px}
.q{align-self:flex-end;max-width:85%;background:var(--accent);color:var(--accent-fg);padding:6px 10px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}
.a{background:var(--soft);border:1px solid var(--line);border-radius:10px;padding:8px 12px;overflow-wrap:anywhere}
.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md pre{margin:.5em 0}
.md pre{overflow-x:auto;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px}
.md strong,.md b{font-weight:700}
.md code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
a{color:var(--accent)}
.src{margin:8px 0 0;padding:8px 0 0;border-top:1px solid var(--line);font-size:12.5px}
.src ol{margin:2px 0 0;padding-left:20px}
.muted{color:var(--muted)}
.rate{display:flex;gap:6px;margin-top:8px}
.rate svg{width:16px;height:16px;fill:currentColor}.rate button+button svg{transform:scaleY(-1)}
.rate button[aria-pressed=true]{background:var(--accent);color:var(--accent-fg);border-color:var(--accent)}
.alert{margin:0 12px;color:var(--err)}
.alert:empty{display:none}
form{display:flex;flex-direction:column;gap:4px;padding:10px 12px;border-top:1px solid var(--line)}
label{font-size:12.5px;color:var(--muted)}
.row{display:flex;gap:8px;align-items:flex-end}
textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:8px;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
.send{background:var(--accent);color:var(--accent-fg);border-color:var(--accent);height:40px}
@media (max-width:480px){.panel{inset:0;width:auto;height:auto;border:0;border-radius:0;box-shadow:none}}
@media (pointer:coarse){kbd{display:none}}
`;

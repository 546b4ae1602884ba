//! The page frame and Markdown rendering shared by the HTML pages.

use pulldown_cmark::{Options, Parser, html};

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    pulldown_cmark_escape::escape_html(&mut out, text).expect("writing to a String");
    out
}

/// CommonMark with tables (the agent docs use them), rendered to HTML. The Markdown is the
/// service's own (embedded at build time); raw HTML in it is passed through as CommonMark says.
pub fn markdown(text: &str) -> String {
    let parser = Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_HEADING_ATTRIBUTES,
    );
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, parser);
    out
}

/// A whole page: `nav` and `body` are HTML already.
pub fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>{STYLE}</style>
</head>
<body>
<header><a class="home" href="/api-docs">Space-Time Records Service</a> <span>API documentation</span></header>
<div class="frame">
<nav>{nav}</nav>
<main>{body}</main>
</div>
</body>
</html>
"#,
        title = escape(title)
    )
}

/// System fonts only; tables and code scroll inside themselves so a phone never scrolls sideways.
const STYLE: &str = r#"
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--code:#f6f8fa;--accent:#0a58ca}
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:.7rem 1rem;border-bottom:1px solid var(--line);background:#f0f3f6}
header .home{font-weight:600;color:var(--fg);text-decoration:none}
header span{color:var(--muted);margin-left:.4rem}
.frame{display:flex;max-width:78rem;margin:0 auto}
nav{flex:0 0 17rem;padding:1rem;border-right:1px solid var(--line);font-size:.9rem;position:sticky;top:0;align-self:flex-start;max-height:100vh;overflow-y:auto}
nav ul{list-style:none;padding-left:.8rem;margin:.2rem 0}
nav>ul{padding-left:0}
nav a{color:var(--accent);text-decoration:none}
main{flex:1;min-width:0;padding:1rem 1.5rem 4rem}
h1{font-size:1.7rem;margin-top:.5rem}h2{margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{margin-top:1.8rem}
a{color:var(--accent)}
code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:.1em .3em;border-radius:4px}
pre{background:var(--code);padding:.8rem;border-radius:6px;overflow-x:auto}
pre code{padding:0;background:none}
.table{overflow-x:auto}
table{border-collapse:collapse;margin:.6rem 0;font-size:.92rem;display:block;max-width:100%;overflow-x:auto}
main p,main li,main td{overflow-wrap:anywhere}
th,td{border:1px solid var(--line);padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f0f3f6}
.op{border:1px solid var(--line);border-radius:8px;padding:.2rem 1rem 1rem;margin:1.2rem 0}
.op h3{margin-top:.8rem;font-size:1.05rem;word-break:break-all}
.method{display:inline-block;min-width:4.2rem;text-align:center;font:600 .8rem ui-monospace,monospace;padding:.15rem .4rem;border-radius:4px;color:#fff;background:#57606a;margin-right:.4rem}
.get{background:#1a7f37}.post{background:#0a58ca}.patch{background:#9a6700}.delete{background:#cf222e}.put{background:#8250df}
.muted{color:var(--muted)}
.badge{font-size:.78rem;border:1px solid var(--line);border-radius:10px;padding:0 .45rem;margin-left:.3rem;color:var(--muted)}
@media (max-width:52rem){.frame{display:block}nav{position:static;max-height:none;border-right:none;border-bottom:1px solid var(--line)}main{padding:1rem}}
"#;

/** The dashboard's two HTML documents: the page's shell (its script does the rest) and the
 *  refusal shown before sign-in. No inline script or style anywhere (the CSP forbids both). */

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export function shellPage(csrf: string, scope: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="stepwise-csrf" content="${escapeHtml(csrf)}">
<meta name="stepwise-scope" content="${escapeHtml(scope)}">
<title>Stepwise</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header class="top"><a href="#/" class="brand">Stepwise</a><span class="scope">${escapeHtml(scope)}</span><span id="live" class="live" role="status">connecting…</span></header>
<main id="app" tabindex="-1"><p>Loading…</p></main>
</body>
</html>
`;
}

export function refusalPage(title: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Stepwise</title></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body>
</html>
`;
}

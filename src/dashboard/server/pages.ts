/** The dashboard's two HTML documents: the page's shell (its script does the rest) and the
 *  refusal shown before sign-in. No inline script or style anywhere (the CSP forbids both). */

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** In the cluster: who is signed in, and a sign-out form (a plain form: it needs no script). */
export interface SignedIn {
  readonly username: string;
}

export function shellPage(csrf: string, scope: string, signedIn?: SignedIn): string {
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
<header class="top"><a href="#/" class="brand">Stepwise</a><span class="scope">${escapeHtml(scope)}</span><span id="live" class="live" role="status">connecting…</span>${signedIn === undefined ? '' : signOut(csrf, signedIn)}</header>
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

function signOut(csrf: string, s: SignedIn): string {
  return `<span class="who">signed in as ${escapeHtml(s.username)}</span><form class="sign-out" method="post" action="/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">Sign out</button></form>`;
}

/** The in-cluster sign-in: a bearer token, checked by the API server (TokenReview). */
export function signInPage(problem?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Stepwise</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<header class="top"><span class="brand">Stepwise</span></header>
<main class="sign-in">
<h1>Sign in</h1>
${problem === undefined ? '' : `<p class="result refused" role="alert">${escapeHtml(problem)}</p>`}
<form method="post" action="/sign-in">
<p><label for="token">Kubernetes bearer token</label></p>
<p><input type="password" id="token" name="token" autocomplete="off" required size="60"></p>
<p><button type="submit">Sign in</button></p>
</form>
<p class="muted">The token kubectl uses: <code>kubectl create token NAME</code> for a ServiceAccount, or your kubeconfig's (<code>kubectl config view --raw --minify -o jsonpath='{.users[0].user.token}'</code>). The API server checks it; what you may see and do is what RBAC grants you.</p>
</main>
</body>
</html>
`;
}

/**
 * The small HTML pages of the approval links: a confirmation page for GET (chat apps and mail
 * scanners fetch every link, so a GET never acts) with a form that POSTs the decision, and a
 * result page. Plain values in, escaped HTML out; no scripts, no external resources.
 */
export interface ConfirmationPage {
  readonly decision: 'Approve' | 'Reject';
  readonly namespace: string;
  readonly rollout: string;
  /** Where the gate is: "step 2/3", "the switch to the new version" (gatePlace). */
  readonly step: string;
  readonly revision: string;
  readonly asked: string;
  readonly prompt?: string;
  /** "12 min" */
  readonly timeLeft: string;
  readonly approvalsSoFar: string;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;color:#222}' +
  'dt{font-weight:600;margin-top:.6em}textarea{width:100%;min-height:4em}' +
  'button{font-size:1.1em;padding:.5em 1.5em;margin-top:1em}.reject{background:#b00;color:#fff}';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

export function confirmationPage(p: ConfirmationPage): string {
  const verb = p.decision === 'Approve' ? 'Approve' : 'Reject';
  const rows: [string, string][] = [
    ['Rollout', `${p.namespace}/${p.rollout}`],
    ['At', p.step],
    ['Revision', p.revision],
    ['Who is asked', p.asked],
    ['Approvals so far', p.approvalsSoFar],
    ['Time left', p.timeLeft],
  ];
  const list = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('');
  const prompt = p.prompt ? `<p>${escapeHtml(p.prompt)}</p>` : '';
  return page(
    `${verb} ${p.rollout}?`,
    `<h1>${escapeHtml(verb)} ${escapeHtml(p.rollout)}?</h1>${prompt}<dl>${list}</dl>
<form method="post"><label for="comment">Comment (optional)</label>
<textarea id="comment" name="comment" maxlength="1024"></textarea>
<button type="submit"${p.decision === 'Reject' ? ' class="reject"' : ''}>${escapeHtml(verb)}</button></form>`,
  );
}

export function resultPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
